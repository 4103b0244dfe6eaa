"""The selection every panel follows: the current item and the current pair of models.

One instance per main window. The item list, the item view and (in later parts) the
leaderboard, graph and agreement panels read it and set it; none of them talks to another
directly, so a panel added later only has to follow this object.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal


class LinkedSelection(QObject):
    """Holds the current item id and model pair; emits a signal only when a value changes."""

    itemChanged = Signal(object)  # int | None
    modelPairChanged = Signal(object)  # tuple[str, str] | None

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._item_id: int | None = None
        self._model_pair: tuple[str, str] | None = None

    @property
    def item_id(self) -> int | None:
        return self._item_id

    @property
    def model_pair(self) -> tuple[str, str] | None:
        return self._model_pair

    def set_item(self, item_id: int | None) -> None:
        if item_id != self._item_id:
            self._item_id = item_id
            self.itemChanged.emit(item_id)

    def set_model_pair(self, pair: tuple[str, str] | None) -> None:
        if pair is not None:
            pair = (pair[0], pair[1])
        if pair != self._model_pair:
            self._model_pair = pair
            self.modelPairChanged.emit(pair)
