"""The analysis panels' computations as picklable functions, run in the panel worker process
(:mod:`workbench.gui.panel_process`): each takes a :class:`BundleRef` and the panel's switches,
opens the bundle there (once, kept until another is asked for), and returns a compact result.

Qt-free, and importing nothing heavy at module level: the worker imports this module to unpickle
a computation, and the GUI process imports it to build computations, before either needs pandas
or matplotlib. Each computation also runs unchanged on a thread (tests, or a runner without a
process)."""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from workbench.errors import WorkbenchError
from workbench.gui import tweaks

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from workbench.services.analysis import (
        AgreementResult,
        AnalysisChoices,
        CycleRow,
        FailureCases,
        LeaderboardRequest,
        LeaderboardResult,
        ScoresResult,
    )
    from workbench.services.analysis_request import AnalysisRequest
    from workbench.services.battle_tally import BattleTally
    from workbench.services.judgment_cache import JudgmentCache
    from workbench.services.rank_comparison import RankingComparisonResult
    from workbench.storage import Bundle

#: a picklable function that builds a matplotlib figure (a module-level function, or a partial
#: of one over picklable arguments)
FigureRecipe = Callable[[], "Figure"]


class PanelComputationError(Exception):
    """A computation failed in the worker with an error that is not the user's to fix; the message
    carries the worker's traceback, since the original exception may not survive pickling."""


@dataclass(frozen=True)
class BundleRef:
    """What a worker needs to open the GUI's bundle: its ``location`` (a path, or a server URL
    with its password, which never leaves the machine: it goes down the worker's pipe) and a
    ``token`` unique to the GUI's open :class:`Bundle`, so a bundle closed and opened again
    (restored, replaced) is opened afresh in the worker rather than read through a stale
    handle."""

    location: str
    token: int


_tokens = itertools.count(1)
_refs: weakref.WeakKeyDictionary[Bundle, BundleRef] = weakref.WeakKeyDictionary()


def bundle_ref(bundle: Bundle) -> BundleRef:
    """The reference of the GUI's ``bundle`` (the same object gets the same reference)."""
    ref = _refs.get(bundle)
    if ref is None:
        location = (
            str(bundle.path)
            if bundle.path is not None
            else bundle.engine.url.render_as_string(hide_password=False)
        )
        ref = _refs[bundle] = BundleRef(location, next(_tokens))
    return ref


class _Opened:
    """The bundle the worker has open, with the leaderboard's kept battle counts for it and the
    other panels' kept judgments (read again only when a new bundle is opened)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ref: BundleRef | None = None
        self.bundle: Bundle | None = None
        self.tally: BattleTally | None = None
        self.judgments: JudgmentCache | None = None

    def cache(self) -> JudgmentCache:
        with self.lock:
            if self.judgments is None:
                # start-up: the panel process loads the services it computes with, not the GUI
                from workbench.services.judgment_cache import JudgmentCache

                self.judgments = JudgmentCache()
            return self.judgments

    def get(self, ref: BundleRef) -> Bundle:
        with self.lock:
            if self.ref != ref or self.bundle is None:
                self._close()
                # start-up: the panel process loads the services it computes with, not the GUI
                from workbench.storage import Bundle

                # read-only: the GUI process is the one writer, and has migrated it already
                self.bundle = Bundle.open(ref.location, migrate=False, read_only=True)
                self.ref = ref
            return self.bundle

    def _close(self) -> None:
        if self.bundle is not None:
            self.bundle.close()
        self.ref = self.bundle = self.tally = None
        self.judgments = None

    def close(self) -> None:
        with self.lock:
            self._close()


_opened = _Opened()


_Result = TypeVar("_Result")


def _guarded(function: Callable[..., _Result], *args: Any) -> _Result:
    """Call ``function``; an error comes back as one that pickles: a :class:`WorkbenchError`
    with its message (the user can act on it), anything else as :class:`PanelComputationError`
    with the worker's traceback (logged by the panel)."""
    try:
        return function(*args)
    except WorkbenchError as error:
        raise WorkbenchError(str(error)) from None
    except Exception as error:
        raise PanelComputationError(
            f"{type(error).__name__}: {error}\n\nIn the panel worker:\n{traceback.format_exc()}"
        ) from None


# --- lifecycle ------------------------------------------------------------------------------


#: how much the worker lowers its scheduling priority (Unix ``nice``)
WORKER_NICENESS = 5


def start_worker() -> None:
    """The worker's first act: yield the CPU to the app. On two busy cores the scheduler
    otherwise shares them evenly, and the GUI thread waits behind a bootstrap for its turn;
    the app's work is the one the user is watching.

    On Linux the scheduler first shares the CPU between sessions ("autogroups"), and a nice
    value only counts inside one: in the app's session the workers' bootstraps spent the
    session's share, and the GUI thread then waited up to 141 ms for a core at 1,000,000 votes.
    So the worker starts a session of its own (it also no longer gets the terminal's Ctrl-C:
    the app stops it) and lowers that session's weight as well as its own."""
    _exit_with_the_app()
    if not tweaks.enabled(tweaks.NICE_PANEL_WORKER):
        return
    # where it is not allowed, the worker runs at the app's priority
    if hasattr(os, "setsid"):
        with contextlib.suppress(OSError):
            os.setsid()
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(WORKER_NICENESS)
    with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as autogroup:
        autogroup.write(str(WORKER_NICENESS))


def _exit_with_the_app() -> None:
    """End the worker when the app's process ends, however it ends: a pool's worker waits for
    its next computation forever, and an app killed (or crashed) never tells it to stop."""
    # start-up: the process machinery loads with the first panel process
    import multiprocessing
    import multiprocessing.connection

    app = multiprocessing.parent_process()
    if app is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([app.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-the-app", daemon=True).start()


def warm_up() -> int:
    """Import the statistics, plotting and graph stacks, so the first computation does not pay for
    them; returns the worker's process id."""
    # start-up: the panel process preloads its plotting and analysis stacks, the GUI does not
    import matplotlib

    matplotlib.use("Agg")
    # start-up: the Agg canvas and networkx, once the backend is chosen, as above
    import matplotlib.backends.backend_agg
    import networkx  # noqa: F401

    import workbench.services.analysis
    import workbench.services.battle_tally
    import workbench.services.judgment_cache
    import workbench.stats.agreement_plots
    import workbench.stats.graph_plots
    import workbench.stats.plots  # noqa: F401

    return os.getpid()


def release() -> None:
    """Close the bundle the worker holds (the GUI is closing or replacing it)."""
    _opened.close()


@dataclass(frozen=True)
class JudgmentReads:
    """How the worker's kept judgments (the Agreement, Graph and Failures panels') were brought
    up to date since the bundle was opened there, and on how many items per-item results were
    computed (for tests and the bench)."""

    full_reads: int
    incremental_reads: int
    items_computed: int


def judgment_reads() -> JudgmentReads:
    cache = _opened.judgments
    if cache is None:
        return JudgmentReads(0, 0, 0)
    return JudgmentReads(cache.full_reads, cache.incremental_reads, cache.items_computed)


@dataclass(frozen=True)
class RenderedFigure:
    """RGBA pixels of a figure drawn at a given size in device pixels."""

    rgba: bytes
    width: int
    height: int


def render_figure(
    figure: Figure, width: int, height: int, pixel_ratio: float = 1.0
) -> RenderedFigure:
    """Draw ``figure`` at ``width`` x ``height`` logical pixels with the Agg backend, or taller
    when that is below the figure's legible height (its rows of labels would overlap: the view
    scrolls instead). Qt-free and safe on a worker thread as long as no other thread draws the
    same figure meanwhile."""
    # start-up: matplotlib loads in the panel process, never before the first paint
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from workbench.stats.plots import legible_height_inches, wrap_titles

    canvas = FigureCanvasAgg(figure)
    dpi = figure.get_dpi()
    height = max(height, round(legible_height_inches(figure) * dpi))
    figure.set_size_inches(max(width, 1) / dpi, max(height, 1) / dpi)
    # a high-density screen gets more pixels for the same inches, not a bigger figure
    figure.set_dpi(dpi * pixel_ratio)
    try:
        wrap_titles(figure)
        canvas.draw()
        rendered_width, rendered_height = (int(v) for v in canvas.get_width_height())
        buffer = canvas.buffer_rgba()
    finally:
        figure.set_dpi(dpi)
    return RenderedFigure(bytes(buffer), rendered_width, rendered_height)


# --- the panels' computations --------------------------------------------------------------


def read_choices(ref: BundleRef) -> AnalysisChoices:
    """The panels' pickers (models, categories, sides...) of the bundle."""
    # start-up: the analysis package loads in the panel process
    from workbench.services.analysis import analysis_choices

    return _guarded(lambda: analysis_choices(_opened.get(ref)))


@dataclass(frozen=True)
class LeaderboardOutcome:
    """A leaderboard result, and how the worker's kept battle counts were brought up to date
    (``full_reads``, ``incremental_reads``: zero when counts are not kept for the request)."""

    result: LeaderboardResult
    full_reads: int = 0
    incremental_reads: int = 0


def leaderboard(ref: BundleRef, request: LeaderboardRequest, keep_counts: bool) -> Any:
    """The leaderboard for ``request``. With ``keep_counts`` the worker keeps Bradley-Terry's
    battle counts between calls (for the same bundle and switches), so a refresh after a vote
    reads only the new judgments (services/battle_tally.py)."""

    def compute() -> LeaderboardOutcome:
        # start-up: the analysis package loads in the panel process
        from workbench.services.analysis import leaderboard as compute_leaderboard
        from workbench.services.analysis import resolved_request
        from workbench.services.battle_tally import BattleTally

        bundle = _opened.get(ref)
        tally = None
        if keep_counts and request.method == "bt" and not request.style_control:
            # the counts kept are those of the kind the request resolves to now
            filters = resolved_request(bundle, request).filters()
            tally = _opened.tally
            if tally is None or not tally.matches(filters, request.decisive_weight):
                tally = _opened.tally = BattleTally(filters, request.decisive_weight)
        result = compute_leaderboard(bundle, request, tally)
        if tally is None:
            return LeaderboardOutcome(result)
        return LeaderboardOutcome(result, tally.full_reads, tally.incremental_reads)

    return _guarded(compute)


def compare_rankings(
    ref: BundleRef,
    request_a: AnalysisRequest,
    other: str | None,
    request_b: AnalysisRequest,
) -> Any:
    """The Leaderboard panel's "Compare with...": the board of ``request_a`` on the open bundle
    against ``request_b`` on the same bundle (``other`` None) or on the bundle at ``other``,
    through the service ``workbench compare-rankings`` calls (this bundle named ``BUNDLE``)."""

    def compute() -> RankingComparisonResult:
        # start-up: the analysis package loads in the panel process
        from workbench.services.rank_comparison import (
            BUNDLE_WORD,
            bundle_ranking,
            compare,
            read_ranking,
        )

        bundle = _opened.get(ref)
        first = bundle_ranking(bundle, request_a, BUNDLE_WORD)
        second = (
            bundle_ranking(bundle, request_b, BUNDLE_WORD)
            if other is None
            else read_ranking(other, request_b)
        )
        return compare(first, second)

    return _guarded(compute)


# The figure recipes name functions of this module only, so unpickling a result in the GUI
# process never imports a plotting module there (on the executor's thread, holding the lock).


def forest_figure(result: LeaderboardResult) -> Figure:
    return result.forest_figure()


def heatmap_figure(result: LeaderboardResult) -> Figure:
    return result.heatmap_figure()


def graph_figure(graph: Any, title: str) -> Figure:
    # start-up: matplotlib and networkx load in the panel process
    from workbench.stats.graph_plots import contradiction_graph_figure

    return contradiction_graph_figure(graph, title)


def bars_figure(position_bias: pd.DataFrame) -> Figure:
    # start-up: matplotlib and scipy load in the panel process
    from workbench.stats.agreement_plots import position_bias_bars

    return position_bias_bars(position_bias)


def scatter_figure(
    ratings: pd.DataFrame, side_a: str, side_b: str, spearman: float, kendall: float
) -> Figure:
    # start-up: matplotlib and scipy load in the panel process
    from workbench.stats.agreement_plots import rating_scatter

    return rating_scatter(ratings, side_a, side_b, spearman, kendall)


def render(recipe: FigureRecipe, width: int, height: int, pixel_ratio: float) -> RenderedFigure:
    """Build the figure of ``recipe`` and draw it to pixels at the given size."""
    return _guarded(lambda: render_figure(recipe(), width, height, pixel_ratio))


def render_each(
    drawings: dict[str, tuple[FigureRecipe, tuple[int, int, float] | None]],
) -> dict[str, RenderedFigure | None]:
    """Several figures in one computation: each recipe drawn at its size, or not drawn (None:
    its view is hidden and draws when shown)."""

    def draw_all() -> dict[str, RenderedFigure | None]:
        return {
            name: None if size is None else render_figure(recipe(), *size)
            for name, (recipe, size) in drawings.items()
        }

    return _guarded(draw_all)


def cycles(ref: BundleRef, source: str, scope: str = "per-evaluator") -> list[CycleRow]:
    """The items with preference cycles under ``scope`` (``workbench contradictions
    --scope``)."""
    # start-up: the analysis package loads in the panel process
    from workbench.services.analysis import items_by_cycles

    return _guarded(lambda: items_by_cycles(_opened.get(ref), source, _opened.cache(), scope=scope))


@dataclass(frozen=True)
class GraphOutcome:
    """One preference graph: its edges (loser, winner, votes, consensus), their colours, and
    the recipe of its figure (which carries the graph, a few dozen nodes at most)."""

    colours: dict[tuple[str, str], str]
    edges: list[tuple[str, str, float, float]]
    figure: FigureRecipe


def preference_graph(
    ref: BundleRef, item_id: int | None, category: str | None, source: str, title: str
) -> GraphOutcome:
    """The graph of one item (``category`` None) or of a whole category."""

    def compute() -> GraphOutcome:
        # start-up: the analysis package and networkx load in the panel process
        from workbench.services.analysis import category_graph, item_graph
        from workbench.stats.graph_plots import edge_colours

        bundle, cache = _opened.get(ref), _opened.cache()
        if category is None:
            assert item_id is not None
            graph = item_graph(bundle, item_id, source, cache)
        else:
            graph = category_graph(bundle, category, source, cache)
        edges = [
            (loser, winner, data["votes"], data["consensus"])
            for loser, winner, data in sorted(graph.edges(data=True))
        ]
        return GraphOutcome(edge_colours(graph), edges, partial(graph_figure, graph, title))

    return _guarded(compute)


def edge_judgments(
    ref: BundleRef,
    edge: tuple[str, str],
    source: str,
    item_id: int | None,
    category: str | None,
) -> list[tuple[Any, ...]]:
    """The judgments behind one edge, as table rows."""
    # start-up: the analysis package loads in the panel process
    from workbench.services.analysis import edge_judgments as read_edge

    def compute() -> list[tuple[Any, ...]]:
        table: pd.DataFrame = read_edge(
            _opened.get(ref),
            edge,
            source,
            item_id=item_id,
            category=category,
            cache=_opened.cache(),
        )
        return list(table.itertuples(index=False, name=None))

    return _guarded(compute)


def failures(ref: BundleRef, kind: str, model: str | None) -> FailureCases:
    # start-up: the analysis package loads in the panel process
    from workbench.services.analysis import failure_cases

    return _guarded(lambda: failure_cases(_opened.get(ref), kind, model, _opened.cache()))


@dataclass(frozen=True)
class AgreementOutcome:
    """An agreement result with the recipes of its two figures (no scatter when no model is
    rated by both sides)."""

    result: AgreementResult
    bars: FigureRecipe
    scatter: FigureRecipe | None


def agreement(
    ref: BundleRef, side_a: str, side_b: str, convention: str = "majority"
) -> AgreementOutcome:
    """Side a against side b under ``convention`` (``workbench agreement --convention``)."""

    def compute() -> AgreementOutcome:
        # start-up: the analysis package loads in the panel process
        from workbench.services.analysis import agreement as compare

        result = compare(
            _opened.get(ref), side_a, side_b, cache=_opened.cache(), convention=convention
        )
        scatter = (
            partial(scatter_figure, result.ratings, side_a, side_b, result.spearman, result.kendall)
            if len(result.ratings)
            else None
        )
        return AgreementOutcome(result, partial(bars_figure, result.position_bias), scatter)

    return _guarded(compute)


@dataclass(frozen=True)
class BenchmarkPage:
    """The benchmarks with a page in the bundle, and the page of one of them: its tables (what
    ``workbench scores --json`` prints) and the recipes of its figures; ``result`` is None when
    the bundle holds no benchmark with scores of its own."""

    benchmarks: list[str]
    result: ScoresResult | None
    figures: dict[str, FigureRecipe]


def benchmark_figure(benchmark: str, name: str, tables: dict[str, pd.DataFrame]) -> Figure:
    """Figure ``name`` of ``benchmark``'s page, drawn by its score provider from its tables."""
    # start-up: the analysis package loads in the panel process
    from workbench.services.analysis import score_provider

    result: Figure = score_provider(benchmark).figures(tables)[name]
    return result


def benchmark_page(
    ref: BundleRef,
    benchmark: str | None,
    model_attributes: str | None = None,
    rounds: int | None = None,
) -> BenchmarkPage:
    """The page of ``benchmark`` (None: the first the bundle has) through the service
    ``workbench scores`` and the report call; with ``model_attributes`` (a CSV file) also the
    tables that need them (CHIRP's dCor and larger-model preference); ``rounds``: the bootstrap
    rounds of the boards read off the leaderboards (None: the default)."""

    def compute() -> BenchmarkPage:
        # start-up: the analysis package loads in the panel process
        from workbench.services.analysis import (
            benchmarks_with_scores,
            read_model_attributes,
            score_provider,
            scores,
        )
        from workbench.services.analysis_request import DEFAULT_BOOTSTRAP_ROUNDS, DEFAULT_SEED

        bundle = _opened.get(ref)
        available = benchmarks_with_scores(bundle)
        chosen = benchmark if benchmark in available else (available[0] if available else None)
        if chosen is None:
            return BenchmarkPage(available, None, {})
        provider = score_provider(chosen)
        attributes = None
        if model_attributes is not None and provider.with_attributes is not None:
            attributes = read_model_attributes(Path(model_attributes))
        result = scores(
            bundle,
            provider,
            model_attributes=attributes,
            attributes_file=model_attributes if attributes is not None else None,
            boards=(DEFAULT_BOOTSTRAP_ROUNDS if rounds is None else rounds, DEFAULT_SEED),
        )
        names = list(provider.figures(result.tables)) if provider.figures is not None else []
        recipes: dict[str, FigureRecipe] = {
            str(name): partial(benchmark_figure, chosen, str(name), result.tables) for name in names
        }
        return BenchmarkPage(available, result, recipes)

    return _guarded(compute)
