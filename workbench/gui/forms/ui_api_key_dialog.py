# -*- coding: utf-8 -*-

################################################################################
## Form generated from reading UI file 'api_key_dialog.ui'
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
from PySide6.QtWidgets import (QAbstractButton, QApplication, QDialog, QDialogButtonBox,
    QFormLayout, QLabel, QLineEdit, QSizePolicy,
    QVBoxLayout, QWidget)

class Ui_ApiKeyDialog(object):
    def setupUi(self, ApiKeyDialog):
        if not ApiKeyDialog.objectName():
            ApiKeyDialog.setObjectName(u"ApiKeyDialog")
        ApiKeyDialog.setMinimumSize(QSize(520, 0))
        self.dialog_layout = QVBoxLayout(ApiKeyDialog)
        self.dialog_layout.setObjectName(u"dialog_layout")
        self.explanation = QLabel(ApiKeyDialog)
        self.explanation.setObjectName(u"explanation")
        self.explanation.setWordWrap(True)

        self.dialog_layout.addWidget(self.explanation)

        self.form = QFormLayout()
        self.form.setObjectName(u"form")
        self.base_url_label = QLabel(ApiKeyDialog)
        self.base_url_label.setObjectName(u"base_url_label")

        self.form.setWidget(0, QFormLayout.ItemRole.LabelRole, self.base_url_label)

        self.base_url_edit = QLineEdit(ApiKeyDialog)
        self.base_url_edit.setObjectName(u"base_url_edit")

        self.form.setWidget(0, QFormLayout.ItemRole.FieldRole, self.base_url_edit)

        self.key_label = QLabel(ApiKeyDialog)
        self.key_label.setObjectName(u"key_label")

        self.form.setWidget(1, QFormLayout.ItemRole.LabelRole, self.key_label)

        self.key_edit = QLineEdit(ApiKeyDialog)
        self.key_edit.setObjectName(u"key_edit")
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)
        self.key_edit.setDragEnabled(False)

        self.form.setWidget(1, QFormLayout.ItemRole.FieldRole, self.key_edit)


        self.dialog_layout.addLayout(self.form)

        self.status_label = QLabel(ApiKeyDialog)
        self.status_label.setObjectName(u"status_label")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)

        self.dialog_layout.addWidget(self.status_label)

        self.buttons = QDialogButtonBox(ApiKeyDialog)
        self.buttons.setObjectName(u"buttons")
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.Close)

        self.dialog_layout.addWidget(self.buttons)

#if QT_CONFIG(shortcut)
        self.base_url_label.setBuddy(self.base_url_edit)
        self.key_label.setBuddy(self.key_edit)
#endif // QT_CONFIG(shortcut)

        self.retranslateUi(ApiKeyDialog)

        QMetaObject.connectSlotsByName(ApiKeyDialog)
    # setupUi

    def retranslateUi(self, ApiKeyDialog):
        ApiKeyDialog.setWindowTitle(QCoreApplication.translate("ApiKeyDialog", u"API key", None))
        self.base_url_label.setText(QCoreApplication.translate("ApiKeyDialog", u"Endpoint (base URL):", None))
        self.key_label.setText(QCoreApplication.translate("ApiKeyDialog", u"API key:", None))
        self.key_edit.setPlaceholderText(QCoreApplication.translate("ApiKeyDialog", u"paste the key here", None))
    # retranslateUi

