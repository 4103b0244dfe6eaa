"""The linked selection every panel follows: the current item and the current pair of models.

One instance per main window. The item list, the item view, the leaderboard, the graph and the
agreement panel read it and set it; none of them talks to another directly, so a panel added
later only has to follow this object. Choosing two models in the leaderboard sets the pair: the
item list keeps the items where they were compared, the item view shows their answers side by
side, the graph selects their edge and the agreement panel their matchup.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal


class LinkedSelection(QObject):
    """Holds the current item id, model pair and single model (at most one of the two is
    set: :meth:`choose_models`); emits a signal only when a value changes.

    While :attr:`blind` (annotator mode), no model can be chosen: a choice names models, and
    nothing the annotator sees may be narrowed or ordered by model identity."""

    itemChanged = Signal(object)  # int | None
    modelPairChanged = Signal(object)  # tuple[str, str] | None
    modelChanged = Signal(object)  # str | None

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._item_id: int | None = None
        self._model_pair: tuple[str, str] | None = None
        self._model: str | None = None
        self._blind = False

    @property
    def item_id(self) -> int | None:
        return self._item_id

    @property
    def model_pair(self) -> tuple[str, str] | None:
        return self._model_pair

    @property
    def model(self) -> str | None:
        """One model chosen on its own (the leaderboard's single selected row)."""
        return self._model

    @property
    def blind(self) -> bool:
        return self._blind

    def set_blind(self, blind: bool) -> None:
        """Enter (clearing the chosen models) or leave annotator mode's blindness."""
        if blind:
            self.choose_models(())
        self._blind = blind

    def choose_models(self, models: tuple[str, ...]) -> None:
        """Two models are the pair, one is the model, anything else chooses none; the other
        choice is cleared first, so followers never see both."""
        if len(models) == 2:
            self._set_model(None)
            self.set_model_pair((models[0], models[1]))
        elif len(models) == 1:
            self.set_model_pair(None)
            self._set_model(models[0])
        else:
            self.set_model_pair(None)
            self._set_model(None)

    def _set_model(self, model: str | None) -> None:
        if model is not None and self._blind:
            return
        if model != self._model:
            self._model = model
            self.modelChanged.emit(model)

    def set_item(self, item_id: int | None) -> None:
        if item_id != self._item_id:
            self._item_id = item_id
            self.itemChanged.emit(item_id)

    def set_model_pair(self, pair: tuple[str, str] | None) -> None:
        if pair is not None:
            if self._blind:
                return
            pair = (pair[0], pair[1])
        if pair != self._model_pair:
            self._model_pair = pair
            self.modelPairChanged.emit(pair)
