"""Run one child process in its own process group, with a timeout, an output cap and no leftovers.

Why a process group: a shell script's work is usually done by grandchildren (``pg_dump | gzip``).
Killing only the direct child leaves them running and holding our pipes open. Each call runs in a
new session (``start_new_session=True``), so its process-group id is its pid and ``killpg`` reaches
every descendant that did not deliberately escape with its own ``setsid``. On timeout, on
cancellation, and after a normal exit (background jobs left behind), the group gets SIGTERM, a short
grace period, then SIGKILL.

Why a supervisor (Linux): the tool must not outlive the runner that started it (``kill -9`` of
forethought used to leave ``sleep 3; echo charged >> f`` running, and a reviewed retry charged
twice). ``preexec_fn`` could call ``prctl(PR_SET_PDEATHSIG)`` but is documented unsafe with threads
(the runner has threads: the store writer, ``to_thread`` tools), and ``python -c`` as a shim costs
tens of milliseconds per call. So the child is ``setpriv --pdeathsig USR1 -- /bin/sh -c SUPERVISOR``
(util-linux; one exec and one tiny shell, about 2 ms): the kernel sends the shell SIGUSR1 the moment
the thread that forked it dies (we fork from the event-loop thread, which lives as long as the
call), and the shell's trap SIGKILLs its whole process group — grandchildren and background jobs
included. The shell also checks that its parent is still the runner (a runner killed between fork
and prctl would leave no one to signal). Not guaranteed: a process that left the group with its own
``setsid``, or the supervisor itself being SIGKILLed by someone else; ``reap_orphans`` (run on
resume, from the ``step_process`` record and the ``FORETHOUGHT_RUN_ID`` environment tag) is the
second line for those. Without ``setpriv`` (non-Linux) only the resume-time reaping applies.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from forethought.errors import ToolError, ToolTimeout

DEFAULT_MAX_OUTPUT = 1024 * 1024
KILL_GRACE_S = 2.0
_READ_CHUNK = 65536
PIPE_DRAIN_S = 5.0
REAP_WAIT_S = 5.0
_log = logging.getLogger(__name__)

# The supervisor: $1 is the runner's pid, $2 whether the tool's environment had PWD (the shell
# would add it), the rest is the tool's argv. Background jobs of a
# non-interactive shell read /dev/null, so the tool's stdin is handed over on fd 3. The exit
# status is passed on; a tool killed by signal N (status 128+N) is re-raised so the runner still
# sees "killed by signal N". Caveat: the tool starts as an asynchronous list, so SIGINT and SIGQUIT
# are ignored in it (forethought itself stops tools with SIGTERM/SIGKILL).
_SUPERVISOR = (
    'trap "kill -KILL 0" USR1\n'
    '[ "$PPID" = "$1" ] || exit 137\n'
    '[ "$2" = keep-pwd ] || unset PWD\n'
    "shift 2\n"
    "exec 3<&0\n"
    '"$@" <&3 3<&- &\n'
    "exec 3<&- </dev/null\n"
    'wait "$!"\n'
    "r=$?\n"
    'if [ "$r" -gt 128 ] && [ "$r" -lt 160 ]; then trap - USR1; kill -s "$((r - 128))" $$ 2>/dev/null; fi\n'
    'exit "$r"\n'
)
_SUPERVISOR_NAME = "forethought-supervisor"


@dataclass(frozen=True)
class ProcInfo:
    """What resume needs to find a tool process that outlived its runner (Linux ``/proc``)."""

    pid: int
    pgid: int
    start_time: int  # /proc/PID/stat field 22 (clock ticks since boot): tells a reused pid apart


SpawnObserver = Callable[[ProcInfo], None]


@functools.lru_cache(maxsize=1)
def _setpriv() -> str | None:
    """``setpriv`` if it exists and supports ``--pdeathsig`` (util-linux >= 2.33), else None."""
    if not sys.platform.startswith("linux") or not Path("/bin/sh").exists():
        return None
    exe = shutil.which("setpriv") or shutil.which("setpriv", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if exe is None:
        return None
    try:
        probe = subprocess.run(  # a fixed argv, once per process
            [exe, "--pdeathsig", "USR1", "--", "/bin/sh", "-c", "exit 0"],
            capture_output=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return exe if probe.returncode == 0 else None


def probe_supervision() -> bool:
    """Find out now (once per process) whether commands can be supervised with ``setpriv``: the
    probe runs a child process, so tool loading does it rather than the first call in a run."""
    return _setpriv() is not None


def supervised_argv(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """``argv`` wrapped so that its process group dies with this process (where supported)."""
    setpriv = _setpriv()
    if setpriv is None:
        return list(argv)
    pwd = "keep-pwd" if "PWD" in env else "-"
    return [
        *(setpriv, "--pdeathsig", "USR1", "--", "/bin/sh", "-c", _SUPERVISOR, _SUPERVISOR_NAME),
        *(str(os.getpid()), pwd, *argv),
    ]


def _stat(pid: int | str) -> tuple[str, int, int] | None:
    """(state, pgid, start time) of a process from ``/proc/PID/stat``, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rpartition(")")[2].split()  # the command name may contain spaces and parens
    try:
        return fields[0], int(fields[2]), int(fields[19])
    except (IndexError, ValueError):
        return None


def proc_info(pid: int) -> ProcInfo:
    st = _stat(pid)
    return ProcInfo(pid, st[1] if st else pid, st[2] if st else 0)


def _tagged(pid: str, tag: bytes) -> bool:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False
    return tag in environ.split(b"\0")


def find_orphans(run_id: str, recorded: Iterable[ProcInfo]) -> set[int]:
    """Live processes of ``run_id``'s tools: members of a recorded group whose leader is still
    the recorded process (same start time), and any process carrying the run's environment tag
    (``FORETHOUGHT_RUN_ID``, set for every command tool; it also finds a group that was never
    recorded, or a process that left its group with ``setsid``). Never this process or its group.
    The tag is the run id alone: a run with the same (caller-chosen) id in another database on
    this host would match too; default run ids are random."""
    if not Path("/proc/self/stat").exists():
        return set()
    groups = set()
    for info in recorded:
        st = _stat(info.pgid)
        if st is not None and st[0] != "Z" and (info.pgid != info.pid or st[2] == info.start_time):
            leader = _stat(info.pid)
            if leader is not None and leader[2] == info.start_time:
                groups.add(info.pgid)
    me, my_group = os.getpid(), os.getpgrp()
    tag = b"FORETHOUGHT_RUN_ID=" + run_id.encode()
    found: set[int] = set()
    for path in Path("/proc").iterdir():
        entry = path.name
        if not entry.isdigit() or int(entry) == me:
            continue
        st = _stat(entry)
        if st is None or st[0] == "Z" or st[1] == my_group:
            continue
        if st[1] in groups or _tagged(entry, tag):
            found.add(int(entry))
    return found


def reap_orphans(run_id: str, recorded: Iterable[ProcInfo], wait_s: float = REAP_WAIT_S) -> list[int]:
    """SIGKILL every process ``find_orphans`` finds (their whole groups too) and wait, bounded,
    until they are gone; returns their pids. Resume calls this before interrupted steps are
    reviewed or retried, so the reviewer sees the final state and a retry never overlaps."""
    recorded = list(recorded)
    pids = find_orphans(run_id, recorded)
    if not pids:
        return []
    my_group = os.getpgrp()
    for pid in pids:
        st = _stat(pid)
        if st is not None and st[1] != my_group:
            _signal_group(st[1], signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        alive = [p for p in pids if (st := _stat(p)) is not None and st[0] != "Z"]
        if not alive:
            break
        time.sleep(0.01)
    else:
        _log.warning(
            "run %s: processes %s did not exit after SIGKILL within %gs", run_id, sorted(pids), wait_s
        )
    _log.warning("run %s: killed %d tool process(es) left running by a previous runner", run_id, len(pids))
    return sorted(pids)


@dataclass(frozen=True)
class ProcResult:
    exit_code: int
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    duration_s: float


class _Capture:
    """The first ``cap`` bytes of a stream; the rest is drained so a chatty child never blocks."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.truncated = False

    async def read(self, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        while chunk := await stream.read(_READ_CHUNK):
            room = self.cap - len(self.data)
            if room > 0:
                self.data.extend(chunk[:room])
            if len(chunk) > room:
                self.truncated = True


class _ExitAwareProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Signals the child's exit itself: ``Process.wait()`` also waits for every pipe to close, which
    a leftover background job holding stdout would postpone indefinitely."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=_READ_CHUNK, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a pid reused by someone else's group
        return False
    return True


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def kill_group(
    pgid: int, proc: asyncio.subprocess.Process | None, grace_s: float = KILL_GRACE_S
) -> None:
    """SIGTERM the whole group, wait up to ``grace_s`` for it to go, then SIGKILL whatever is left.

    Written so that a second cancellation arriving during the grace period still ends in SIGKILL.
    """
    _signal_group(pgid, signal.SIGTERM)
    try:
        deadline = time.monotonic() + grace_s
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), grace_s)
        # Grandchildren are not our children: no wait() or event exists for them, so poll briefly.
        while _group_alive(pgid) and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.02)
    finally:
        _signal_group(pgid, signal.SIGKILL)
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(TimeoutError, ProcessLookupError):
                await asyncio.wait_for(asyncio.shield(proc.wait()), 5.0)


def _check_executable(exe: str, env: Mapping[str, str], cwd: Path | None) -> None:
    """Raise what exec would, before the supervisor shell (which would only exit 127) runs it."""
    if "/" in exe:
        path = Path(exe) if Path(exe).is_absolute() or cwd is None else cwd / exe
        if not path.exists():
            raise FileNotFoundError(exe)
        if path.is_dir() or not os.access(path, os.X_OK):
            raise PermissionError(exe)
        return
    if shutil.which(exe, path=env.get("PATH", os.defpath)) is None:
        raise FileNotFoundError(exe)


async def run_process(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path | None,
    stdin_path: Path | None = None,
    timeout_s: float | None = None,
    max_output: int = DEFAULT_MAX_OUTPUT,
    grace_s: float = KILL_GRACE_S,
    label: str = "command",
    on_spawn: SpawnObserver | None = None,
) -> ProcResult:
    """Run ``argv`` (no shell) and collect capped output; raise ``ToolTimeout`` past ``timeout_s``.

    ``on_spawn`` hears the child's pid/pgid/start time as soon as it exists (the executor records
    it as ``step_process`` so a resumed run can find the group should this process die)."""
    stdin_file: IO[bytes] | None = None
    if stdin_path is not None:
        try:
            stdin_file = stdin_path.open("rb")
        except OSError as exc:
            raise ToolError(
                f"{label}: cannot open stdin file {stdin_path}: {exc.strerror}", retryable=False
            ) from None
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    try:
        try:
            _check_executable(argv[0], env, cwd)
            transport, protocol = await loop.subprocess_exec(
                lambda: _ExitAwareProtocol(loop),
                *supervised_argv(argv, env),
                stdin=stdin_file if stdin_file is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=dict(env),
                cwd=cwd,
                start_new_session=True,
                close_fds=True,
            )
        except FileNotFoundError:
            raise ToolError(f"{label}: executable {argv[0]!r} not found on PATH", retryable=False) from None
        except PermissionError:
            raise ToolError(f"{label}: executable {argv[0]!r} is not executable", retryable=False) from None
        except OSError as exc:
            raise ToolError(f"{label}: cannot start {argv[0]!r}: {exc}", retryable=False) from None
    finally:
        if stdin_file is not None:
            stdin_file.close()  # the child has its own copy of the descriptor now

    proc = asyncio.subprocess.Process(transport, protocol, loop)
    pgid = proc.pid  # start_new_session: the child leads a new group whose id is its pid
    if on_spawn is not None:
        info = proc_info(proc.pid)
        on_spawn(ProcInfo(proc.pid, pgid, info.start_time))
    out, err = _Capture(max_output), _Capture(max_output)
    readers = asyncio.gather(out.read(proc.stdout), err.read(proc.stderr))
    finished = False
    try:
        try:
            await asyncio.wait_for(asyncio.shield(protocol.exited), timeout_s)
        except TimeoutError:
            raise ToolTimeout(
                f"{label}: timed out after {timeout_s:g}s; its process group was killed"
            ) from None
        finished = True
    finally:
        # Always: after a timeout, a cancellation, or a normal exit that left background jobs.
        try:
            await kill_group(pgid, proc, grace_s if not finished else min(grace_s, 0.5))
        finally:
            if not finished:
                readers.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await readers
    try:
        # Only a process that escaped the group (its own setsid) can still hold the pipes open.
        await asyncio.wait_for(readers, PIPE_DRAIN_S)
    except TimeoutError:
        transport.close()
    returncode = transport.get_returncode()
    assert returncode is not None
    return ProcResult(
        returncode, bytes(out.data), bytes(err.data), out.truncated, err.truncated, time.monotonic() - started
    )
