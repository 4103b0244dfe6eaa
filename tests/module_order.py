"""The order in which the pytest-xdist workers get the test files: costliest first.

scripts/test hands out whole files (``--dist loadfile``). pytest-xdist's own order is by number of
tests, most first, so the files of one or two tests come last, and some of them are the suite's
costliest (a child process opening the app, a whole-release import, a bootstrap on real data):
one worker then runs such a file alone at the end while the other has nothing left. Given the
files costliest first (longest processing time first), what is left at the end is small, and the
two workers end close together. scripts/test passes ``--no-loadscope-reorder`` so that
pytest-xdist keeps this order.

A file's cost is its CPU seconds (user + system, the test process and its children) as
``bench/pytest_cpu_by_module.py`` measured it, for the files that cost the most; any other file is
estimated from its number of tests. Only the order changes, never what runs: the figures need no
precision, and a stale one only makes the end of a run less even.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

#: CPU seconds of the costliest test files, measured one folder or file at a time in one process
#: with ``bench/pytest_cpu_by_module.py`` (docs/PERFORMANCE.md, "The test suite's time")
MEASURED_CPU_SECONDS: dict[str, float] = {
    # tests/gui
    "tests/gui/test_panels_benchmark.py": 74.7,
    "tests/gui/test_panels_leaderboard.py": 50.9,
    "tests/gui/test_analysis_page_room.py": 37.6,
    "tests/gui/test_bundle_shapes.py": 35.4,
    "tests/gui/test_panel_pages.py": 31.1,
    "tests/gui/test_panels_failures.py": 23.5,
    # tests/services
    "tests/services/test_report_commands.py": 58.4,
    "tests/services/test_report.py": 20.8,
    "tests/services/test_agreement_sides.py": 20.0,
    "tests/services/test_judgment_cache.py": 19.1,
    "tests/services/test_simulated_left_out.py": 16.9,
    "tests/services/test_report_html.py": 10.9,
    "tests/services/test_quick_leaderboard.py": 10.2,
    "tests/services/test_sync.py": 14.2,
    "tests/services/test_campaigns_packs.py": 10.9,
    # the campaign modules measured on a loaded machine (load 9-15), scaled by 0.55: the ratio
    # of the idle figures above to the loaded ones of test_sync.py and test_campaigns_packs.py
    "tests/services/test_adaptive_campaigns.py": 25.9,
    "tests/services/test_campaigns_voting.py": 10.1,
    "tests/services/test_campaigns.py": 3.2,
    "tests/services/test_practice.py": 2.8,
    # tests/stats and tests/storage
    "tests/storage/test_judgment_counts.py": 28.3,
    "tests/storage/test_counters.py": 21.6,
    "tests/stats/test_stats_commands.py": 18.9,
    "tests/stats/test_contradictions.py": 16.9,
    "tests/storage/test_fast_read.py": 15.0,
    "tests/storage/test_judgments.py": 5.2,
    # tests/export
    "tests/export/test_streaming.py": 30.1,
    # tests/cli
    "tests/cli/test_start_up_imports.py": 17.3,
    "tests/cli/test_bundle_locations.py": 20.1,
    "tests/cli/test_server_cli.py": 13.3,
    # tests/judge
    "tests/judge/test_concurrent_runs.py": 15.4,
    "tests/judge/test_real_data.py": 11.8,
    "tests/judge/test_runner.py": 9.0,
    # tests/plugins
    "tests/plugins/test_external_plugin.py": 11.4,
    "tests/plugins/arena/test_arena_categories.py": 9.0,
    "tests/plugins/chirp/test_chirp_question_categories.py": 6.8,
    "tests/plugins/arena/test_arena_wildvision.py": 8.4,
    # files of one or two tests (xdist's own order put them last)
    "tests/reliability/test_stress_small.py": 19.8,
    "tests/gui/test_panel_computations_cache.py": 11.4,
    "tests/services/test_campaigns_missing_images.py": 9.5,
    "tests/test_import_all_shared_data.py": 8.9,
    "tests/services/test_campaigns_durability.py": 8.4,
    "tests/gui/test_open_reads_kept_counts.py": 7.6,
    "tests/services/test_annotator_load.py": 7.4,
    "tests/export/test_arena.py": 6.0,
    "tests/plugins/visit_bench/test_visit_bench_end_to_end.py": 5.7,
    "tests/services/test_judgment_coordinates.py": 4.8,
}
#: the estimate for a file not measured above, per test (the suite's median file is cheap)
SECONDS_PER_TEST = 0.3


class _Item(Protocol):
    @property
    def nodeid(self) -> str: ...


_Collected = TypeVar("_Collected", bound=_Item)


def file_of(item: _Item) -> str:
    return item.nodeid.split("::", 1)[0]


def costliest_files_first(items: Sequence[_Collected]) -> list[_Collected]:
    """``items`` with whole files in order of cost, costliest first; within a file, and between
    files of equal cost, the order is kept."""
    tests: dict[str, int] = {}
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        name = file_of(item)
        tests[name] = tests.get(name, 0) + 1
        first.setdefault(name, index)

    def cost(name: str) -> float:
        return MEASURED_CPU_SECONDS.get(name, tests[name] * SECONDS_PER_TEST)

    return sorted(items, key=lambda item: (-cost(file_of(item)), first[file_of(item)]))
