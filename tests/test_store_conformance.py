"""The store conformance suite (``forethought.testing.store_conformance``) on every backend:
an SQLite file, SQLite in memory, and PostgreSQL (a fresh schema per test; skipped with the
reason when no server is reachable — see ``forethought.testing.postgres``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from _store_support import postgres_factory
from forethought.events.kinds import Event
from forethought.runs.store.base import Store
from forethought.runs.store.sqlite import SqliteStore
from forethought.testing.store_conformance import StoreConformance

Factory = Callable[..., Store]


class TestSqliteFile(StoreConformance):
    @pytest.fixture
    def store_factory(self, tmp_path: Path) -> Iterator[Factory]:
        handles: list[SqliteStore] = []

        def factory(name: str = "main") -> Store:
            handles.append(SqliteStore(tmp_path / f"{name}.db"))
            return handles[-1]

        yield factory
        for h in handles:
            h.close()


class TestSqliteMemory(StoreConformance):
    shares_between_handles = False

    @pytest.fixture
    def store_factory(self) -> Iterator[Factory]:
        handles: dict[str, SqliteStore] = {}

        def factory(name: str = "main") -> Store:
            if name in handles:
                raise AssertionError("the suite asked :memory: for a second handle")
            handles[name] = SqliteStore(":memory:")
            return handles[name]

        yield factory
        for h in handles.values():
            h.close()


class TestPostgres(StoreConformance):
    @pytest.fixture
    def store_factory(self) -> Iterator[Factory]:
        with postgres_factory() as factory:
            yield factory


def test_the_suite_fails_a_store_that_breaks_the_contract(tmp_path: Path) -> None:
    """The suite can fail: a store that forgets to refuse gaps is caught by it."""

    class Gappy(SqliteStore):
        def append_many(self, events: Sequence[Event], *, owner: str | None = None) -> None:
            # Renumbers instead of refusing: duplicates and gaps are silently "repaired".
            start = {e.run_id: self.last_seq(e.run_id) + 1 for e in events}
            fixed = [e.model_copy(update={"seq": start[e.run_id] + i}) for i, e in enumerate(events)]
            super().append_many(fixed, owner=owner)

    store = Gappy(tmp_path / "gappy.db")
    suite = StoreConformance()
    with pytest.raises(pytest.fail.Exception, match="DID NOT RAISE"):
        suite.test_duplicate_and_gap_refused(store)
    store.close()
