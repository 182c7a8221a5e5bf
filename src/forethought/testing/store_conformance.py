"""The store conformance suite: every ``Store`` backend must pass all of it.

Use it from a test module: subclass ``StoreConformance`` and define a ``store_factory`` fixture
returning a callable ``factory(name="main") -> Store``. Each distinct ``name`` must be a separate,
empty database; calling it again with the same ``name`` must open another handle on that same
database (set ``shares_between_handles = False`` for a backend that cannot, such as SQLite's
``:memory:``, and the multi-handle tests skip). The fixture owns cleanup (closing handles,
deleting files or schemas)::

    class TestMyStore(StoreConformance):
        @pytest.fixture
        def store_factory(self, tmp_path):
            handles = []
            def factory(name="main"):
                handles.append(MyStore(tmp_path / name))
                return handles[-1]
            yield factory
            for h in handles:
                h.close()

Only the ``Store`` protocol is used here, never a backend's internals, so a failure names a
difference in behaviour that users of either backend would see.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forethought.events import kinds as ev
from forethought.runs.store.base import Appended, LeaseHeld, LeaseLost, SequenceError, StepProgress, Store
from forethought.testing.runs import Seq, chunks, full_run, small_plan

StoreFactory = Callable[..., Store]


def rows(store: Store, run_id: str) -> tuple[Any, ...]:
    """Everything the summary tables say about a run."""
    return (store.get_run(run_id), store.steps(run_id), store.plan_versions(run_id))


_STEP_EVENT = st.sampled_from(
    ["ready", "started", "succeeded", "failed", "retry", "skipped", "review", "check", "model", "cancelled"]
)


def _make(b: Seq, kind: str, sid: str, attempt: int) -> Any:
    if kind == "ready":
        return b(ev.StepReady, step_id=sid)
    if kind == "started":
        return b(ev.StepStarted, step_id=sid, attempt=attempt)
    if kind == "succeeded":
        return b(ev.StepSucceeded, step_id=sid, attempt=attempt, output=sid)
    if kind in ("failed", "retry"):
        return b(ev.StepFailed, step_id=sid, attempt=attempt, error=kind, final=kind == "failed")
    if kind == "skipped":
        return b(ev.StepSkipped, step_id=sid, reason="dep")
    if kind == "review":
        return b(ev.StepNeedsReview, step_id=sid, reason="crash")
    if kind == "check":
        return b(ev.CheckFailed, step_id=sid, attempt=attempt, criterion="x", detail="y")
    if kind == "model":
        return b(ev.ModelCalled, role="r", model="m", input_tokens=attempt, output_tokens=1, cost_usd=0.5)
    return b(ev.StepCancelled, step_id=sid, reason="abort")


def _as_row(e: ev.Event) -> Appended:
    """How the recorder hands a progress event to the store: its row (the body goes beside it)."""
    if isinstance(e, (ev.StepStarted, ev.StepSucceeded)):
        return StepProgress(e.run_id, e.seq, e.kind, e.ts, e.plan_version, e.step_id, e.attempt)
    if isinstance(e, ev.StepReady):
        return StepProgress(e.run_id, e.seq, e.kind, e.ts, e.plan_version, e.step_id, 0)
    return e


@st.composite
def _runs(draw: st.DrawFn) -> list[ev.Event]:
    b = Seq("p-" + os.urandom(4).hex())  # a new run per example: stores outlive examples
    out: list[ev.Event] = [b(ev.RunCreated, goal="prop")]
    for _ in range(draw(st.integers(0, 25))):
        sid = draw(st.sampled_from(["a", "b", "c"]))
        kind = draw(_STEP_EVENT)
        attempt = draw(st.integers(1, 3))
        out.append(_make(b, kind, sid, attempt))
    if draw(st.booleans()):
        out.append(b(ev.RunFinished, status=draw(st.sampled_from(["succeeded", "failed"]))))
    return out


class StoreConformance:
    """The contract of ``forethought.runs.store.base.Store``, as tests. See the module docstring."""

    shares_between_handles = True

    @pytest.fixture
    def store(self, store_factory: StoreFactory) -> Iterator[Store]:
        s = store_factory()
        assert isinstance(s, Store)
        yield s

    def _second_handle(self, store_factory: StoreFactory) -> Store:
        if not self.shares_between_handles:
            pytest.skip("this backend cannot open a second handle on one database")
        return store_factory()

    def test_round_trip_preserves_every_field(self, store: Store) -> None:
        events = full_run("r1", 3)
        store.append_many(events)
        assert store.events("r1") == events
        assert list(store.iter_events("r1", batch=4)) == events
        assert store.events("r1", after_seq=10) == events[11:]
        assert store.last_seq("r1") == len(events) - 1

    def test_single_appends_equal_batch(self, store: Store) -> None:
        for e in full_run("one", 2):
            store.append(e)
        store.append_many(full_run("many", 2))
        a, b = store.get_run("one"), store.get_run("many")
        assert a is not None and b is not None
        assert (a.status, a.goal, a.last_seq, a.input_tokens) == (
            b.status,
            b.goal,
            b.last_seq,
            b.input_tokens,
        )

    def test_find_runs_by_prefix(self, store: Store) -> None:
        for rid in ("abc1", "abd2", "x_%"):
            store.append(ev.RunCreated(run_id=rid, seq=0, goal="g"))
        assert sorted(store.find_runs("ab")) == ["abc1", "abd2"]
        assert store.find_runs("x_") == ["x_%"]
        assert store.find_runs("x%") == []  # wildcards typed by a user are literal

    def test_unknown_run_is_empty(self, store: Store) -> None:
        assert store.get_run("nope") is None
        assert store.events("nope") == []
        assert store.last_seq("nope") == -1
        assert store.steps("nope") == []
        assert store.plan_versions("nope") == []

    def test_first_event_must_have_seq_zero(self, store: Store) -> None:
        with pytest.raises(SequenceError, match="next seq must be 0"):
            store.append(ev.RunCreated(run_id="r", seq=1, goal="g"))
        assert store.get_run("r") is None

    def test_duplicate_and_gap_refused(self, store: Store) -> None:
        b = Seq("r")
        store.append_many([b(ev.RunCreated, goal="g"), b(ev.StepReady, step_id="a")])
        with pytest.raises(SequenceError, match="duplicate"):
            store.append(ev.StepReady(run_id="r", seq=1, step_id="a"))
        with pytest.raises(SequenceError, match="gap"):
            store.append(ev.StepReady(run_id="r", seq=3, step_id="a"))
        assert store.last_seq("r") == 1
        assert len(store.events("r")) == 2

    def test_batch_is_all_or_nothing(self, store: Store) -> None:
        b = Seq("r")
        good = [b(ev.RunCreated, goal="g"), b(ev.StepReady, step_id="a")]
        b.seq += 1  # leave a hole
        bad = [*good, b(ev.StepReady, step_id="b")]
        with pytest.raises(SequenceError):
            store.append_many(bad)
        assert store.events("r") == []
        assert store.get_run("r") is None
        assert store.steps("r") == []
        store.append_many(good)  # the store is still usable
        assert store.last_seq("r") == 1

    def test_interleaved_runs_in_one_batch(self, store: Store) -> None:
        a, b = full_run("a", 2), full_run("b", 2)
        mixed = [e for pair in zip(a, b, strict=True) for e in pair]
        store.append_many(mixed)
        assert store.events("a") == a
        assert store.events("b") == b

    def test_materialized_run_and_steps(self, store: Store) -> None:
        events = full_run("r", 3, goal="ship it")
        store.append_many(events)
        run = store.get_run("r")
        assert run is not None
        assert run.goal == "ship it"
        assert run.status == "succeeded"
        assert run.created_at == events[0].ts
        assert run.updated_at == events[-1].ts
        plan = small_plan(3)
        assert (run.plan_version, run.plan_hash) == (1, plan.plan_hash())
        assert (run.input_tokens, run.output_tokens) == (30, 15)
        assert run.cost_usd == pytest.approx(0.003)
        steps = {s.step_id: s for s in store.steps("r")}
        assert set(steps) == {"s0", "s1", "s2"}
        assert all(s.status == "succeeded" and s.attempts == 1 and s.error is None for s in steps.values())
        assert all(
            s.started_at is not None and s.ended_at is not None and s.ended_at > s.started_at
            for s in steps.values()
        )
        versions = store.plan_versions("r")
        assert [(v.version, v.hash) for v in versions] == [(1, plan.plan_hash())]
        # The stored text is the canonical JSON: anyone can check it against the approved hash.
        assert versions[0].plan_json == plan.canonical_json()
        assert hashlib.sha256(versions[0].plan_json.encode()).hexdigest() == run.plan_hash

    def test_step_lifecycle_retry_failure_skip_review(self, store: Store) -> None:
        b = Seq("r")
        store.append_many(
            [
                b(ev.RunCreated, goal="g"),
                b(ev.StepStarted, step_id="a", attempt=1),
                b(ev.StepFailed, step_id="a", attempt=1, error="boom", final=False, retry_in_s=0.1),
            ]
        )
        a = store.steps("r")[0]
        assert (a.status, a.attempts, a.error, a.ended_at) == ("ready", 1, "boom", None)
        first_start = a.started_at
        store.append(b(ev.StepStarted, step_id="a", attempt=2))
        a = store.steps("r")[0]
        assert (a.status, a.attempts, a.error, a.started_at) == ("running", 2, None, first_start)
        store.append_many(
            [
                b(ev.CheckFailed, step_id="a", attempt=2, criterion="regex", detail="no match"),
                b(ev.StepFailed, step_id="a", attempt=2, error="check failed", failure_class="check"),
                b(ev.StepSkipped, step_id="b", reason="dependency a failed"),
                b(ev.StepNeedsReview, step_id="c", reason="was running at crash; not idempotent"),
                b(ev.RunFinished, status="failed", reason="a failed"),
            ]
        )
        steps = {s.step_id: s for s in store.steps("r")}
        assert (steps["a"].status, steps["a"].error) == ("failed", "check failed")
        assert steps["a"].ended_at is not None
        assert (steps["b"].status, steps["b"].error) == ("skipped", "dependency a failed")
        assert steps["c"].status == "needs_review"
        run = store.get_run("r")
        assert run is not None and run.status == "failed"

    def test_pause_resume_and_plan_revision(self, store: Store) -> None:
        b = Seq("r")
        p1, p2 = small_plan(2), small_plan(3).model_copy(update={"version": 2})
        store.append_many(
            [
                b(ev.RunCreated, goal="g"),
                b(ev.PlanProposed, plan=p1.model_dump(mode="json"), plan_hash=p1.plan_hash()),
                b(ev.RunPaused, reason="budget"),
            ]
        )
        run = store.get_run("r")
        assert run is not None and run.status == "paused"
        store.append_many(
            [
                b(ev.RunResumed),
                b(
                    ev.PlanRevised,
                    old_version=1,
                    new_version=2,
                    plan=p2.model_dump(mode="json"),
                    plan_hash=p2.plan_hash(),
                    plan_version=2,
                ),
            ]
        )
        run = store.get_run("r")
        assert run is not None
        assert (run.status, run.plan_version, run.plan_hash) == ("running", 2, p2.plan_hash())
        assert [v.version for v in store.plan_versions("r")] == [1, 2]

    def test_list_runs_newest_first_and_limit(self, store: Store) -> None:
        for i in range(4):
            b = Seq(f"run{i}", ts=1000.0 + i * 100)
            store.append(b(ev.RunCreated, goal=f"goal {i}"))
        assert [r.run_id for r in store.list_runs()] == ["run3", "run2", "run1", "run0"]
        assert [r.run_id for r in store.list_runs(limit=2)] == ["run3", "run2"]

    def test_stored_text_is_data_not_code(self, store: Store) -> None:
        # SQL and Python injection attempts in payloads come back verbatim and do nothing.
        nasty = "x'); DROP TABLE events; --"
        b = Seq(nasty)
        store.append_many(
            [
                b(ev.RunCreated, goal=nasty),
                b(
                    ev.StepSucceeded,
                    step_id="a",
                    attempt=1,
                    output={"__reduce__": "os.system('echo pwned')", "q": nasty},
                ),
            ]
        )
        got = store.events(nasty)
        assert got[0].goal == nasty  # type: ignore[union-attr]
        assert got[1].output == {"__reduce__": "os.system('echo pwned')", "q": nasty}  # type: ignore[union-attr]
        assert store.get_run(nasty) is not None

    # -- leases ------------------------------------------------------------------------------------

    def test_lease_exclusive_then_released(self, store: Store) -> None:
        lease = store.acquire_lease("r", "me", ttl_s=30)
        assert lease.owner == "me" and lease.expires_at > time.time() + 20
        with pytest.raises(LeaseHeld, match="already being resumed by me"):
            store.acquire_lease("r", "you", ttl_s=30)
        assert store.acquire_lease("r", "me", ttl_s=30).owner == "me"  # re-entrant for the owner
        store.release_lease("r", "you")  # not the owner: no effect
        assert store.get_lease("r") is not None
        store.release_lease("r", "me")
        assert store.get_lease("r") is None
        assert store.acquire_lease("r", "you", ttl_s=30).owner == "you"

    def test_expired_lease_is_taken_over_and_old_owner_loses_it(self, store: Store) -> None:
        store.acquire_lease("r", "old", ttl_s=0.01)
        time.sleep(0.02)
        assert store.acquire_lease("r", "new", ttl_s=30).owner == "new"
        with pytest.raises(LeaseLost):
            store.renew_lease("r", "old", ttl_s=30)
        renewed = store.renew_lease("r", "new", ttl_s=60)
        assert renewed.expires_at > time.time() + 50

    def test_lease_of_dead_local_process_is_taken_over(self, store: Store) -> None:
        proc = subprocess.run(
            [sys.executable, "-c", "import os; print(os.getpid())"],
            capture_output=True,
            text=True,
            check=True,
        )
        dead_pid = int(proc.stdout)
        store.acquire_lease("r", f"{socket.gethostname()}:{dead_pid}:abcd", ttl_s=3600)
        assert store.acquire_lease("r", "me", ttl_s=30).owner == "me"
        # A live process's lease (our own pid, another owner id) is respected.
        store.acquire_lease("q", f"{socket.gethostname()}:{os.getpid()}:other", ttl_s=3600)
        with pytest.raises(LeaseHeld):
            store.acquire_lease("q", "me", ttl_s=30)

    def test_fenced_append_requires_the_lease(self, store: Store) -> None:
        b = Seq("r")
        with pytest.raises(LeaseLost, match="no longer holds"):
            store.append(b(ev.RunCreated, goal="g"), owner="me")
        store.acquire_lease("r", "me", ttl_s=30)
        b.seq = 0
        store.append(b(ev.RunCreated, goal="g"), owner="me")
        store.release_lease("r", "me")
        store.acquire_lease("r", "you", ttl_s=30)
        step = ev.StepReady(run_id="r", seq=1, step_id="a")
        with pytest.raises(LeaseLost, match="now held by you"):
            store.append(step, owner="me")
        store.append(step, owner="you")
        assert store.last_seq("r") == 1

    def test_event_chain_verifies_and_does_not_depend_on_batching(self, store: Store) -> None:
        """Appends extend each run's hash chain (``store._chain``); ``runs.integrity`` checks it."""
        from forethought.runs.integrity import check_run

        a, b, c = full_run("ca", 3), full_run("cb", 3), full_run("cc", 3)
        store.append_many(a)
        for e in b:  # one at a time
            store.append(e)
        store.append_many([e for pair in zip(c, full_run("cd", 3), strict=True) for e in pair])
        for run in ("ca", "cb", "cc", "cd"):
            assert not check_run(store, run).modified, check_run(store, run).problem
        ca, cb = store.record_chain("ca"), store.record_chain("cb")
        assert ca is not None and cb is not None
        assert [r.seq for r in ca.rows] == list(range(len(a)))
        assert ca.head != cb.head  # the chain starts from the run id
        assert store.record_chain("nope") is None

    # -- property: batching never changes the materialized tables ---------------------------------

    @pytest.fixture
    def two_stores(self, store_factory: StoreFactory) -> tuple[Store, Store]:
        return store_factory("one"), store_factory("batched")

    # Each subclass runs this inherited method: "differing executors" is the intended use.
    @settings(
        max_examples=30,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.differing_executors],
    )
    @given(events=_runs(), cuts=st.lists(st.integers(1, 30), max_size=6))
    def test_materialized_tables_do_not_depend_on_batching(
        self, two_stores: tuple[Store, Store], events: list[ev.Event], cuts: list[int]
    ) -> None:
        one, batched = two_stores
        run_id = events[0].run_id
        for e in events:
            one.append(e)
        for chunk in chunks(events, cuts):
            batched.append_many(chunk)
        assert rows(one, run_id) == rows(batched, run_id)
        assert batched.events(run_id) == events

    # -- property: a progress event appended as its row and body is stored as the event ----------

    @settings(
        max_examples=30,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.differing_executors],
    )
    @given(events=_runs(), cuts=st.lists(st.integers(1, 30), max_size=6))
    def test_progress_rows_store_what_their_events_do(
        self, two_stores: tuple[Store, Store], events: list[ev.Event], cuts: list[int]
    ) -> None:
        """The recorder appends ``step_ready``/``step_started``/``step_succeeded`` as
        ``StepProgress`` rows beside their JSON bodies; the record, its chain and the summary
        tables are those of appending the events themselves."""
        plain, as_rows = two_stores
        run_id = events[0].run_id
        for chunk in chunks(events, cuts):
            plain.append_many(chunk)
            as_rows.append_many([_as_row(e) for e in chunk], bodies=[ev.event_to_json(e) for e in chunk])
        assert rows(plain, run_id) == rows(as_rows, run_id)
        assert as_rows.events(run_id) == events
        chain, row_chain = plain.record_chain(run_id), as_rows.record_chain(run_id)
        assert chain is not None and row_chain is not None
        assert (chain.rows, chain.head) == (row_chain.rows, row_chain.head)

    def test_progress_rows_need_their_bodies(self, store: Store) -> None:
        b = Seq("rows")
        events = [b(ev.RunCreated, goal="g"), b(ev.StepReady, step_id="a")]
        with pytest.raises(ValueError, match="body"):
            store.append_many([_as_row(e) for e in events])
        assert store.last_seq("rows") == -1

    # -- several handles on one database (processes, machines) -------------------------------------

    def test_a_second_handle_sees_committed_events(self, store: Store, store_factory: StoreFactory) -> None:
        other = self._second_handle(store_factory)
        events = full_run("shared", 2)
        store.append_many(events)
        assert other.events("shared") == events
        assert other.get_run("shared") == store.get_run("shared")

    def test_racing_appends_of_the_same_seq_keep_exactly_one(
        self, store: Store, store_factory: StoreFactory
    ) -> None:
        other = self._second_handle(store_factory)
        store.append(ev.RunCreated(run_id="race", seq=0, goal="g"))
        contenders = [
            (store, ev.StepReady(run_id="race", seq=1, step_id="from-a")),
            (other, ev.StepReady(run_id="race", seq=1, step_id="from-b")),
        ]
        outcomes: list[str] = []
        barrier = threading.Barrier(len(contenders))

        def append(handle: Store, event: ev.Event) -> None:
            barrier.wait()
            try:
                handle.append(event)
                outcomes.append("ok")
            except SequenceError:
                outcomes.append("refused")

        threads = [threading.Thread(target=append, args=c) for c in contenders]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == ["ok", "refused"]
        assert [e.seq for e in store.events("race")] == [0, 1]
        from forethought.runs.integrity import check_run

        assert not check_run(store, "race").modified

    def test_racing_lease_acquisitions_have_one_winner(
        self, store: Store, store_factory: StoreFactory
    ) -> None:
        handles = [store, self._second_handle(store_factory), self._second_handle(store_factory)]
        winners: list[str] = []
        held: list[str] = []
        barrier = threading.Barrier(len(handles))

        def take(handle: Store, owner: str) -> None:
            barrier.wait()
            try:
                handle.acquire_lease("contested", owner, ttl_s=30)
                winners.append(owner)
            except LeaseHeld as exc:
                held.append(exc.owner)

        threads = [threading.Thread(target=take, args=(h, f"owner-{i}")) for i, h in enumerate(handles)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(winners) == 1 and len(held) == 2
        assert set(held) == set(winners)
        lease = store.get_lease("contested")
        assert lease is not None and lease.owner == winners[0]

    def test_a_taken_over_run_refuses_the_old_owners_appends(
        self, store: Store, store_factory: StoreFactory
    ) -> None:
        other = self._second_handle(store_factory)
        store.acquire_lease("r", "old", ttl_s=0.01)
        store.append(ev.RunCreated(run_id="r", seq=0, goal="g"), owner="old")
        time.sleep(0.05)  # let the lease expire (expiry is the subject here, not synchronization)
        other.acquire_lease("r", "new", ttl_s=30)
        with pytest.raises(LeaseLost, match="now held by new"):
            store.append(ev.StepReady(run_id="r", seq=1, step_id="a"), owner="old")
        other.append(ev.StepReady(run_id="r", seq=1, step_id="a"), owner="new")
        assert store.last_seq("r") == 1
