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
from PySide6.QtWidgets import (QAbstractButton, QApplication, QCheckBox, QComboBox,
    QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout,
    QLabel, QLineEdit, QListWidget, QListWidgetItem,
    QPushButton, QSizePolicy, QSpinBox, QVBoxLayout,
    QWidget)

class Ui_NewCampaignDialog(object):
    def setupUi(self, NewCampaignDialog):
        if not NewCampaignDialog.objectName():
            NewCampaignDialog.setObjectName(u"NewCampaignDialog")
        self.dialog_layout = QVBoxLayout(NewCampaignDialog)
        self.dialog_layout.setObjectName(u"dialog_layout")
        self.form = QFormLayout()
        self.form.setObjectName(u"form")
        self.name_label = QLabel(NewCampaignDialog)
        self.name_label.setObjectName(u"name_label")

        self.form.setWidget(0, QFormLayout.ItemRole.LabelRole, self.name_label)

        self.name_field = QLineEdit(NewCampaignDialog)
        self.name_field.setObjectName(u"name_field")

        self.form.setWidget(0, QFormLayout.ItemRole.FieldRole, self.name_field)

        self.protocol_label = QLabel(NewCampaignDialog)
        self.protocol_label.setObjectName(u"protocol_label")

        self.form.setWidget(1, QFormLayout.ItemRole.LabelRole, self.protocol_label)

        self.protocol_box = QComboBox(NewCampaignDialog)
        self.protocol_box.setObjectName(u"protocol_box")

        self.form.setWidget(1, QFormLayout.ItemRole.FieldRole, self.protocol_box)

        self.items_label = QLabel(NewCampaignDialog)
        self.items_label.setObjectName(u"items_label")

        self.form.setWidget(2, QFormLayout.ItemRole.LabelRole, self.items_label)

        self.items_box = QComboBox(NewCampaignDialog)
        self.items_box.setObjectName(u"items_box")
        self.items_box.setEditable(True)

        self.form.setWidget(2, QFormLayout.ItemRole.FieldRole, self.items_box)

        self.models_label = QLabel(NewCampaignDialog)
        self.models_label.setObjectName(u"models_label")

        self.form.setWidget(3, QFormLayout.ItemRole.LabelRole, self.models_label)

        self.model_list = QListWidget(NewCampaignDialog)
        self.model_list.setObjectName(u"model_list")
        self.model_list.setMaximumSize(QSize(16777215, 160))

        self.form.setWidget(3, QFormLayout.ItemRole.FieldRole, self.model_list)

        self.pairing_label = QLabel(NewCampaignDialog)
        self.pairing_label.setObjectName(u"pairing_label")

        self.form.setWidget(4, QFormLayout.ItemRole.LabelRole, self.pairing_label)

        self.pairing_box = QComboBox(NewCampaignDialog)
        self.pairing_box.setObjectName(u"pairing_box")

        self.form.setWidget(4, QFormLayout.ItemRole.FieldRole, self.pairing_box)

        self.anchor_label = QLabel(NewCampaignDialog)
        self.anchor_label.setObjectName(u"anchor_label")

        self.form.setWidget(5, QFormLayout.ItemRole.LabelRole, self.anchor_label)

        self.anchor_box = QComboBox(NewCampaignDialog)
        self.anchor_box.setObjectName(u"anchor_box")

        self.form.setWidget(5, QFormLayout.ItemRole.FieldRole, self.anchor_box)

        self.per_pair_label = QLabel(NewCampaignDialog)
        self.per_pair_label.setObjectName(u"per_pair_label")

        self.form.setWidget(6, QFormLayout.ItemRole.LabelRole, self.per_pair_label)

        self.per_pair_spin = QSpinBox(NewCampaignDialog)
        self.per_pair_spin.setObjectName(u"per_pair_spin")
        self.per_pair_spin.setMinimum(1)
        self.per_pair_spin.setMaximum(100000)
        self.per_pair_spin.setValue(20)

        self.form.setWidget(6, QFormLayout.ItemRole.FieldRole, self.per_pair_spin)

        self.votes_label = QLabel(NewCampaignDialog)
        self.votes_label.setObjectName(u"votes_label")

        self.form.setWidget(7, QFormLayout.ItemRole.LabelRole, self.votes_label)

        self.votes_spin = QSpinBox(NewCampaignDialog)
        self.votes_spin.setObjectName(u"votes_spin")
        self.votes_spin.setMinimum(1)
        self.votes_spin.setMaximum(100)

        self.form.setWidget(7, QFormLayout.ItemRole.FieldRole, self.votes_spin)

        self.seed_label = QLabel(NewCampaignDialog)
        self.seed_label.setObjectName(u"seed_label")

        self.form.setWidget(8, QFormLayout.ItemRole.LabelRole, self.seed_label)

        self.seed_spin = QSpinBox(NewCampaignDialog)
        self.seed_spin.setObjectName(u"seed_spin")
        self.seed_spin.setMinimum(0)
        self.seed_spin.setMaximum(2147483647)

        self.form.setWidget(8, QFormLayout.ItemRole.FieldRole, self.seed_spin)

        self.without_missing_box = QCheckBox(NewCampaignDialog)
        self.without_missing_box.setObjectName(u"without_missing_box")
        self.without_missing_box.setChecked(True)

        self.form.setWidget(9, QFormLayout.ItemRole.FieldRole, self.without_missing_box)

        self.practice_file_label = QLabel(NewCampaignDialog)
        self.practice_file_label.setObjectName(u"practice_file_label")

        self.form.setWidget(10, QFormLayout.ItemRole.LabelRole, self.practice_file_label)

        self.practice_row = QHBoxLayout()
        self.practice_row.setObjectName(u"practice_row")
        self.practice_file_field = QLineEdit(NewCampaignDialog)
        self.practice_file_field.setObjectName(u"practice_file_field")

        self.practice_row.addWidget(self.practice_file_field)

        self.practice_browse_button = QPushButton(NewCampaignDialog)
        self.practice_browse_button.setObjectName(u"practice_browse_button")

        self.practice_row.addWidget(self.practice_browse_button)

        self.practice_row.setStretch(0, 1)

        self.form.setLayout(10, QFormLayout.ItemRole.FieldRole, self.practice_row)

        self.practice_count_label = QLabel(NewCampaignDialog)
        self.practice_count_label.setObjectName(u"practice_count_label")

        self.form.setWidget(11, QFormLayout.ItemRole.LabelRole, self.practice_count_label)

        self.practice_spin = QSpinBox(NewCampaignDialog)
        self.practice_spin.setObjectName(u"practice_spin")
        self.practice_spin.setMinimum(0)
        self.practice_spin.setMaximum(1000)

        self.form.setWidget(11, QFormLayout.ItemRole.FieldRole, self.practice_spin)

        self.practice_optional_box = QCheckBox(NewCampaignDialog)
        self.practice_optional_box.setObjectName(u"practice_optional_box")
        self.practice_optional_box.setChecked(True)

        self.form.setWidget(12, QFormLayout.ItemRole.FieldRole, self.practice_optional_box)


        self.dialog_layout.addLayout(self.form)

        self.message = QLabel(NewCampaignDialog)
        self.message.setObjectName(u"message")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)

        self.dialog_layout.addWidget(self.message)

        self.buttons = QDialogButtonBox(NewCampaignDialog)
        self.buttons.setObjectName(u"buttons")
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.Cancel|QDialogButtonBox.StandardButton.Ok)

        self.dialog_layout.addWidget(self.buttons)

#if QT_CONFIG(shortcut)
        self.name_label.setBuddy(self.name_field)
        self.protocol_label.setBuddy(self.protocol_box)
        self.items_label.setBuddy(self.items_box)
        self.models_label.setBuddy(self.model_list)
        self.pairing_label.setBuddy(self.pairing_box)
        self.anchor_label.setBuddy(self.anchor_box)
        self.per_pair_label.setBuddy(self.per_pair_spin)
        self.votes_label.setBuddy(self.votes_spin)
        self.seed_label.setBuddy(self.seed_spin)
        self.practice_file_label.setBuddy(self.practice_file_field)
        self.practice_count_label.setBuddy(self.practice_spin)
#endif // QT_CONFIG(shortcut)

        self.retranslateUi(NewCampaignDialog)

        QMetaObject.connectSlotsByName(NewCampaignDialog)
    # setupUi

    def retranslateUi(self, NewCampaignDialog):
        NewCampaignDialog.setWindowTitle(QCoreApplication.translate("NewCampaignDialog", u"New campaign", None))
        self.name_label.setText(QCoreApplication.translate("NewCampaignDialog", u"Name", None))
        self.name_field.setPlaceholderText(QCoreApplication.translate("NewCampaignDialog", u"annotators see it: name no model in it", None))
        self.protocol_label.setText(QCoreApplication.translate("NewCampaignDialog", u"Protocol", None))
        self.items_label.setText(QCoreApplication.translate("NewCampaignDialog", u"Items", None))
#if QT_CONFIG(tooltip)
        self.items_box.setToolTip(QCoreApplication.translate("NewCampaignDialog", u"all, a source name, or comma-separated item ids", None))
#endif // QT_CONFIG(tooltip)
        self.models_label.setText(QCoreApplication.translate("NewCampaignDialog", u"Models", None))
        self.pairing_label.setText(QCoreApplication.translate("NewCampaignDialog", u"Pairing", None))
        self.anchor_label.setText(QCoreApplication.translate("NewCampaignDialog", u"Anchor", None))
        self.per_pair_label.setText(QCoreApplication.translate("NewCampaignDialog", u"Pairs per model pair", None))
        self.votes_label.setText(QCoreApplication.translate("NewCampaignDialog", u"Votes per pair", None))
        self.seed_label.setText(QCoreApplication.translate("NewCampaignDialog", u"Seed", None))
        self.without_missing_box.setText(QCoreApplication.translate("NewCampaignDialog", u"Leave out items whose images are missing", None))
        self.practice_file_label.setText(QCoreApplication.translate("NewCampaignDialog", u"Practice file", None))
        self.practice_file_field.setPlaceholderText(QCoreApplication.translate("NewCampaignDialog", u"none: answers marked right and wrong in the data, when a count is given", None))
#if QT_CONFIG(tooltip)
        self.practice_file_field.setToolTip(QCoreApplication.translate("NewCampaignDialog", u"JSONL, one practice task a line: item, answer, first, second, turn, explanation", None))
#endif // QT_CONFIG(tooltip)
        self.practice_browse_button.setText(QCoreApplication.translate("NewCampaignDialog", u"Browse\u2026", None))
        self.practice_count_label.setText(QCoreApplication.translate("NewCampaignDialog", u"Practice tasks", None))
        self.practice_spin.setSpecialValueText(QCoreApplication.translate("NewCampaignDialog", u"all in the file (none without one)", None))
#if QT_CONFIG(tooltip)
        self.practice_spin.setToolTip(QCoreApplication.translate("NewCampaignDialog", u"how many practice tasks to draw (0: no practice round)", None))
#endif // QT_CONFIG(tooltip)
        self.practice_optional_box.setText(QCoreApplication.translate("NewCampaignDialog", u"Annotators may skip the practice round", None))
        self.message.setStyleSheet(QCoreApplication.translate("NewCampaignDialog", u"color: #b00020;", None))
    # retranslateUi

