"""Read a suite file: YAML → ``Suite`` with paths resolved, or one line saying what is wrong.

Every problem is a ``SuiteError`` (a ``UserError``, exit 2) whose message starts with the file and,
where the YAML has one, the line, then the field path (``tasks[1].expect.tools.match``) and the
fix. Paths in the suite are relative to the suite file; they are resolved and checked here, so a
typo in a plan path fails before any task runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from forethought.errors import UserError
from forethought.evaluation.suite import Suite, Task
from forethought.plan._yaml import load_yaml
from forethought.plan.files import line_index


class SuiteError(UserError):
    """A suite file that cannot be used; the message is one line naming file, field and fix."""


def _where(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "suite"


def load_suite(path: str | Path) -> Suite:
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SuiteError(f"{source}: no such suite file; check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"{source}: cannot read the suite file ({exc})") from None
    data = load_yaml(text, source, error=SuiteError)
    if not isinstance(data, dict):
        raise SuiteError(
            f"{source}: a suite file is a mapping with `tasks:` (a list of tasks); see docs/eval.md"
        )
    try:
        suite = Suite.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        lines = line_index(text, "yaml")
        line = next((lines[loc[:n]] for n in range(len(loc), -1, -1) if loc[:n] in lines), None)
        at = f"{source}:{line}" if line else source
        msg = str(err["msg"]).removeprefix("Value error, ")
        raise SuiteError(f"{at}: {_where(loc)}: {msg}") from None
    base = path.resolve().parent
    tasks = tuple(_resolved(t, i, base, source) for i, t in enumerate(suite.tasks))
    return suite.model_copy(update={"tasks": tasks, "model": _model_path(suite.model, base)})


def _model_path(model: str | None, base: Path) -> str | None:
    """``scripted:FILE`` with a relative FILE is relative to the suite file, like every path in it."""
    if model is None or not model.startswith("scripted:"):
        return model
    file = Path(model.removeprefix("scripted:"))
    return model if file.is_absolute() else f"scripted:{(base / file).resolve()}"


def _resolved(task: Task, index: int, base: Path, source: str) -> Task:
    """``task`` with its paths absolute, each checked to exist."""

    def existing(value: str, field: str, *, directory: bool = False) -> str:
        p = (base / value).resolve()
        ok = p.is_dir() if directory else p.is_file()
        if not ok:
            kind = "directory" if directory else "file"
            raise SuiteError(
                f"{source}: tasks[{index}] ({task.id}).{field}: {value} is not an existing {kind} "
                f"(paths are relative to the suite file: {base})"
            )
        return str(p)

    update: dict[str, Any] = {
        "tools": tuple(existing(t, f"tools[{i}]") for i, t in enumerate(task.tools)),
        "model": _model_path(task.model, base),
    }
    if task.plan is not None:
        update["plan"] = existing(task.plan, "plan")
    if task.workspace is not None:
        update["workspace"] = existing(task.workspace, "workspace", directory=True)
    for i, check in enumerate(task.expect.files):
        if Path(check.path).is_absolute() or ".." in Path(check.path).parts:
            raise SuiteError(
                f"{source}: tasks[{index}] ({task.id}).expect.files[{i}].path: {check.path} must be "
                "relative to the task's workspace, without `..`"
            )
    if task.expect.files and task.workspace is None:
        raise SuiteError(
            f"{source}: tasks[{index}] ({task.id}).expect.files: file checks need a `workspace:` to look in"
        )
    return task.model_copy(update=update)
