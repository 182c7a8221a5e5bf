"""Evaluation: golden tasks run through the ``Agent``, scored from their recorded events.

``load_suite`` reads a suite file, ``run_suite`` runs its tasks (isolated, in parallel, with
injected faults), ``scoring`` checks expectations and tolerance bands, ``reports`` renders the
table, JSON and JUnit XML. ``forethought eval`` is the command-line front end; docs/eval.md
describes the suite format.
"""

from forethought.evaluation.loader import SuiteError, load_suite
from forethought.evaluation.runner import RunOptions, TaskResult, run_suite, run_task
from forethought.evaluation.scoring import BandReport, Metrics, check_bands, suite_metrics
from forethought.evaluation.suite import Suite, Task, Tolerances

__all__ = [
    "BandReport",
    "Metrics",
    "RunOptions",
    "Suite",
    "SuiteError",
    "Task",
    "TaskResult",
    "Tolerances",
    "check_bands",
    "load_suite",
    "run_suite",
    "run_task",
    "suite_metrics",
]
