# -*- coding: utf-8 -*-

################################################################################
## Form generated from reading UI file 'export_dialog.ui'
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
    QLabel, QLineEdit, QProgressBar, QPushButton,
    QSizePolicy, QVBoxLayout, QWidget)

class Ui_ExportDialog(object):
    def setupUi(self, ExportDialog):
        if not ExportDialog.objectName():
            ExportDialog.setObjectName(u"ExportDialog")
        ExportDialog.setMinimumSize(QSize(620, 0))
        self.dialog_layout = QVBoxLayout(ExportDialog)
        self.dialog_layout.setObjectName(u"dialog_layout")
        self.form = QFormLayout()
        self.form.setObjectName(u"form")
        self.bundle_caption = QLabel(ExportDialog)
        self.bundle_caption.setObjectName(u"bundle_caption")

        self.form.setWidget(0, QFormLayout.ItemRole.LabelRole, self.bundle_caption)

        self.bundle_label = QLabel(ExportDialog)
        self.bundle_label.setObjectName(u"bundle_label")
        self.bundle_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.form.setWidget(0, QFormLayout.ItemRole.FieldRole, self.bundle_label)

        self.format_label = QLabel(ExportDialog)
        self.format_label.setObjectName(u"format_label")

        self.form.setWidget(1, QFormLayout.ItemRole.LabelRole, self.format_label)

        self.format_combo = QComboBox(ExportDialog)
        self.format_combo.setObjectName(u"format_combo")

        self.form.setWidget(1, QFormLayout.ItemRole.FieldRole, self.format_combo)

        self.campaign_label = QLabel(ExportDialog)
        self.campaign_label.setObjectName(u"campaign_label")

        self.form.setWidget(2, QFormLayout.ItemRole.LabelRole, self.campaign_label)

        self.campaign_combo = QComboBox(ExportDialog)
        self.campaign_combo.setObjectName(u"campaign_combo")
        self.campaign_combo.setEditable(True)

        self.form.setWidget(2, QFormLayout.ItemRole.FieldRole, self.campaign_combo)

        self.source_label = QLabel(ExportDialog)
        self.source_label.setObjectName(u"source_label")

        self.form.setWidget(3, QFormLayout.ItemRole.LabelRole, self.source_label)

        self.source_combo = QComboBox(ExportDialog)
        self.source_combo.setObjectName(u"source_combo")

        self.form.setWidget(3, QFormLayout.ItemRole.FieldRole, self.source_combo)

        self.images_label = QLabel(ExportDialog)
        self.images_label.setObjectName(u"images_label")

        self.form.setWidget(4, QFormLayout.ItemRole.LabelRole, self.images_label)

        self.images_combo = QComboBox(ExportDialog)
        self.images_combo.setObjectName(u"images_combo")

        self.form.setWidget(4, QFormLayout.ItemRole.FieldRole, self.images_combo)

        self.pseudonymize_check = QCheckBox(ExportDialog)
        self.pseudonymize_check.setObjectName(u"pseudonymize_check")

        self.form.setWidget(5, QFormLayout.ItemRole.FieldRole, self.pseudonymize_check)

        self.aggregate_check = QCheckBox(ExportDialog)
        self.aggregate_check.setObjectName(u"aggregate_check")

        self.form.setWidget(6, QFormLayout.ItemRole.FieldRole, self.aggregate_check)

        self.out_label = QLabel(ExportDialog)
        self.out_label.setObjectName(u"out_label")

        self.form.setWidget(7, QFormLayout.ItemRole.LabelRole, self.out_label)

        self.out_row = QHBoxLayout()
        self.out_row.setObjectName(u"out_row")
        self.out_edit = QLineEdit(ExportDialog)
        self.out_edit.setObjectName(u"out_edit")

        self.out_row.addWidget(self.out_edit)

        self.browse_button = QPushButton(ExportDialog)
        self.browse_button.setObjectName(u"browse_button")

        self.out_row.addWidget(self.browse_button)

        self.out_row.setStretch(0, 1)

        self.form.setLayout(7, QFormLayout.ItemRole.FieldRole, self.out_row)


        self.dialog_layout.addLayout(self.form)

        self.progress_bar = QProgressBar(ExportDialog)
        self.progress_bar.setObjectName(u"progress_bar")
        self.progress_bar.setMaximum(1)
        self.progress_bar.setValue(0)
        self.progress_bar.setTextVisible(False)

        self.dialog_layout.addWidget(self.progress_bar)

        self.status_label = QLabel(ExportDialog)
        self.status_label.setObjectName(u"status_label")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)

        self.dialog_layout.addWidget(self.status_label)

        self.buttons = QDialogButtonBox(ExportDialog)
        self.buttons.setObjectName(u"buttons")
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.Close)

        self.dialog_layout.addWidget(self.buttons)

#if QT_CONFIG(shortcut)
        self.format_label.setBuddy(self.format_combo)
        self.campaign_label.setBuddy(self.campaign_combo)
        self.source_label.setBuddy(self.source_combo)
        self.images_label.setBuddy(self.images_combo)
        self.out_label.setBuddy(self.out_edit)
#endif // QT_CONFIG(shortcut)

        self.retranslateUi(ExportDialog)

        QMetaObject.connectSlotsByName(ExportDialog)
    # setupUi

    def retranslateUi(self, ExportDialog):
        ExportDialog.setWindowTitle(QCoreApplication.translate("ExportDialog", u"Export", None))
        self.bundle_caption.setText(QCoreApplication.translate("ExportDialog", u"Bundle:", None))
        self.format_label.setText(QCoreApplication.translate("ExportDialog", u"Format:", None))
        self.campaign_label.setText(QCoreApplication.translate("ExportDialog", u"Campaign:", None))
        self.source_label.setText(QCoreApplication.translate("ExportDialog", u"Judgments by:", None))
        self.images_label.setText(QCoreApplication.translate("ExportDialog", u"Images:", None))
        self.pseudonymize_check.setText(QCoreApplication.translate("ExportDialog", u"Replace annotator handles by pseudonyms", None))
        self.aggregate_check.setText(QCoreApplication.translate("ExportDialog", u"One record per judged pair (votes per side)", None))
        self.out_label.setText(QCoreApplication.translate("ExportDialog", u"Export to:", None))
        self.out_edit.setPlaceholderText(QCoreApplication.translate("ExportDialog", u"the file to write", None))
        self.browse_button.setText(QCoreApplication.translate("ExportDialog", u"Browse\u2026", None))
        self.status_label.setText(QCoreApplication.translate("ExportDialog", u"Choose what to export and where.", None))
    # retranslateUi

