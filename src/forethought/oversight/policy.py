"""The one approval policy: which calls need a human's approval before they are made.

Every call the executor makes that can have an effect is decided here (DESIGN.md, "What an
approval covers"): a plan step or a plan rollback step (and each retry of one), a step's
compensation, and a tool call the executor model makes inside an agent step. The approvals module
asks the same function which steps an approval has to cover; the executor asks it which steps wait
for the gate.

The policy fails closed: whatever it cannot see to be read-only needs approval.
"""

from __future__ import annotations

from forethought.plan.model import Step, ToolCall
from forethought.tools.base import ToolSpec

Call = Step | ToolCall | str
"""What is about to be called: a step (tool or agent step, including a rollback step), a bare
tool call (a step's compensation), or the name of a tool (a call inside an agent step)."""


def needs_approval(call: Call, spec: ToolSpec | None) -> bool:
    """Whether making ``call`` needs approval; ``spec`` is its tool's spec, None if unknown.

    For a step, ``spec`` is the spec of the step's own tool (None for an agent step).

    - An unknown tool (``spec`` None) needs approval: nothing says it is read-only.
    - A tool whose effect is not ``read_only`` (``mutating``, ``destructive``) needs approval.
    - An agent step needs approval: the executor model picks its tool calls at run time.
    - A phase step needs none of its own; its sub-steps are decided when they are planned.
    - A step marked ``approval: required`` needs approval.
    - A step with a compensation needs approval, whatever its own tool: approving a step approves
      its undo too, and ``spec`` does not describe the compensation's tool (a compensation exists
      because the step is expected to change something).
    """
    if isinstance(call, Step) and call.phase is not None:
        # A phase calls nothing itself: its sub-plan's steps are decided one by one when it is
        # planned and spliced in (a read-only sub-plan thereby runs without waiting).
        return False
    if isinstance(call, Step) and (
        call.agent is not None or call.approval == "required" or call.compensate is not None
    ):
        return True
    return spec is None or spec.effect != "read_only"


def listed_tools(step: Step) -> tuple[str, ...] | None:
    """The tools an agent step's ``args.tools`` lists (approved with the step), None if none."""
    listed = step.args.get("tools") if step.agent is not None else None
    if not isinstance(listed, list):
        return None
    return tuple(n for n in listed if isinstance(n, str))


def tools_called(step: Step) -> tuple[str, ...]:
    """Every tool a step may call, so every tool whose definition an approval of it pins.

    Its own tool, its compensation's tool, and for an agent step the tools its ``args.tools``
    lists (the only tools that need approval it may call, see ``agent_may_call``).
    """
    names = [step.tool, step.compensate.tool if step.compensate else None, *(listed_tools(step) or ())]
    return tuple(dict.fromkeys(n for n in names if n))


def agent_may_call(step: Step, name: str, spec: ToolSpec | None) -> bool:
    """Whether agent step ``step`` (approved as it stands) may call tool ``name`` (``spec``).

    The executor model picks these calls at run time, so the approval of the step is what covers
    them: a call that needs approval is covered only when the step lists its tool in
    ``args.tools``. A step that lists tools may call only those. A destructive tool is never
    callable from inside an agent step (it must be a plan step of its own, seen and approved
    as such), nor is an unknown one.
    """
    if spec is None or spec.effect == "destructive":
        return False
    listed = listed_tools(step)
    if listed is not None:
        return name in listed
    return not needs_approval(name, spec)
