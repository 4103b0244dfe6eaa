# -*- coding: utf-8 -*-

################################################################################
## Form generated from reading UI file 'new_campaign_dialog.ui'
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
    QFormLayout, QFrame, QGroupBox, QHBoxLayout,
    QLabel, QScrollArea, QSizePolicy, QVBoxLayout,
    QWidget)

class Ui_NewCampaignDialog(object):
    def setupUi(self, NewCampaignDialog):
        if not NewCampaignDialog.objectName():
            NewCampaignDialog.setObjectName(u"NewCampaignDialog")
        self.dialog_layout = QVBoxLayout(NewCampaignDialog)
        self.dialog_layout.setObjectName(u"dialog_layout")
        self.body_row = QHBoxLayout()
        self.body_row.setObjectName(u"body_row")
        self.form_scroll = QScrollArea(NewCampaignDialog)
        self.form_scroll.setObjectName(u"form_scroll")
        self.form_scroll.setWidgetResizable(True)
        self.form_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.form_host = QWidget()
        self.form_host.setObjectName(u"form_host")
        self.form = QFormLayout(self.form_host)
        self.form.setObjectName(u"form")
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.form_scroll.setWidget(self.form_host)

        self.body_row.addWidget(self.form_scroll)

        self.preview_group = QGroupBox(NewCampaignDialog)
        self.preview_group.setObjectName(u"preview_group")
        self.preview_layout = QVBoxLayout(self.preview_group)
        self.preview_layout.setObjectName(u"preview_layout")
        self.preview = QLabel(self.preview_group)
        self.preview.setObjectName(u"preview")
        self.preview.setTextFormat(Qt.TextFormat.PlainText)
        self.preview.setWordWrap(True)
        self.preview.setAlignment(Qt.AlignmentFlag.AlignLeading|Qt.AlignmentFlag.AlignTop)
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.preview_layout.addWidget(self.preview)


        self.body_row.addWidget(self.preview_group)

        self.body_row.setStretch(0, 3)
        self.body_row.setStretch(1, 2)

        self.dialog_layout.addLayout(self.body_row)

        self.message = QLabel(NewCampaignDialog)
        self.message.setObjectName(u"message")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)

        self.dialog_layout.addWidget(self.message)

        self.buttons = QDialogButtonBox(NewCampaignDialog)
        self.buttons.setObjectName(u"buttons")
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.Cancel|QDialogButtonBox.StandardButton.Ok)

        self.dialog_layout.addWidget(self.buttons)


        self.retranslateUi(NewCampaignDialog)

        QMetaObject.connectSlotsByName(NewCampaignDialog)
    # setupUi

    def retranslateUi(self, NewCampaignDialog):
        NewCampaignDialog.setWindowTitle(QCoreApplication.translate("NewCampaignDialog", u"New campaign", None))
        self.preview_group.setTitle(QCoreApplication.translate("NewCampaignDialog", u"Schedule preview", None))
        self.message.setStyleSheet(QCoreApplication.translate("NewCampaignDialog", u"color: #b00020;", None))
    # retranslateUi

