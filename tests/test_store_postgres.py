"""What is particular to the PostgreSQL store (the shared contract is the conformance suite):
opening errors, the missing extra, migrations racing, tampering detected, URLs in config."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from _store_support import full_run, postgres_url
from forethought.errors import StoreError, UserError
from forethought.events import kinds as ev
from forethought.interfaces.cli import main as cli_main
from forethought.runs.integrity import check_run
from forethought.runs.store.base import RecordModified
from forethought.runs.store.opening import open_store


def _sql(url: str, statement: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(statement, params)
        return list(cur.fetchall()) if cur.description else []


def test_an_unreachable_server_is_one_line_without_the_password(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main.run(["runs", "--db", "postgresql://bob:s3cret@127.0.0.1:1/nowhere"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "postgresql://bob@127.0.0.1:1/nowhere: cannot open the run database" in err
    assert "s3cret" not in err


def test_without_the_postgres_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(UserError) as info:
        open_store("postgresql://postgres@127.0.0.1:5432/test")
    assert str(info.value) == (
        "a postgresql:// run database needs the PostgreSQL driver (psycopg 3): "
        "pip install 'forethought[postgres]'"
    )


def test_workers_starting_together_migrate_once() -> None:
    url = postgres_url()
    opened: list[object] = []
    failures: list[BaseException] = []
    barrier = threading.Barrier(4)

    def start() -> None:
        barrier.wait()
        try:
            opened.append(open_store(url))
        except BaseException as exc:  # reported below, with the others
            failures.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and len(opened) == 4
    for store in opened:
        store.close()  # type: ignore[attr-defined]
    assert sorted(_sql(url, "SELECT name FROM _migrations")) == [("m001_initial",), ("m002_run_queue",)]


def test_a_database_from_a_newer_version_is_refused() -> None:
    url = postgres_url()
    open_store(url).close()
    _sql(url, "INSERT INTO _migrations VALUES ('m999_from_the_future', 0)")
    with pytest.raises(StoreError, match=r"written by a newer forethought .*m999_from_the_future"):
        open_store(url)


def test_an_edited_event_is_detected_and_nothing_is_appended_to_it() -> None:
    url = postgres_url()
    store = open_store(url)
    store.append_many(full_run("r", 2))
    assert not check_run(store, "r").modified
    _sql(url, "UPDATE events SET body = replace(body, '\"s0\"', '\"zz\"') WHERE run_id = 'r' AND seq = 6")
    report = check_run(store, "r")
    assert report.modified and report.problem is not None and "event 7: the chain breaks" in report.problem
    # A head whose seal does not verify is never extended (appending would seal the edit).
    last = store.last_seq("r")
    _sql(url, "UPDATE runs SET chain_seal = 'forged' WHERE run_id = 'r'")
    with pytest.raises(RecordModified, match="modified outside forethought"):
        store.append(ev.RunPaused(run_id="r", seq=last + 1, reason="x"))
    assert store.last_seq("r") == last
    store.close()


def test_a_url_in_a_config_file_is_not_taken_for_a_path(tmp_path: Path) -> None:
    from forethought.interfaces.config import load_config

    url = "postgresql://postgres@127.0.0.1:5432/test"
    (tmp_path / "forethought.toml").write_text(f'db = "{url}"\n')
    cfg = load_config({}, cwd=tmp_path)
    assert cfg.db == url
