# -*- coding: utf-8 -*-

################################################################################
## Form generated from reading UI file 'server_dialog.ui'
##
## Created by: Qt User Interface Compiler version 6.11.3
##
## WARNING! All changes made in this file will be lost when recompiling UI file!
################################################################################

from PySide6.QtCore import (QCoreApplication, QDate, QDateTime, QLocale,
    QMetaObject, QObject, QPoint, QRect,
    QSize, QTime, QUrl, Qt)
from PySide6.QtGui import (QBrush, QColor, QConicalGradient, QCursor,
    QFont, QFontDatabase, QGradient, QIcon,
    QImage, QKeySequence, QLinearGradient, QPainter,
    QPalette, QPixmap, QRadialGradient, QTransform)
from PySide6.QtWidgets import (QAbstractButton, QApplication, QCheckBox, QDialog,
    QDialogButtonBox, QFormLayout, QLabel, QLineEdit,
    QSizePolicy, QVBoxLayout, QWidget)

class Ui_ServerDialog(object):
    def setupUi(self, ServerDialog):
        if not ServerDialog.objectName():
            ServerDialog.setObjectName(u"ServerDialog")
        ServerDialog.setMinimumSize(QSize(560, 0))
        self.dialog_layout = QVBoxLayout(ServerDialog)
        self.dialog_layout.setObjectName(u"dialog_layout")
        self.intro = QLabel(ServerDialog)
        self.intro.setObjectName(u"intro")
        self.intro.setWordWrap(True)

        self.dialog_layout.addWidget(self.intro)

        self.form = QFormLayout()
        self.form.setObjectName(u"form")
        self.url_label = QLabel(ServerDialog)
        self.url_label.setObjectName(u"url_label")

        self.form.setWidget(0, QFormLayout.ItemRole.LabelRole, self.url_label)

        self.url_edit = QLineEdit(ServerDialog)
        self.url_edit.setObjectName(u"url_edit")
        self.url_edit.setClearButtonEnabled(True)

        self.form.setWidget(0, QFormLayout.ItemRole.FieldRole, self.url_edit)

        self.password_label = QLabel(ServerDialog)
        self.password_label.setObjectName(u"password_label")

        self.form.setWidget(1, QFormLayout.ItemRole.LabelRole, self.password_label)

        self.password_edit = QLineEdit(ServerDialog)
        self.password_edit.setObjectName(u"password_edit")
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)

        self.form.setWidget(1, QFormLayout.ItemRole.FieldRole, self.password_edit)

        self.remember_box = QCheckBox(ServerDialog)
        self.remember_box.setObjectName(u"remember_box")
        self.remember_box.setEnabled(False)

        self.form.setWidget(2, QFormLayout.ItemRole.FieldRole, self.remember_box)


        self.dialog_layout.addLayout(self.form)

        self.problem_label = QLabel(ServerDialog)
        self.problem_label.setObjectName(u"problem_label")
        self.problem_label.setWordWrap(True)
        self.problem_label.setTextFormat(Qt.TextFormat.PlainText)
        self.problem_label.setVisible(False)

        self.dialog_layout.addWidget(self.problem_label)

        self.buttons = QDialogButtonBox(ServerDialog)
        self.buttons.setObjectName(u"buttons")
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.Cancel|QDialogButtonBox.StandardButton.Open)

        self.dialog_layout.addWidget(self.buttons)

#if QT_CONFIG(shortcut)
        self.url_label.setBuddy(self.url_edit)
        self.password_label.setBuddy(self.password_edit)
#endif // QT_CONFIG(shortcut)

        self.retranslateUi(ServerDialog)

        QMetaObject.connectSlotsByName(ServerDialog)
    # setupUi

    def retranslateUi(self, ServerDialog):
        ServerDialog.setWindowTitle(QCoreApplication.translate("ServerDialog", u"Open server bundle", None))
        self.url_label.setText(QCoreApplication.translate("ServerDialog", u"Server URL:", None))
        self.password_label.setText(QCoreApplication.translate("ServerDialog", u"Password:", None))
        self.password_edit.setPlaceholderText(QCoreApplication.translate("ServerDialog", u"optional", None))
        self.remember_box.setText(QCoreApplication.translate("ServerDialog", u"Remember the password in the system keyring", None))
        self.problem_label.setStyleSheet(QCoreApplication.translate("ServerDialog", u"color: #b00020", None))
    # retranslateUi

