# -*- coding: utf-8 -*-

################################################################################
## Form generated from reading UI file 'judge_dialog.ui'
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
    QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout,
    QGroupBox, QHBoxLayout, QLabel, QLineEdit,
    QPlainTextEdit, QProgressBar, QPushButton, QRadioButton,
    QSizePolicy, QSpacerItem, QSpinBox, QVBoxLayout,
    QWidget)

class Ui_JudgeDialog(object):
    def setupUi(self, JudgeDialog):
        if not JudgeDialog.objectName():
            JudgeDialog.setObjectName(u"JudgeDialog")
        self.dialog_layout = QVBoxLayout(JudgeDialog)
        self.dialog_layout.setObjectName(u"dialog_layout")
        self.columns = QHBoxLayout()
        self.columns.setObjectName(u"columns")
        self.left_column = QVBoxLayout()
        self.left_column.setObjectName(u"left_column")
        self.endpoint_group = QGroupBox(JudgeDialog)
        self.endpoint_group.setObjectName(u"endpoint_group")
        self.endpoint_form = QFormLayout(self.endpoint_group)
        self.endpoint_form.setObjectName(u"endpoint_form")
        self.base_url_label = QLabel(self.endpoint_group)
        self.base_url_label.setObjectName(u"base_url_label")

        self.endpoint_form.setWidget(0, QFormLayout.ItemRole.LabelRole, self.base_url_label)

        self.base_url_edit = QLineEdit(self.endpoint_group)
        self.base_url_edit.setObjectName(u"base_url_edit")

        self.endpoint_form.setWidget(0, QFormLayout.ItemRole.FieldRole, self.base_url_edit)

        self.model_label = QLabel(self.endpoint_group)
        self.model_label.setObjectName(u"model_label")

        self.endpoint_form.setWidget(1, QFormLayout.ItemRole.LabelRole, self.model_label)

        self.model_combo = QComboBox(self.endpoint_group)
        self.model_combo.setObjectName(u"model_combo")
        self.model_combo.setEditable(True)

        self.endpoint_form.setWidget(1, QFormLayout.ItemRole.FieldRole, self.model_combo)

        self.price_label = QLabel(self.endpoint_group)
        self.price_label.setObjectName(u"price_label")

        self.endpoint_form.setWidget(2, QFormLayout.ItemRole.LabelRole, self.price_label)

        self.price_edit = QLineEdit(self.endpoint_group)
        self.price_edit.setObjectName(u"price_edit")

        self.endpoint_form.setWidget(2, QFormLayout.ItemRole.FieldRole, self.price_edit)


        self.left_column.addWidget(self.endpoint_group)

        self.what_group = QGroupBox(JudgeDialog)
        self.what_group.setObjectName(u"what_group")
        self.what_form = QFormLayout(self.what_group)
        self.what_form.setObjectName(u"what_form")
        self.models_radio = QRadioButton(self.what_group)
        self.models_radio.setObjectName(u"models_radio")
        self.models_radio.setChecked(True)

        self.what_form.setWidget(0, QFormLayout.ItemRole.LabelRole, self.models_radio)

        self.models_edit = QLineEdit(self.what_group)
        self.models_edit.setObjectName(u"models_edit")

        self.what_form.setWidget(0, QFormLayout.ItemRole.FieldRole, self.models_edit)

        self.items_label = QLabel(self.what_group)
        self.items_label.setObjectName(u"items_label")

        self.what_form.setWidget(1, QFormLayout.ItemRole.LabelRole, self.items_label)

        self.items_edit = QLineEdit(self.what_group)
        self.items_edit.setObjectName(u"items_edit")

        self.what_form.setWidget(1, QFormLayout.ItemRole.FieldRole, self.items_edit)

        self.anchor_label = QLabel(self.what_group)
        self.anchor_label.setObjectName(u"anchor_label")

        self.what_form.setWidget(2, QFormLayout.ItemRole.LabelRole, self.anchor_label)

        self.anchor_edit = QLineEdit(self.what_group)
        self.anchor_edit.setObjectName(u"anchor_edit")

        self.what_form.setWidget(2, QFormLayout.ItemRole.FieldRole, self.anchor_edit)

        self.campaign_radio = QRadioButton(self.what_group)
        self.campaign_radio.setObjectName(u"campaign_radio")

        self.what_form.setWidget(3, QFormLayout.ItemRole.LabelRole, self.campaign_radio)

        self.campaign_edit = QLineEdit(self.what_group)
        self.campaign_edit.setObjectName(u"campaign_edit")

        self.what_form.setWidget(3, QFormLayout.ItemRole.FieldRole, self.campaign_edit)


        self.left_column.addWidget(self.what_group)

        self.limits_group = QGroupBox(JudgeDialog)
        self.limits_group.setObjectName(u"limits_group")
        self.limits_form = QFormLayout(self.limits_group)
        self.limits_form.setObjectName(u"limits_form")
        self.limit_label = QLabel(self.limits_group)
        self.limit_label.setObjectName(u"limit_label")

        self.limits_form.setWidget(0, QFormLayout.ItemRole.LabelRole, self.limit_label)

        self.limit_spin = QSpinBox(self.limits_group)
        self.limit_spin.setObjectName(u"limit_spin")
        self.limit_spin.setMinimum(0)
        self.limit_spin.setMaximum(10000000)

        self.limits_form.setWidget(0, QFormLayout.ItemRole.FieldRole, self.limit_spin)

        self.concurrency_label = QLabel(self.limits_group)
        self.concurrency_label.setObjectName(u"concurrency_label")

        self.limits_form.setWidget(1, QFormLayout.ItemRole.LabelRole, self.concurrency_label)

        self.concurrency_spin = QSpinBox(self.limits_group)
        self.concurrency_spin.setObjectName(u"concurrency_spin")
        self.concurrency_spin.setMinimum(1)
        self.concurrency_spin.setMaximum(64)
        self.concurrency_spin.setValue(8)

        self.limits_form.setWidget(1, QFormLayout.ItemRole.FieldRole, self.concurrency_spin)

        self.swap_check = QCheckBox(self.limits_group)
        self.swap_check.setObjectName(u"swap_check")
        self.swap_check.setChecked(True)

        self.limits_form.setWidget(2, QFormLayout.ItemRole.FieldRole, self.swap_check)

        self.max_cost_label = QLabel(self.limits_group)
        self.max_cost_label.setObjectName(u"max_cost_label")

        self.limits_form.setWidget(3, QFormLayout.ItemRole.LabelRole, self.max_cost_label)

        self.max_cost_spin = QDoubleSpinBox(self.limits_group)
        self.max_cost_spin.setObjectName(u"max_cost_spin")
        self.max_cost_spin.setDecimals(2)
        self.max_cost_spin.setMinimum(0.000000000000000)
        self.max_cost_spin.setMaximum(100000.000000000000000)

        self.limits_form.setWidget(3, QFormLayout.ItemRole.FieldRole, self.max_cost_spin)

        self.max_requests_label = QLabel(self.limits_group)
        self.max_requests_label.setObjectName(u"max_requests_label")

        self.limits_form.setWidget(4, QFormLayout.ItemRole.LabelRole, self.max_requests_label)

        self.max_requests_spin = QSpinBox(self.limits_group)
        self.max_requests_spin.setObjectName(u"max_requests_spin")
        self.max_requests_spin.setMinimum(0)
        self.max_requests_spin.setMaximum(10000000)

        self.limits_form.setWidget(4, QFormLayout.ItemRole.FieldRole, self.max_requests_spin)

        self.text_only_check = QCheckBox(self.limits_group)
        self.text_only_check.setObjectName(u"text_only_check")

        self.limits_form.setWidget(5, QFormLayout.ItemRole.FieldRole, self.text_only_check)


        self.left_column.addWidget(self.limits_group)

        self.left_stretch = QSpacerItem(0, 0, QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Expanding)

        self.left_column.addItem(self.left_stretch)

        self.left_column.setStretch(3, 1)

        self.columns.addLayout(self.left_column)

        self.prompt_group = QGroupBox(JudgeDialog)
        self.prompt_group.setObjectName(u"prompt_group")
        self.prompt_layout = QVBoxLayout(self.prompt_group)
        self.prompt_layout.setObjectName(u"prompt_layout")
        self.template_row = QHBoxLayout()
        self.template_row.setObjectName(u"template_row")
        self.template_combo = QComboBox(self.prompt_group)
        self.template_combo.setObjectName(u"template_combo")

        self.template_row.addWidget(self.template_combo)

        self.template_version = QLabel(self.prompt_group)
        self.template_version.setObjectName(u"template_version")

        self.template_row.addWidget(self.template_version)

        self.template_row.setStretch(0, 1)

        self.prompt_layout.addLayout(self.template_row)

        self.template_description = QLabel(self.prompt_group)
        self.template_description.setObjectName(u"template_description")
        self.template_description.setWordWrap(True)

        self.prompt_layout.addWidget(self.template_description)

        self.system_label = QLabel(self.prompt_group)
        self.system_label.setObjectName(u"system_label")

        self.prompt_layout.addWidget(self.system_label)

        self.system_edit = QPlainTextEdit(self.prompt_group)
        self.system_edit.setObjectName(u"system_edit")
        self.system_edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.system_edit.setMinimumSize(QSize(0, 80))

        self.prompt_layout.addWidget(self.system_edit)

        self.user_label = QLabel(self.prompt_group)
        self.user_label.setObjectName(u"user_label")

        self.prompt_layout.addWidget(self.user_label)

        self.user_edit = QPlainTextEdit(self.prompt_group)
        self.user_edit.setObjectName(u"user_edit")
        self.user_edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.user_edit.setMinimumSize(QSize(0, 160))

        self.prompt_layout.addWidget(self.user_edit)

        self.extraction_label = QLabel(self.prompt_group)
        self.extraction_label.setObjectName(u"extraction_label")

        self.prompt_layout.addWidget(self.extraction_label)

        self.extraction_text = QPlainTextEdit(self.prompt_group)
        self.extraction_text.setObjectName(u"extraction_text")
        self.extraction_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.extraction_text.setMinimumSize(QSize(0, 60))
        self.extraction_text.setReadOnly(True)

        self.prompt_layout.addWidget(self.extraction_text)

        self.edited_row = QHBoxLayout()
        self.edited_row.setObjectName(u"edited_row")
        self.edited_label = QLabel(self.prompt_group)
        self.edited_label.setObjectName(u"edited_label")
        self.edited_label.setWordWrap(True)
        self.edited_label.setTextFormat(Qt.TextFormat.PlainText)
        font = QFont()
        font.setBold(True)
        self.edited_label.setFont(font)

        self.edited_row.addWidget(self.edited_label)

        self.reset_button = QPushButton(self.prompt_group)
        self.reset_button.setObjectName(u"reset_button")

        self.edited_row.addWidget(self.reset_button)

        self.edited_row.setStretch(0, 1)

        self.prompt_layout.addLayout(self.edited_row)

        self.prompt_layout.setStretch(3, 1)
        self.prompt_layout.setStretch(5, 2)
        self.prompt_layout.setStretch(7, 1)

        self.columns.addWidget(self.prompt_group)

        self.columns.setStretch(0, 2)
        self.columns.setStretch(1, 3)

        self.dialog_layout.addLayout(self.columns)

        self.estimate_label = QLabel(JudgeDialog)
        self.estimate_label.setObjectName(u"estimate_label")
        self.estimate_label.setWordWrap(True)
        self.estimate_label.setTextFormat(Qt.TextFormat.PlainText)

        self.dialog_layout.addWidget(self.estimate_label)

        self.progress_bar = QProgressBar(JudgeDialog)
        self.progress_bar.setObjectName(u"progress_bar")
        self.progress_bar.setMaximum(1)
        self.progress_bar.setValue(0)

        self.dialog_layout.addWidget(self.progress_bar)

        self.status_label = QLabel(JudgeDialog)
        self.status_label.setObjectName(u"status_label")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)

        self.dialog_layout.addWidget(self.status_label)

        self.buttons = QDialogButtonBox(JudgeDialog)
        self.buttons.setObjectName(u"buttons")
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.Close)

        self.dialog_layout.addWidget(self.buttons)

        self.dialog_layout.setStretch(0, 1)
#if QT_CONFIG(shortcut)
        self.base_url_label.setBuddy(self.base_url_edit)
        self.model_label.setBuddy(self.model_combo)
        self.price_label.setBuddy(self.price_edit)
        self.items_label.setBuddy(self.items_edit)
        self.anchor_label.setBuddy(self.anchor_edit)
        self.limit_label.setBuddy(self.limit_spin)
        self.concurrency_label.setBuddy(self.concurrency_spin)
        self.max_cost_label.setBuddy(self.max_cost_spin)
        self.max_requests_label.setBuddy(self.max_requests_spin)
        self.system_label.setBuddy(self.system_edit)
        self.user_label.setBuddy(self.user_edit)
#endif // QT_CONFIG(shortcut)

        self.retranslateUi(JudgeDialog)

        QMetaObject.connectSlotsByName(JudgeDialog)
    # setupUi

    def retranslateUi(self, JudgeDialog):
        JudgeDialog.setWindowTitle(QCoreApplication.translate("JudgeDialog", u"Run LLM judge", None))
        self.endpoint_group.setTitle(QCoreApplication.translate("JudgeDialog", u"Judge", None))
        self.base_url_label.setText(QCoreApplication.translate("JudgeDialog", u"Endpoint (base URL):", None))
        self.model_label.setText(QCoreApplication.translate("JudgeDialog", u"Model:", None))
        self.price_label.setText(QCoreApplication.translate("JudgeDialog", u"Price:", None))
        self.price_edit.setPlaceholderText(QCoreApplication.translate("JudgeDialog", u"built in, or IN,OUT $ per million tokens", None))
#if QT_CONFIG(tooltip)
        self.price_edit.setToolTip(QCoreApplication.translate("JudgeDialog", u"The judge model's price in dollars per million input and output tokens, like 2.5,10 (0,0 for a local model). Common OpenAI models' prices are built in.", None))
#endif // QT_CONFIG(tooltip)
        self.what_group.setTitle(QCoreApplication.translate("JudgeDialog", u"What is judged", None))
        self.models_radio.setText(QCoreApplication.translate("JudgeDialog", u"Models", None))
        self.models_edit.setPlaceholderText(QCoreApplication.translate("JudgeDialog", u"A,B,\u2026  (empty: every model)", None))
#if QT_CONFIG(tooltip)
        self.models_edit.setToolTip(QCoreApplication.translate("JudgeDialog", u"Comma-separated model names; 'reference' names the reference answer. Empty: every model that answered the items.", None))
#endif // QT_CONFIG(tooltip)
        self.items_label.setText(QCoreApplication.translate("JudgeDialog", u"Items:", None))
        self.items_edit.setText(QCoreApplication.translate("JudgeDialog", u"all", None))
#if QT_CONFIG(tooltip)
        self.items_edit.setToolTip(QCoreApplication.translate("JudgeDialog", u"'all', a source name, or comma-separated item ids", None))
#endif // QT_CONFIG(tooltip)
        self.anchor_label.setText(QCoreApplication.translate("JudgeDialog", u"Anchor:", None))
        self.anchor_edit.setPlaceholderText(QCoreApplication.translate("JudgeDialog", u"optional: compare every model with it", None))
        self.campaign_radio.setText(QCoreApplication.translate("JudgeDialog", u"The pairs of campaign", None))
        self.campaign_edit.setPlaceholderText(QCoreApplication.translate("JudgeDialog", u"campaign name", None))
        self.limits_group.setTitle(QCoreApplication.translate("JudgeDialog", u"Limits", None))
        self.limit_label.setText(QCoreApplication.translate("JudgeDialog", u"Comparisons:", None))
        self.limit_spin.setSpecialValueText(QCoreApplication.translate("JudgeDialog", u"no limit", None))
        self.concurrency_label.setText(QCoreApplication.translate("JudgeDialog", u"Requests at once:", None))
        self.swap_check.setText(QCoreApplication.translate("JudgeDialog", u"Judge every pair in both orders", None))
        self.max_cost_label.setText(QCoreApplication.translate("JudgeDialog", u"Stop before cost:", None))
        self.max_cost_spin.setSpecialValueText(QCoreApplication.translate("JudgeDialog", u"no limit", None))
        self.max_cost_spin.setPrefix(QCoreApplication.translate("JudgeDialog", u"$", None))
#if QT_CONFIG(tooltip)
        self.max_cost_spin.setToolTip(QCoreApplication.translate("JudgeDialog", u"The run stops before exceeding it; applies when the model's price is known.", None))
#endif // QT_CONFIG(tooltip)
        self.max_requests_label.setText(QCoreApplication.translate("JudgeDialog", u"Stop after requests:", None))
        self.max_requests_spin.setSpecialValueText(QCoreApplication.translate("JudgeDialog", u"no limit", None))
        self.text_only_check.setText(QCoreApplication.translate("JudgeDialog", u"Judge items whose images are missing on text alone", None))
#if QT_CONFIG(tooltip)
        self.text_only_check.setToolTip(QCoreApplication.translate("JudgeDialog", u"An image-based template refuses items without their images unless this is ticked.", None))
#endif // QT_CONFIG(tooltip)
        self.prompt_group.setTitle(QCoreApplication.translate("JudgeDialog", u"Prompt template", None))
        self.system_label.setText(QCoreApplication.translate("JudgeDialog", u"System:", None))
        self.user_label.setText(QCoreApplication.translate("JudgeDialog", u"User:", None))
        self.extraction_label.setText(QCoreApplication.translate("JudgeDialog", u"Answer-extraction follow-up (not editable):", None))
        self.reset_button.setText(QCoreApplication.translate("JudgeDialog", u"Reset to the plugin's text", None))
        self.estimate_label.setText(QCoreApplication.translate("JudgeDialog", u"Estimate the run to see what it will send and cost.", None))
    # retranslateUi

