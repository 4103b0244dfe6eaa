# -*- coding: utf-8 -*-

################################################################################
## Form generated from reading UI file 'image_viewer.ui'
##
## Created by: Qt User Interface Compiler version 6.12.0
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
from PySide6.QtWidgets import (QApplication, QDialog, QHBoxLayout, QLabel,
    QPushButton, QSizePolicy, QSpacerItem, QVBoxLayout,
    QWidget)

from workbench.gui.zoomable_image_view import ZoomableImageView

class Ui_ImageViewer(object):
    def setupUi(self, ImageViewer):
        if not ImageViewer.objectName():
            ImageViewer.setObjectName(u"ImageViewer")
        ImageViewer.resize(900, 700)
        self.viewerLayout = QVBoxLayout(ImageViewer)
        self.viewerLayout.setObjectName(u"viewerLayout")
        self.toolLayout = QHBoxLayout()
        self.toolLayout.setObjectName(u"toolLayout")
        self.fitButton = QPushButton(ImageViewer)
        self.fitButton.setObjectName(u"fitButton")

        self.toolLayout.addWidget(self.fitButton)

        self.actualSizeButton = QPushButton(ImageViewer)
        self.actualSizeButton.setObjectName(u"actualSizeButton")

        self.toolLayout.addWidget(self.actualSizeButton)

        self.zoomInButton = QPushButton(ImageViewer)
        self.zoomInButton.setObjectName(u"zoomInButton")

        self.toolLayout.addWidget(self.zoomInButton)

        self.zoomOutButton = QPushButton(ImageViewer)
        self.zoomOutButton.setObjectName(u"zoomOutButton")

        self.toolLayout.addWidget(self.zoomOutButton)

        self.previousButton = QPushButton(ImageViewer)
        self.previousButton.setObjectName(u"previousButton")

        self.toolLayout.addWidget(self.previousButton)

        self.nextButton = QPushButton(ImageViewer)
        self.nextButton.setObjectName(u"nextButton")

        self.toolLayout.addWidget(self.nextButton)

        self.toolSpacer = QSpacerItem(0, 0, QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)

        self.toolLayout.addItem(self.toolSpacer)

        self.infoLabel = QLabel(ImageViewer)
        self.infoLabel.setObjectName(u"infoLabel")
        self.infoLabel.setTextFormat(Qt.TextFormat.PlainText)

        self.toolLayout.addWidget(self.infoLabel)


        self.viewerLayout.addLayout(self.toolLayout)

        self.imageView = ZoomableImageView(ImageViewer)
        self.imageView.setObjectName(u"imageView")

        self.viewerLayout.addWidget(self.imageView)


        self.retranslateUi(ImageViewer)

        QMetaObject.connectSlotsByName(ImageViewer)
    # setupUi

    def retranslateUi(self, ImageViewer):
        ImageViewer.setWindowTitle(QCoreApplication.translate("ImageViewer", u"Image", None))
        self.fitButton.setText(QCoreApplication.translate("ImageViewer", u"&Fit", None))
#if QT_CONFIG(tooltip)
        self.fitButton.setToolTip(QCoreApplication.translate("ImageViewer", u"Fit the image to the window (F)", None))
#endif // QT_CONFIG(tooltip)
        self.actualSizeButton.setText(QCoreApplication.translate("ImageViewer", u"&Actual size", None))
#if QT_CONFIG(tooltip)
        self.actualSizeButton.setToolTip(QCoreApplication.translate("ImageViewer", u"One image pixel per screen pixel (1)", None))
#endif // QT_CONFIG(tooltip)
        self.zoomInButton.setText(QCoreApplication.translate("ImageViewer", u"Zoom &in", None))
#if QT_CONFIG(tooltip)
        self.zoomInButton.setToolTip(QCoreApplication.translate("ImageViewer", u"Zoom in (+ or the mouse wheel)", None))
#endif // QT_CONFIG(tooltip)
        self.zoomOutButton.setText(QCoreApplication.translate("ImageViewer", u"Zoom &out", None))
#if QT_CONFIG(tooltip)
        self.zoomOutButton.setToolTip(QCoreApplication.translate("ImageViewer", u"Zoom out (- or the mouse wheel)", None))
#endif // QT_CONFIG(tooltip)
        self.previousButton.setText(QCoreApplication.translate("ImageViewer", u"< &Previous", None))
#if QT_CONFIG(tooltip)
        self.previousButton.setToolTip(QCoreApplication.translate("ImageViewer", u"The task's previous image (Page Up)", None))
#endif // QT_CONFIG(tooltip)
        self.nextButton.setText(QCoreApplication.translate("ImageViewer", u"&Next >", None))
#if QT_CONFIG(tooltip)
        self.nextButton.setToolTip(QCoreApplication.translate("ImageViewer", u"The task's next image (Page Down)", None))
#endif // QT_CONFIG(tooltip)
    # retranslateUi

