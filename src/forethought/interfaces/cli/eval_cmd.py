"""``forethought eval SUITE.yaml``: run golden tasks, score them, gate on tolerance bands.

Exit codes: 0 every metric in its band; 1 a metric left its band (a task failed an expectation
and the success-rate band caught it, or a baseline band was broken); 2 a bad suite file, a bad
option, or a task that could not be run as written (its plan or tools failed to load).
Progress goes to stderr, the table to stdout; ``--json`` and ``--junit`` write files.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from forethought.errors import UserError
from forethought.evaluation.runner import TaskResult
from forethought.interfaces.cli._common import EXIT_FAILED, EXIT_OK, run_async


class _Progress:
    """Task progress on stderr: a bar on a terminal, else one line per task started and finished."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self._bar: Progress | None = None
        self._bar_task: TaskID | None = None
        if sys.stderr.isatty():
            self._bar = Progress(
                TextColumn("eval"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
            )

    def __enter__(self) -> _Progress:
        if self._bar is not None:
            self._bar.start()
            self._bar_task = self._bar.add_task("eval", total=self.total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def __call__(self, task_id: str, result: TaskResult | None) -> None:
        if result is None:
            if self._bar is None:
                click.echo(f"[{self.done}/{self.total}] {task_id}: running", err=True)
            return
        self.done += 1
        word = "error" if result.error else "pass" if result.passed else "FAIL"
        line = f"[{self.done}/{self.total}] {task_id}: {word} ({result.wall_s:.2f}s)"
        if self._bar is None or self._bar_task is None:
            click.echo(line, err=True)
            return
        self._bar.console.print(line, markup=False, highlight=False)
        self._bar.advance(self._bar_task)


@click.command("eval")
@click.argument("suite_file", type=click.Path(dir_okay=False))
@click.option("--model", help="Model that plans the goal tasks (overrides the suite's `model:`).")
@click.option(
    "--fault",
    "faults",
    multiple=True,
    metavar="SPEC",
    help="Inject a fault into every task that has the tool (repeatable), e.g. "
    "tool=run_tests,kind=fail,on_call=2 or tool=read_file,kind=timeout,probability=0.3,seed=7. "
    "Kinds: fail, timeout, malformed, slow (delay_s=).",
)
@click.option("--jobs", type=click.IntRange(1, 64), default=4, show_default=True, help="Tasks run at once.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Keep each task's workspace copy and run database under DIR/TASK (default: a temporary directory).",
)
@click.option(
    "--json", "json_file", type=click.Path(dir_okay=False), help="Write the JSON report to this file."
)
@click.option("--junit", "junit_file", type=click.Path(dir_okay=False), help="Write JUnit XML to this file.")
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False),
    help="A previous --json report: the suite's baseline bands compare against its metrics.",
)
def eval_command(
    suite_file: str,
    model: str | None,
    faults: tuple[str, ...],
    jobs: int,
    out_dir: str | None,
    json_file: str | None,
    junit_file: str | None,
    baseline: str | None,
) -> int:
    """Run the golden tasks of SUITE_FILE and check their tolerance bands.

    Exit 0: every metric in its band; 1: a metric out of its band; 2: an invalid suite or option."""
    from forethought.evaluation import RunOptions, check_bands, load_suite, run_suite, suite_metrics
    from forethought.evaluation.reports import junit_xml, load_baseline, report_json, table
    from forethought.oversight.redaction import default_redactor
    from forethought.tools.faults import parse_fault

    suite = load_suite(suite_file)
    fault_specs = tuple(parse_fault(f) for f in faults)
    previous = load_baseline(baseline) if baseline else None
    with tempfile.TemporaryDirectory(prefix="forethought-eval-") as scratch:
        out = Path(out_dir) if out_dir else Path(scratch)
        options = RunOptions(out_dir=out.resolve(), jobs=jobs, model=model, faults=fault_specs)
        with _Progress(len(suite.tasks)) as progress:
            results = run_async(lambda: run_suite(suite, options, progress))
    metrics = suite_metrics(results)
    bands = check_bands(suite.tolerances, metrics, previous)
    redactor = default_redactor()
    report = redactor.redact(report_json(suite.name, results, metrics, bands))
    if not out_dir:  # the temporary directory is gone: a path into it would mislead
        for task in report["tasks"]:
            task["db"] = None
    click.echo(redactor.redact(table(results, metrics, bands)))
    if json_file:
        Path(json_file).write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    if junit_file:
        Path(junit_file).write_text(redactor.redact(junit_xml(suite.name, results, bands)), encoding="utf-8")
    errors = [r for r in results if r.error]
    if errors:
        first = errors[0]
        raise UserError(f"{suite_file}: task {first.task_id} could not be run: {first.error}")
    return EXIT_OK if bands.passed else EXIT_FAILED
