"""ConvBench's ``pairwise.npy``: the side the model's answers take in each pairwise comparison
with the reference, as the benchmark fixed it for reproducible evaluation.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from workbench.errors import WorkbenchError

PAIRWISE_FILE_NAME = "pairwise.npy"

#: Item metadata key holding the side, 0 or 1, the model's answers take in ConvBench's pairwise
#: evaluation of that conversation (ConvEval judges the model's whole conversation against the
#: reference conversation, anonymised as Assistant A and Assistant B):
#:
#: - 0: the model's answers are Assistant A (shown first) and the references Assistant B;
#: - 1: the references are Assistant A and the model's answers Assistant B.
#:
#: ConvBench's own evaluation script (ConvBenchEval/convbencheval.py) reads the value for the
#: i-th row of ConvBench.xlsx as ``pairwise[i]`` and assigns sides exactly this way. A judge run
#: that reproduces the published protocol places the two sides by this value.
PAIRWISE_SIDE_KEY = "pairwise_model_side"

MODEL_IS_A = 0
MODEL_IS_B = 1


class PairwiseFileError(WorkbenchError):
    """``pairwise.npy`` cannot be used; the message says why."""


def load_pairwise_sides(path: Path) -> list[int]:
    """The sides stored in ``path``, one per conversation row, each 0 or 1.

    Raises :class:`PairwiseFileError` when the file is not a 1-D integer array of 0s and 1s.
    """
    import numpy as np  # here: the judge templates import this module for its key alone

    try:
        # allow_pickle=False: a pickled .npy could run arbitrary code when loaded. mmap_mode:
        # a damaged header claiming a huge shape then fails on the file's size instead of
        # asking for terabytes of memory.
        array = np.load(path, allow_pickle=False, mmap_mode="r")
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, MemoryError) as error:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise PairwiseFileError(f"not a readable .npy array: {detail}") from error
    if not isinstance(array, np.ndarray):
        array.close()  # an .npz archive, which np.load opens lazily
        raise PairwiseFileError("must hold one array (.npy), not an .npz archive")
    if array.ndim != 1:
        raise PairwiseFileError(f"must hold a 1-D array, not one of shape {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise PairwiseFileError(f"must hold integers 0 or 1, not values of type {array.dtype}")
    bad = np.flatnonzero((array != MODEL_IS_A) & (array != MODEL_IS_B))
    if bad.size:
        first = int(bad[0])
        raise PairwiseFileError(
            f"must hold only 0 or 1; {bad.size} value(s) are not, "
            f"the first at index {first} ({int(array[first])})"
        )
    return [int(side) for side in array]
