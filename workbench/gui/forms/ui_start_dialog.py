# -*- coding: utf-8 -*-

################################################################################
## Form generated from reading UI file 'start_dialog.ui'
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
from PySide6.QtWidgets import (QAbstractButton, QApplication, QComboBox, QDialog,
    QDialogButtonBox, QFormLayout, QLabel, QLineEdit,
    QSizePolicy, QVBoxLayout, QWidget)

class Ui_StartAnnotatingDialog(object):
    def setupUi(self, StartAnnotatingDialog):
        if not StartAnnotatingDialog.objectName():
            StartAnnotatingDialog.setObjectName(u"StartAnnotatingDialog")
        self.dialog_layout = QVBoxLayout(StartAnnotatingDialog)
        self.dialog_layout.setObjectName(u"dialog_layout")
        self.form = QFormLayout()
        self.form.setObjectName(u"form")
        self.campaign_label = QLabel(StartAnnotatingDialog)
        self.campaign_label.setObjectName(u"campaign_label")

        self.form.setWidget(0, QFormLayout.ItemRole.LabelRole, self.campaign_label)

        self.campaign_box = QComboBox(StartAnnotatingDialog)
        self.campaign_box.setObjectName(u"campaign_box")

        self.form.setWidget(0, QFormLayout.ItemRole.FieldRole, self.campaign_box)

        self.annotator_label = QLabel(StartAnnotatingDialog)
        self.annotator_label.setObjectName(u"annotator_label")

        self.form.setWidget(1, QFormLayout.ItemRole.LabelRole, self.annotator_label)

        self.annotator_box = QComboBox(StartAnnotatingDialog)
        self.annotator_box.setObjectName(u"annotator_box")

        self.form.setWidget(1, QFormLayout.ItemRole.FieldRole, self.annotator_box)

        self.handle_label = QLabel(StartAnnotatingDialog)
        self.handle_label.setObjectName(u"handle_label")

        self.form.setWidget(2, QFormLayout.ItemRole.LabelRole, self.handle_label)

        self.handle_field = QLineEdit(StartAnnotatingDialog)
        self.handle_field.setObjectName(u"handle_field")

        self.form.setWidget(2, QFormLayout.ItemRole.FieldRole, self.handle_field)

        self.name_label = QLabel(StartAnnotatingDialog)
        self.name_label.setObjectName(u"name_label")

        self.form.setWidget(3, QFormLayout.ItemRole.LabelRole, self.name_label)

        self.name_field = QLineEdit(StartAnnotatingDialog)
        self.name_field.setObjectName(u"name_field")

        self.form.setWidget(3, QFormLayout.ItemRole.FieldRole, self.name_field)

        self.expertise_label = QLabel(StartAnnotatingDialog)
        self.expertise_label.setObjectName(u"expertise_label")

        self.form.setWidget(4, QFormLayout.ItemRole.LabelRole, self.expertise_label)

        self.expertise_field = QLineEdit(StartAnnotatingDialog)
        self.expertise_field.setObjectName(u"expertise_field")

        self.form.setWidget(4, QFormLayout.ItemRole.FieldRole, self.expertise_field)


        self.dialog_layout.addLayout(self.form)

        self.message = QLabel(StartAnnotatingDialog)
        self.message.setObjectName(u"message")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)

        self.dialog_layout.addWidget(self.message)

        self.buttons = QDialogButtonBox(StartAnnotatingDialog)
        self.buttons.setObjectName(u"buttons")
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.Cancel|QDialogButtonBox.StandardButton.Ok)

        self.dialog_layout.addWidget(self.buttons)

#if QT_CONFIG(shortcut)
        self.campaign_label.setBuddy(self.campaign_box)
        self.annotator_label.setBuddy(self.annotator_box)
        self.handle_label.setBuddy(self.handle_field)
        self.name_label.setBuddy(self.name_field)
        self.expertise_label.setBuddy(self.expertise_field)
#endif // QT_CONFIG(shortcut)

        self.retranslateUi(StartAnnotatingDialog)

        QMetaObject.connectSlotsByName(StartAnnotatingDialog)
    # setupUi

    def retranslateUi(self, StartAnnotatingDialog):
        StartAnnotatingDialog.setWindowTitle(QCoreApplication.translate("StartAnnotatingDialog", u"Start annotating", None))
        self.campaign_label.setText(QCoreApplication.translate("StartAnnotatingDialog", u"Campaign", None))
        self.annotator_label.setText(QCoreApplication.translate("StartAnnotatingDialog", u"You", None))
        self.handle_label.setText(QCoreApplication.translate("StartAnnotatingDialog", u"Handle", None))
        self.handle_field.setPlaceholderText(QCoreApplication.translate("StartAnnotatingDialog", u"short handle, e.g. ana", None))
        self.name_label.setText(QCoreApplication.translate("StartAnnotatingDialog", u"Name", None))
        self.expertise_label.setText(QCoreApplication.translate("StartAnnotatingDialog", u"Expertise", None))
        self.expertise_field.setPlaceholderText(QCoreApplication.translate("StartAnnotatingDialog", u"optional, e.g. radiologist", None))
        self.message.setStyleSheet(QCoreApplication.translate("StartAnnotatingDialog", u"color: #b00020;", None))
    # retranslateUi

