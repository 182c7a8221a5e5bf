"""What the benchmark's "model" answers: the reply a correct agent would produce, per system.

The server hands every chat request to ``reply``. It recognises who is asking from the request's
shape (not from a system name, so a system cannot be favoured by what it calls itself):

- ``response_format`` json_schema named ``plan`` → forethought's planner: the task's whole call
  DAG as a plan JSON (``${sN}`` references); a replan prompt → only the calls not yet completed,
  under fresh ids, referencing completed steps by their ids. Steps are written in the shape the
  sent schema asks for (``plan_shape``): ``{"id", "tool", "args"}`` or ``{TOOL: args}``.
- ``tools`` in the request → a tool-calling ReAct agent: the next ready call(s), arguments filled
  from the tool results in the messages (all ready calls at once unless
  ``parallel_tool_calls`` is false, then one), and the final answer once every call has a result.
- LLMCompiler's planner system prompt → its plan text (``1. tool("x")`` … ``N. join()``).
- LLMCompiler's joiner prompt (observations in a user message) → ``Action: Finish(answer)``.

The task is found by its question text in the messages; every final answer is built from the
results the request carries, so a system that passed a wrong value gets a wrong answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from tasks import NUMERIC_PARAMS, PARAMS, Call, Ref, Task, by_question


@dataclass
class Reply:
    role: str
    task: Task | None
    content: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def _value(text: str) -> Any:
    """A tool result as the model would read it: a number when it is one, else the text."""
    text = text.strip()
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return text
    return value if isinstance(value, (int, float, str)) else text


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def final_answer(task: Task, results: dict[str, Any]) -> str:
    return "; ".join(f"{c.label}: {_show(results[c.key])}" for c in task.sinks())


# ------------------------------------------------------------------------------------ forethought


def _ft_args(call: Call, ids: dict[str, str]) -> dict[str, Any]:
    return {k: ("${" + ids[v.key] + "}" if isinstance(v, Ref) else v) for k, v in call.args.items()}


def plan_shape(schema: dict[str, Any]) -> str:
    """ "classic" when the schema's first step pins ``id`` and ``tool`` (``{"id", "tool",
    "args"}``), else "compact" (``{TOOL: args}``, the id being the step's position)."""
    first = (schema.get("$defs") or {}).get("step1") or {}
    option = (first.get("anyOf") or [first])[0]
    props = option.get("properties") or {}
    return "classic" if "const" in (props.get("tool") or {}) and "id" in props else "compact"


def _ft_json(steps: list[dict[str, Any]], shape: str) -> str:
    if shape == "compact":  # the ids are positional: the reply leaves them (and "tool") out
        steps = [{s["tool"]: s["args"]} for s in steps]
    return json.dumps({"steps": steps}, separators=(",", ":"))


def forethought_plan(task: Task, shape: str = "classic") -> str:
    ids = {c.key: f"s{i + 1}" for i, c in enumerate(task.calls)}
    steps = [{"id": ids[c.key], "tool": c.tool, "args": _ft_args(c, ids)} for c in task.calls]
    return _ft_json(steps, shape)


_PLAN_RE = re.compile(r"Current plan \(version \d+\):\n(\{.*?\})\n\nCompleted steps", re.S)
_DONE_RE = re.compile(r"^- (s\d+) \(([\w-]+)\) succeeded", re.M)


def _map_steps(task: Task, steps: list[dict[str, Any]]) -> dict[str, str]:
    """Plan step id → task call key, matching tool and arguments (references mapped)."""
    id_to_key: dict[str, str] = {}
    for step in steps:
        for call in task.calls:
            if call.tool != step.get("tool") or call.key in id_to_key.values():
                continue
            args = step.get("args") or {}
            ok = set(args) == set(call.args)
            for name, want in call.args.items():
                got = args.get(name)
                if isinstance(want, Ref):
                    m = re.fullmatch(r"\$\{(s\d+)\}", str(got))
                    ok = ok and m is not None and id_to_key.get(m.group(1)) == want.key
                else:
                    ok = ok and got == want
            if ok:
                id_to_key[str(step.get("id"))] = call.key
                break
    return id_to_key


def forethought_replan(task: Task, prompt: str, shape: str = "classic") -> str:
    m = _PLAN_RE.search(prompt)
    steps = json.loads(m.group(1))["steps"] if m else []
    id_to_key = _map_steps(task, steps)
    completed = {id_to_key[sid] for sid, _ in _DONE_RE.findall(prompt) if sid in id_to_key}
    taken = {str(s.get("id")) for s in steps}
    ids = {key: sid for sid, key in id_to_key.items() if key in completed}
    n = 1
    new = []
    for call in task.calls:
        if call.key in completed:
            continue
        while f"s{n}" in taken:
            n += 1
        ids[call.key] = f"s{n}"
        taken.add(f"s{n}")
        new.append({"id": ids[call.key], "tool": call.tool, "args": _ft_args(call, ids)})
    return _ft_json(new, shape)


# ------------------------------------------------------------------------------------ ReAct


def _react(task: Task, messages: list[dict[str, Any]], parallel: bool) -> Reply:
    issued: dict[str, str] = {}  # tool_call id → call key
    for msg in messages:
        for tc in msg.get("tool_calls") or ():
            m = re.match(r"call_(c\d+)_", str(tc.get("id", "")))
            if m:
                issued[tc["id"]] = m.group(1)
    results: dict[str, Any] = {}
    for msg in messages:
        if msg.get("role") == "tool" and msg.get("tool_call_id") in issued:
            results[issued[msg["tool_call_id"]]] = _value(_text(msg))
    pending = [c for c in task.calls if c.key not in set(issued.values())]
    ready = [c for c in pending if all(d in results for d in c.deps())]
    if not pending:
        return Reply("react", task, content=final_answer(task, results))
    if not ready:
        return Reply("react", task, error="calls were issued but their results are missing")
    calls = []
    turn = len([m for m in messages if m.get("role") == "assistant"])
    for call in ready if parallel else ready[:1]:
        args = {k: results[v.key] if isinstance(v, Ref) else v for k, v in call.args.items()}
        calls.append(
            {
                "id": f"call_{call.key}_{turn}",
                "type": "function",
                "function": {"name": call.tool, "arguments": json.dumps(args)},
            }
        )
    return Reply("react", task, tool_calls=calls)


# ------------------------------------------------------------------------------------ LLMCompiler

LLMC_PLANNER_MARK = "create a plan to solve it with the utmost parallelizability"
END_OF_PLAN = "<END_OF_PLAN>"


def _llmc_arg(value: Any, ids: dict[str, int], numeric: bool) -> str:
    if isinstance(value, Ref):
        return f'"${ids[value.key]}"'
    return json.dumps(value) if not numeric or not isinstance(value, str) else value


def llmcompiler_plan(task: Task) -> str:
    ids = {c.key: i + 1 for i, c in enumerate(task.calls)}
    lines = []
    for call in task.calls:
        args = ", ".join(_llmc_arg(call.args[p], ids, p in NUMERIC_PARAMS) for p in PARAMS[call.tool])
        lines.append(f"{ids[call.key]}. {call.tool}({args})")
    lines.append(f"{len(task.calls) + 1}. join()")
    return "\n".join(lines) + "\n" + END_OF_PLAN


_OBS_RE = re.compile(r"^Observation: (.*)$", re.M)


def llmcompiler_join(task: Task, prompt: str) -> str:
    """The joiner sees the question then one ``Observation:`` per call, in plan order."""
    scratch = prompt.split(f"Question: {task.question}", 1)[-1]
    observed = _OBS_RE.findall(scratch)
    if len(observed) < len(task.calls):
        return "Thought: Some results are missing.\nAction: Replan(the missing results)\n"
    results = {c.key: _value(o) for c, o in zip(task.calls, observed, strict=False)}
    return f"Thought: I can answer the question now.\nAction: Finish({final_answer(task, results)})\n"


# ------------------------------------------------------------------------------------ dispatch


def _find_task(messages: list[dict[str, Any]], user_only: bool = True) -> Task | None:
    for msg in reversed(messages):
        if user_only and msg.get("role") != "user":
            continue
        task = by_question(_text(msg))
        if task is not None:
            return task
    return None


def reply(request: dict[str, Any]) -> Reply:
    messages = list(request.get("messages") or [])
    fmt = request.get("response_format") or {}
    system = "\n".join(_text(m) for m in messages if m.get("role") == "system")
    last_user = next((_text(m) for m in reversed(messages) if m.get("role") == "user"), "")
    if fmt.get("type") == "json_schema" and (fmt.get("json_schema") or {}).get("name") == "plan":
        # the goal is in the last user message, or (a repair round) in an earlier one
        task = by_question(last_user) or _find_task(messages)
        if task is None:
            return Reply("forethought-planner", None, error="no known goal in the user messages")
        shape = plan_shape((fmt.get("json_schema") or {}).get("schema") or {})
        if "Current plan (version" in last_user and "Completed steps" in last_user:
            return Reply("forethought-replanner", task, content=forethought_replan(task, last_user, shape))
        return Reply("forethought-planner", task, content=forethought_plan(task, shape))
    if request.get("tools"):
        task = _find_task(messages)
        if task is None:
            return Reply("react", None, error="no known question in the user messages")
        return _react(task, messages, parallel=request.get("parallel_tool_calls") is not False)
    if LLMC_PLANNER_MARK in system:
        task = _find_task(messages)
        if task is None:
            return Reply("llmcompiler-planner", None, error="no known question")
        if "Previous Plan:" in last_user:
            return Reply("llmcompiler-replanner", task, error="replanning is not scripted for LLMCompiler")
        return Reply("llmcompiler-planner", task, content=llmcompiler_plan(task))
    if "Observation:" in last_user and "Action: Finish(" in last_user:
        task = _find_task(messages)
        if task is None:
            return Reply("llmcompiler-joiner", None, error="no known question")
        return Reply("llmcompiler-joiner", task, content=llmcompiler_join(task, last_user))
    return Reply("unknown", None, error="request matches no scripted role")
