"""Judge runs against the fake server: the issue's acceptance (200 pairs in both orders at
concurrency 16 through faults; malformed verdicts extracted or stored as flagged ties; cancel
halfway and resume only the rest), provenance, position flips, the cache and the budget."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from workbench_visit_bench.judge_templates import REFERENCE_FREE

from tests.judge.fake_openai_server import FakeOpenAIServer, Faults, message_text, stable_share
from tests.judge.helpers import build_bundle
from tests.judge.judging import QUICK_RETRY, judge, settings_for
from tests.patience import HANG_GUARD_SECONDS
from workbench.judge.client import Budget, EndpointError
from workbench.services.judging.worklist import JudgeScope
from workbench.services.outcomes import OutcomeFilter, judgments_frame
from workbench.storage import Bundle


def rows(bundle: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(bundle) as connection:
        return connection.execute(sql).fetchall()


def visit_judge(messages: list[dict[str, Any]]) -> str:
    """Judges by a hash of the prompt; answers an extraction follow-up with A, B or Unknown,
    also by a hash, so both follow-up outcomes occur."""
    system, user = message_text(messages, "system"), message_text(messages, "user")
    share = stable_share(user)
    if "report the decision" in system:
        return "Unknown" if share < 0.4 else "A" if share < 0.7 else "B"
    winner = "A" if share < 0.5 else "B"
    return (
        f"Response {winner} follows the description better.\nOverall, Response {winner} is better."
    )


@pytest.fixture(scope="module")
def two_hundred_items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(tmp_path_factory.mktemp("two-hundred"), 200)


@pytest.fixture
def bundle_copy(two_hundred_items: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy.wbb"
    copy.write_bytes(two_hundred_items.read_bytes())
    return copy


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(responder=visit_judge) as running:
        yield running


def test_two_hundred_pairs_in_both_orders_through_faults(
    bundle_copy: Path, server: FakeOpenAIServer
) -> None:
    server.faults = Faults(
        latency=0.01,
        rate_limit_every=37,
        retry_after_ms=30,
        server_error_every=41,
        hang_every=97,
        hang_seconds=HANG_GUARD_SECONDS,  # far past the attempt's timeout: always one
        malformed_share=0.08,
        empty_share=0.02,
    )
    # a short timeout for the hung requests; an answer slowed by a busy machine past it is
    # only one more retry, which the assertions below allow
    settings = settings_for(
        server, REFERENCE_FREE, concurrency=16, retry=replace(QUICK_RETRY, timeout=1.0)
    )
    plan, summary = judge(bundle_copy, settings, REFERENCE_FREE)

    assert plan.comparisons == 200 and plan.total_units == 400
    assert summary.status == "completed"
    progress = summary.progress
    assert progress.done == 400 and progress.failed == 0
    stored = rows(
        bundle_copy,
        "SELECT request_hash, model_a_id, model_b_id, outcome, label, "
        "error, raw_text, json_extract(metadata, '$.unparsed') FROM judge_verdicts",
    )
    assert len(stored) == 400
    assert len({(h, a, b) for h, a, b, *_ in stored}) == 400
    # every kind of fault happened and was retried
    statuses = server.stats.statuses
    assert statuses[429] > 0 and statuses[500] > 0
    assert progress.retries >= statuses[429] + statuses[500] + 1  # + at least one timeout
    # malformed and empty verdicts: resolved by the follow-up, or flagged ties
    unreadable = [r for r in stored if "Overall, Response" not in r[6]]
    extracted = [r for r in stored if r[4] and r[4].endswith("(extracted)")]
    flagged = [r for r in stored if r[4] == "unknown"]
    assert progress.parse_failures == len(unreadable) > 0
    assert progress.extracted == len(extracted) > 0
    assert progress.unresolved == len(flagged) > 0
    assert len(extracted) + len(flagged) == len(unreadable)
    # an unreadable answer is a tie, as VisIT-Bench counts "Unknown", flagged with its reason
    assert all(r[3] == "tie" and r[5] is None and r[7] for r in flagged)
    assert all(r[3] in ("a", "b") and r[5] is None and r[7] is None for r in extracted)
    # every verdict is a judgment of the read model, the flagged ties with them
    with Bundle.open(bundle_copy) as bundle, bundle.read_session() as session:
        read = judgments_frame(session, OutcomeFilter(kinds=("judge",)), pairwise=True)
    assert len(read) == 400
    assert int(read["unparsed"].sum()) == len(flagged)
    # provenance on the run
    ((template_name, version, model, status, parameters),) = rows(
        bundle_copy,
        "SELECT template_name, template_version, judge_model, status, parameters FROM judge_runs",
    )
    assert (template_name, version, model, status) == (
        "visit-bench-pairwise",
        "1",
        "gpt-4o-mini",
        "completed",
    )
    assert '"temperature": 0.0' in parameters


def test_concurrency_sixteen_keeps_sixteen_requests_in_flight(
    bundle_copy: Path, server: FakeOpenAIServer
) -> None:
    # the server holds the first requests until sixteen are in flight at once, then answers:
    # a run that kept fewer going would get 503s after the hold's ceiling, and retry
    server.faults = Faults(hold_until_in_flight=16)
    # QUICK_RETRY's timeout is above the hold's ceiling, so a held request is never retried
    settings = settings_for(server, REFERENCE_FREE, concurrency=16, selection=JudgeScope(limit=50))
    _, summary = judge(bundle_copy, settings, REFERENCE_FREE)
    assert server.stats.statuses == {200: 100}
    assert summary.progress.retries == 0 and summary.progress.verdicts == 100
    assert server.stats.max_in_flight == 16  # never more than asked for


def test_cancel_halfway_then_resume_judges_only_the_rest(
    bundle_copy: Path, server: FakeOpenAIServer
) -> None:
    server.faults = Faults(latency=0.02)
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=100))
    _, first = judge(bundle_copy, settings, REFERENCE_FREE, cancel_after=90)
    assert first.status == "cancelled"
    stored = rows(bundle_copy, "SELECT count(*) FROM judge_verdicts")[0][0]
    assert 90 <= stored < 200
    assert rows(bundle_copy, "SELECT status FROM judge_runs") == [("cancelled",)]

    server.reset_stats()
    plan, second = judge(bundle_copy, settings, REFERENCE_FREE)
    assert plan.run_exists and plan.already_judged == stored
    assert len(plan.pending) == 200 - stored
    assert server.stats.requests == 200 - stored
    assert second.status == "completed"
    keys = rows(bundle_copy, "SELECT request_hash, model_a_id, model_b_id FROM judge_verdicts")
    assert len(keys) == 200 and len(set(keys)) == 200
    # both orders of every pair are in: flips are marked on all of them
    assert second.compared_in_both_orders == 100
    assert rows(bundle_copy, "SELECT count(*) FROM judge_verdicts WHERE position_flip IS NULL") == [
        (0,)
    ]


def test_a_cached_rerun_sends_nothing_and_costs_nothing(
    bundle_copy: Path, server: FakeOpenAIServer
) -> None:
    server.faults = Faults(malformed_share=0.3)  # some answers need the follow-up, too
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=20))
    _, first = judge(bundle_copy, settings, REFERENCE_FREE)
    sent = server.stats.requests
    assert first.progress.parse_failures > 0 and sent == 40 + first.progress.parse_failures
    again = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=20), run_name="again")
    plan, summary = judge(bundle_copy, again, REFERENCE_FREE)
    assert plan.estimate.cached == 40 and plan.estimate.requests == 0
    assert server.stats.requests == sent
    assert summary.progress.cached == 40 and summary.progress.cost_usd == 0.0
    costs = rows(
        bundle_copy,
        "SELECT sum(cost_usd), count(latency_ms) FROM judge_verdicts "
        "JOIN judge_runs ON judge_runs.id = run_id WHERE name = 'again'",
    )
    assert costs == [(0.0, 0)]
    fresh = settings_for(
        server, REFERENCE_FREE, selection=JudgeScope(limit=20), run_name="fresh", use_cache=False
    )
    judge(bundle_copy, fresh, REFERENCE_FREE)
    assert server.stats.requests == 2 * sent  # everything asked again, follow-ups too


def test_position_flips_are_recorded(bundle_copy: Path, server: FakeOpenAIServer) -> None:
    def always_first(messages: list[dict[str, Any]]) -> str:
        return "Overall, Response A is better."

    def prefers_model_one(messages: list[dict[str, Any]]) -> str:
        user = message_text(messages, "user")
        first = user.index("Response A:")
        side = "A" if "model-one answers" in user[first : user.index("Response B:")] else "B"
        return f"Overall, Response {side} is better."

    for name, responder, flipped in (
        ("biased", always_first, 1),
        ("steady", prefers_model_one, 0),
    ):
        server.responder = responder
        # the same requests: the cache would give the second judge the first one's answers
        settings = settings_for(
            server, REFERENCE_FREE, selection=JudgeScope(limit=10), run_name=name, use_cache=False
        )
        _, summary = judge(bundle_copy, settings, REFERENCE_FREE)
        assert summary.compared_in_both_orders == 10
        assert summary.position_flips == 10 * flipped
        assert rows(
            bundle_copy,
            "SELECT DISTINCT position_flip FROM judge_verdicts JOIN judge_runs "
            f"ON judge_runs.id = run_id WHERE name = '{name}'",
        ) == [(flipped,)]


def test_no_swap_judges_one_order(bundle_copy: Path, server: FakeOpenAIServer) -> None:
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=5, swap=False))
    plan, summary = judge(bundle_copy, settings, REFERENCE_FREE)
    assert plan.total_units == 5 and summary.compared_in_both_orders == 0
    assert rows(bundle_copy, "SELECT count(*) FROM judge_verdicts WHERE position_flip IS NULL") == [
        (5,)
    ]


def test_the_budget_stops_a_run_and_a_larger_one_continues_it(
    bundle_copy: Path, server: FakeOpenAIServer
) -> None:
    selection = JudgeScope(limit=15)
    settings = settings_for(
        server, REFERENCE_FREE, selection=selection, budget=Budget(max_requests=12), concurrency=4
    )
    _, summary = judge(bundle_copy, settings, REFERENCE_FREE)
    assert summary.status == "budget_exhausted" and "12 requests" in (summary.stop_reason or "")
    assert server.stats.requests == 12
    assert rows(bundle_copy, "SELECT count(*) FROM judge_verdicts") == [(12,)]
    more = settings_for(server, REFERENCE_FREE, selection=selection, concurrency=4)
    _, resumed = judge(bundle_copy, more, REFERENCE_FREE)
    assert resumed.status == "completed" and resumed.progress.done == 18


def test_a_refused_key_fails_the_run_cleanly(bundle_copy: Path, server: FakeOpenAIServer) -> None:
    server.faults = Faults(refuse_key=True)
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=5))
    with pytest.raises(EndpointError, match="AuthenticationError"):
        judge(bundle_copy, settings, REFERENCE_FREE)
    assert rows(bundle_copy, "SELECT status FROM judge_runs") == [("failed",)]
    assert rows(bundle_copy, "SELECT count(*) FROM judge_verdicts") == [(0,)]


def test_persistent_failures_stop_the_run(bundle_copy: Path, server: FakeOpenAIServer) -> None:
    server.faults = Faults(server_error_every=1)
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=30), concurrency=2)
    with pytest.raises(EndpointError, match="in a row"):
        judge(bundle_copy, settings, REFERENCE_FREE)
    assert Counter(server.stats.statuses) == {500: server.stats.requests}


def test_an_answer_paid_for_is_kept_when_its_follow_up_is_refused(
    bundle_copy: Path, server: FakeOpenAIServer
) -> None:
    server.faults = Faults(malformed_share=1.0)
    selection = JudgeScope(limit=1, swap=False)
    tight = settings_for(server, REFERENCE_FREE, selection=selection, budget=Budget(max_requests=1))
    _, stopped = judge(bundle_copy, tight, REFERENCE_FREE)
    assert stopped.status == "budget_exhausted" and stopped.progress.done == 0
    assert server.stats.requests == 1
    _, finished = judge(
        bundle_copy, settings_for(server, REFERENCE_FREE, selection=selection), REFERENCE_FREE
    )
    assert finished.progress.cached == 1 and finished.progress.done == 1
    assert server.stats.requests == 2  # only the follow-up was asked for again
    assert rows(bundle_copy, "SELECT label, outcome FROM judge_verdicts") == [("unknown", "tie")]
