# -*- coding: utf-8 -*-

################################################################################
## Form generated from reading UI file 'report_dialog.ui'
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
    QDialogButtonBox, QFormLayout, QHBoxLayout, QLabel,
    QLineEdit, QProgressBar, QPushButton, QSizePolicy,
    QSpinBox, QVBoxLayout, QWidget)

class Ui_ReportDialog(object):
    def setupUi(self, ReportDialog):
        if not ReportDialog.objectName():
            ReportDialog.setObjectName(u"ReportDialog")
        ReportDialog.setMinimumSize(QSize(560, 0))
        self.dialog_layout = QVBoxLayout(ReportDialog)
        self.dialog_layout.setObjectName(u"dialog_layout")
        self.form = QFormLayout()
        self.form.setObjectName(u"form")
        self.bundle_caption = QLabel(ReportDialog)
        self.bundle_caption.setObjectName(u"bundle_caption")

        self.form.setWidget(0, QFormLayout.ItemRole.LabelRole, self.bundle_caption)

        self.bundle_label = QLabel(ReportDialog)
        self.bundle_label.setObjectName(u"bundle_label")
        self.bundle_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.form.setWidget(0, QFormLayout.ItemRole.FieldRole, self.bundle_label)

        self.category_label = QLabel(ReportDialog)
        self.category_label.setObjectName(u"category_label")

        self.form.setWidget(1, QFormLayout.ItemRole.LabelRole, self.category_label)

        self.category_combo = QComboBox(ReportDialog)
        self.category_combo.setObjectName(u"category_combo")
        self.category_combo.setEditable(True)

        self.form.setWidget(1, QFormLayout.ItemRole.FieldRole, self.category_combo)

        self.campaign_label = QLabel(ReportDialog)
        self.campaign_label.setObjectName(u"campaign_label")

        self.form.setWidget(2, QFormLayout.ItemRole.LabelRole, self.campaign_label)

        self.campaign_combo = QComboBox(ReportDialog)
        self.campaign_combo.setObjectName(u"campaign_combo")
        self.campaign_combo.setEditable(True)

        self.form.setWidget(2, QFormLayout.ItemRole.FieldRole, self.campaign_combo)

        self.judge_run_label = QLabel(ReportDialog)
        self.judge_run_label.setObjectName(u"judge_run_label")

        self.form.setWidget(3, QFormLayout.ItemRole.LabelRole, self.judge_run_label)

        self.judge_run_combo = QComboBox(ReportDialog)
        self.judge_run_combo.setObjectName(u"judge_run_combo")
        self.judge_run_combo.setEditable(True)

        self.form.setWidget(3, QFormLayout.ItemRole.FieldRole, self.judge_run_combo)

        self.bootstrap_label = QLabel(ReportDialog)
        self.bootstrap_label.setObjectName(u"bootstrap_label")

        self.form.setWidget(4, QFormLayout.ItemRole.LabelRole, self.bootstrap_label)

        self.bootstrap_spin = QSpinBox(ReportDialog)
        self.bootstrap_spin.setObjectName(u"bootstrap_spin")
        self.bootstrap_spin.setMinimum(0)
        self.bootstrap_spin.setMaximum(10000)

        self.form.setWidget(4, QFormLayout.ItemRole.FieldRole, self.bootstrap_spin)

        self.seed_label = QLabel(ReportDialog)
        self.seed_label.setObjectName(u"seed_label")

        self.form.setWidget(5, QFormLayout.ItemRole.LabelRole, self.seed_label)

        self.seed_spin = QSpinBox(ReportDialog)
        self.seed_spin.setObjectName(u"seed_spin")
        self.seed_spin.setMinimum(0)
        self.seed_spin.setMaximum(2147483647)

        self.form.setWidget(5, QFormLayout.ItemRole.FieldRole, self.seed_spin)

        self.out_label = QLabel(ReportDialog)
        self.out_label.setObjectName(u"out_label")

        self.form.setWidget(6, QFormLayout.ItemRole.LabelRole, self.out_label)

        self.out_row = QHBoxLayout()
        self.out_row.setObjectName(u"out_row")
        self.out_edit = QLineEdit(ReportDialog)
        self.out_edit.setObjectName(u"out_edit")

        self.out_row.addWidget(self.out_edit)

        self.browse_button = QPushButton(ReportDialog)
        self.browse_button.setObjectName(u"browse_button")

        self.out_row.addWidget(self.browse_button)

        self.out_row.setStretch(0, 1)

        self.form.setLayout(6, QFormLayout.ItemRole.FieldRole, self.out_row)


        self.dialog_layout.addLayout(self.form)

        self.progress_bar = QProgressBar(ReportDialog)
        self.progress_bar.setObjectName(u"progress_bar")
        self.progress_bar.setMaximum(1)
        self.progress_bar.setValue(0)
        self.progress_bar.setTextVisible(False)

        self.dialog_layout.addWidget(self.progress_bar)

        self.status_label = QLabel(ReportDialog)
        self.status_label.setObjectName(u"status_label")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)

        self.dialog_layout.addWidget(self.status_label)

        self.buttons = QDialogButtonBox(ReportDialog)
        self.buttons.setObjectName(u"buttons")
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.Close)

        self.dialog_layout.addWidget(self.buttons)

#if QT_CONFIG(shortcut)
        self.category_label.setBuddy(self.category_combo)
        self.campaign_label.setBuddy(self.campaign_combo)
        self.judge_run_label.setBuddy(self.judge_run_combo)
        self.bootstrap_label.setBuddy(self.bootstrap_spin)
        self.seed_label.setBuddy(self.seed_spin)
        self.out_label.setBuddy(self.out_edit)
#endif // QT_CONFIG(shortcut)

        self.retranslateUi(ReportDialog)

        QMetaObject.connectSlotsByName(ReportDialog)
    # setupUi

    def retranslateUi(self, ReportDialog):
        ReportDialog.setWindowTitle(QCoreApplication.translate("ReportDialog", u"Export report", None))
        self.bundle_caption.setText(QCoreApplication.translate("ReportDialog", u"Bundle:", None))
        self.category_label.setText(QCoreApplication.translate("ReportDialog", u"Category:", None))
        self.campaign_label.setText(QCoreApplication.translate("ReportDialog", u"Campaign:", None))
        self.judge_run_label.setText(QCoreApplication.translate("ReportDialog", u"Judge run:", None))
        self.bootstrap_label.setText(QCoreApplication.translate("ReportDialog", u"Bootstrap rounds:", None))
        self.seed_label.setText(QCoreApplication.translate("ReportDialog", u"Seed:", None))
        self.out_label.setText(QCoreApplication.translate("ReportDialog", u"Write to:", None))
        self.out_edit.setPlaceholderText(QCoreApplication.translate("ReportDialog", u"the file to write", None))
        self.browse_button.setText(QCoreApplication.translate("ReportDialog", u"Browse\u2026", None))
        self.status_label.setText(QCoreApplication.translate("ReportDialog", u"Choose the judgments to report on and where to write it.", None))
    # retranslateUi

