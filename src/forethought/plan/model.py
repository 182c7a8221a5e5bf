"""The plan artifact: frozen models for a plan and its steps, and the plan hash.

The plan is the contract between planner, executor, human and store. It is pure data (no I/O here):
loading and dumping files lives in ``planfile``, static checks in ``validate``, references in
``refs``. Models are frozen and forbid unknown fields so that a typo in a plan file is an error, not
a silently ignored key, and so that the hash a human approved cannot drift under them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property
from typing import Annotated, Any, Literal, NamedTuple, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from forethought.plan import references as refs

Effect = Literal["read_only", "mutating", "destructive"]
OnFailure = Literal["abort", "continue", "replan", "rollback"]
ApprovalMode = Literal["auto", "required"]
RetryOn = Literal["error", "timeout", "check"]

STEP_ID_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$"
_STEP_ID_RE = re.compile(STEP_ID_PATTERN)


def _normalize_step_id(value: Any) -> Any:
    # Seed plans and LLMCompiler use integer ids; we store strings so that `1` and "1" are one id.
    if isinstance(value, bool):
        return value  # let pydantic reject it: True is not a step id
    if isinstance(value, int):
        return str(value)
    return value


# The pattern first, the normalization around it: pydantic-core then checks the pattern inside
# its own string validator. In the other order the pattern applies to a function's result, which
# pydantic can only do through a Python wrapper: three Python calls a step on a large plan, and
# the plan's JSON Schema lost the pattern.
_PatternId = Annotated[str, Field(pattern=STEP_ID_PATTERN)]
StepId = Annotated[_PatternId, BeforeValidator(_normalize_step_id)]


def _ids_tuple(value: Any) -> Any:
    """``depends_on`` as given → its ids normalized, in the author's order, repeats dropped
    (``[a, a]`` means the same as ``[a]``); anything else is left for pydantic to reject."""
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return (_normalize_step_id(value),)
    if isinstance(value, (list, tuple)) or (
        isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray, Mapping))
    ):
        ids = tuple(_normalize_step_id(v) for v in value)
        if len(ids) < 2 or not all(isinstance(i, str) for i in ids):
            return ids  # one id, or something pydantic rejects (a list is no id, nor hashable)
        return tuple(dict.fromkeys(ids))
    return value


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy without the source's cached values (hash, references): they describe the source."""
        copied = super().model_copy(update=update, deep=deep)
        cached = [k for k in copied.__dict__ if k not in type(self).model_fields]
        for k in cached:
            del copied.__dict__[k]
        return copied


class RetryPolicy(_Frozen):
    """How often and how patiently a step is retried.

    Backoff is exponential (``backoff_s * 2**(attempt-1)`` capped at ``backoff_max_s``) with
    proportional jitter so that many retrying steps do not hammer a recovering service in lockstep.
    """

    attempts: int = Field(default=1, ge=1, le=100, description="Total attempts, first included.")
    backoff_s: float = Field(default=0.5, ge=0, le=3600)
    backoff_max_s: float = Field(default=30.0, ge=0, le=86400)
    jitter: float = Field(default=0.1, ge=0, le=1, description="Fraction of the delay randomized.")
    retry_on: tuple[RetryOn, ...] = Field(
        default=("error", "timeout"),
        description="Failure classes that are retried: tool error, timeout, failed check.",
    )

    def delay_before(self, attempt: int, rand: float) -> float:
        """Seconds to wait before ``attempt`` (2 = first retry); ``rand`` is in [0, 1)."""
        base = min(self.backoff_s * float(2 ** max(attempt - 2, 0)), self.backoff_max_s)
        return max(0.0, base * (1.0 + self.jitter * (2.0 * rand - 1.0)))


_NO_RETRY = RetryPolicy()


class Check(_Frozen):
    """Success criteria evaluated after a step succeeds; all given criteria must hold."""

    output_schema: dict[str, Any] | None = Field(
        default=None, alias="schema", description="JSON Schema the output must satisfy."
    )
    regex: str | None = Field(default=None, description="Must match the output's text form.")
    expr: str | None = Field(default=None, description="Safe expression over `output` that must be true.")
    exit_code: int | None = Field(default=None, description="Expected `exit_code` of the output.")
    critic: str | None = Field(default=None, description="Rubric for an optional model critic.")


class ToolCall(_Frozen):
    """A bare tool invocation, used for compensations (the undo of a step)."""

    tool: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


class Phase(_Frozen):
    """A sub-goal whose steps are planned only when it becomes ready (see ``plan.phases``).

    The top plan stays small: a phase names what it must achieve and which tools its sub-plan may
    use; the sub-plan is made with the outputs of earlier steps in view and spliced into the run's
    plan as a new version, approved by the same rules as any plan.
    """

    goal: str = Field(min_length=1)
    tools: tuple[str, ...] = Field(min_length=1, description="The only tools the sub-plan may call.")
    max_steps: int = Field(default=8, ge=1, le=100, description="Most steps the sub-plan may have.")


class Step(_Frozen):
    """One node of the plan DAG: a tool call, a bounded agent instruction, or a phase to plan later."""

    id: StepId
    description: str = ""
    tool: str | None = Field(default=None, min_length=1)
    agent: str | None = Field(default=None, min_length=1, description="Instruction for the executor model.")
    args: dict[str, Any] = Field(default_factory=dict)
    # Items are normalized by ``_ids_tuple`` already: the pattern alone is left to check.
    depends_on: Annotated[tuple[_PatternId, ...], BeforeValidator(_ids_tuple)] = ()
    check: Check | None = None
    # One shared default (the policy is frozen): a fresh one per step was ~0.5 KB of every step.
    retry: RetryPolicy = Field(default=_NO_RETRY)
    timeout_s: float | None = Field(default=None, gt=0, le=7 * 86400)
    on_failure: OnFailure = "abort"
    compensate: ToolCall | None = None
    approval: ApprovalMode = "auto"
    executor: str | None = None
    phase: Phase | None = None

    @model_validator(mode="after")
    def _exactly_one_action(self) -> Step:
        actions = (self.tool is not None) + (self.agent is not None) + (self.phase is not None)
        if actions != 1:
            raise ValueError("a step needs exactly one of `tool`, `agent` or `phase`")
        return self

    # Cached: the model is frozen. One walk of ``args`` answers every question validation and
    # the executor ask of them (references, bindings, dependencies, ``${env...}``, escapes,
    # malformed ones), and both read the same result when they get the same step object. One
    # cached value, not one per question: each first access of a cached property costs ~0.5 µs
    # (its lock), and a fresh plan pays it per step.
    #
    # Arguments without any reference (most steps of a large plan) share one value: a fresh
    # tuple per step was one more object per step for the cyclic collector to walk.
    @cached_property
    def _arg_facts(self) -> _ArgFacts:
        found = refs.scan(self.args, ("args",))
        if found is refs.NO_REFERENCES:
            return _NO_ARG_FACTS
        return _ArgFacts(found, _dependencies(self.depends_on, found), _bindings(found))

    @property
    def arg_scan(self) -> refs.ArgScan:
        """The references, ``${env...}`` references, escapes and malformed references in ``args``."""
        return self._arg_facts.scan

    @property
    def arg_references(self) -> tuple[refs.Reference, ...]:
        """Every reference in ``args``, located under ``("args", ...)``."""
        return self._arg_facts.scan.references

    @property
    def arg_bindings(self) -> tuple[tuple[str, str, refs.Reference | None], ...] | None:
        """(argument name, step id, reference if it has a path) per whole top-level reference.

        The common shape (``x: ${s1}``, ``rows: ${s1.items}``) lets the executor fill arguments
        in with one lookup each; None means some reference is nested or inside a longer string,
        so the general resolver walks the arguments — as it must when some string holds a
        ``$${`` escape, reference or not.
        """
        return self._arg_facts.bindings

    @property
    def uses_env(self) -> bool:
        """Whether ``args`` hold a ``${env.NAME}`` reference (resolved when the step starts)."""
        return bool(self._arg_facts.scan.env)

    def referenced_steps(self) -> set[str]:
        """Ids of steps whose outputs this step's args reference."""
        return {r.step_id for r in self._arg_facts.scan.references}

    def all_dependencies(self) -> tuple[str, ...]:
        """Explicit dependencies plus the ones implied by references, in a stable order."""
        implied = self._arg_facts.dependencies
        return self.depends_on if implied is None else implied


Binding = tuple[str, str, refs.Reference | None]


class _ArgFacts(NamedTuple):
    """What a step's arguments say, computed once per step object (see ``Step._arg_facts``)."""

    scan: refs.ArgScan
    dependencies: tuple[str, ...] | None  # None: ``depends_on`` alone (no references)
    bindings: tuple[Binding, ...] | None


# What a step whose arguments hold no reference, escape or ``${env...}`` says (shared).
_NO_ARG_FACTS = _ArgFacts(refs.NO_REFERENCES, None, ())


def _dependencies(depends_on: tuple[str, ...], found: refs.ArgScan) -> tuple[str, ...]:
    """``depends_on``, then the other referenced steps sorted by id."""
    if not found.references:
        return depends_on
    if len(found.references) == 1:
        step_id = found.references[0].step_id
        return depends_on if step_id in depends_on else (*depends_on, step_id)
    implied = {r.step_id for r in found.references}
    implied.difference_update(depends_on)
    if not implied:
        return depends_on
    return (*depends_on, *sorted(implied))


def _bindings(found: refs.ArgScan) -> tuple[Binding, ...] | None:
    """``Step.arg_bindings`` of a scan: None unless every reference is a whole top-level argument."""
    if found.escapes:
        return None
    out = []
    for ref in found.references:
        if not ref.whole or len(ref.location) != 2:
            return None
        out.append((str(ref.location[1]), ref.step_id, ref if ref.path else None))
    return tuple(out)


class Plan(_Frozen):
    """A versioned DAG of steps toward one goal, plus the steps that undo it."""

    goal: str
    steps: tuple[Step, ...] = ()
    rollback: tuple[Step, ...] = ()
    version: int = Field(default=1, ge=1)
    parent_version: int | None = Field(default=None, ge=1)
    metadata: dict[str, Any] = Field(default_factory=dict)

    def step(self, step_id: str) -> Step:
        for s in self.steps:
            if s.id == step_id:
                return s
        raise KeyError(step_id)

    def step_map(self) -> dict[str, Step]:
        return {s.id: s for s in self.steps}

    def iter_all_steps(self) -> Iterator[Step]:
        yield from self.steps
        yield from self.rollback

    def dependency_map(self) -> dict[str, tuple[str, ...]]:
        """Step id → every dependency (explicit and implied by references)."""
        return {s.id: s.all_dependencies() for s in self.steps}

    def dependents_map(self) -> Mapping[str, tuple[str, ...]]:
        """Step id → the steps that depend on it, in plan order (computed once; read-only).

        Ids that no step of the plan has (dangling dependencies) appear as keys too.
        """
        return self._wiring[0]

    def indegree_map(self) -> Mapping[str, int]:
        """Step id → how many dependencies it has (computed once; read-only)."""
        return self._wiring[1]

    @cached_property
    def _wiring(self) -> tuple[dict[str, tuple[str, ...]], dict[str, int]]:
        out: dict[str, list[str]] = {}
        indegree: dict[str, int] = {}
        for s in self.steps:
            deps = s.all_dependencies()
            indegree[s.id] = len(deps)
            for d in deps:
                waiting = out.get(d)
                if waiting is None:
                    out[d] = [s.id]
                else:
                    waiting.append(s.id)
        return {d: tuple(ids) for d, ids in out.items()}, indegree

    def to_data(self) -> dict[str, Any]:
        """Plain JSON-able data, with defaults omitted so files stay short and diffable."""
        return self.model_dump(mode="json", by_alias=True, exclude_defaults=True) | {"goal": self.goal}

    def canonical_json(self) -> str:
        """Deterministic JSON of the whole plan, defaults included, keys sorted.

        Defaults are included so that a change of a default in a future version of forethought
        changes the hash of plans relying on it: the approval was for the old behaviour.
        """
        return self._record[2]

    def record_data(self) -> dict[str, Any]:
        """The plan as events record it: full form, defaults included; the hash is of this.

        Computed once per plan object and shared: treat it as read-only.
        """
        return self._record[0]

    def plan_hash(self) -> str:
        """sha256 of the canonical JSON: what an approval is bound to."""
        return self._record[1]

    # The model is frozen, so its record, text and hash never change; a 10,000-step plan takes
    # ~0.1 s to dump and hash, and review, approval, the executor and the store all ask for the
    # hash. The canonical text is kept too: the store writes it (``plan_versions``) and the
    # secret screen of ``plan_proposed`` reads it, and encoding it again cost 0.4 s per 100,000
    # steps each time (the recorder holds it for the run anyway).
    @cached_property
    def _record(self) -> tuple[dict[str, Any], str, str]:
        data = self.model_dump(mode="json", by_alias=True)
        # Most steps keep the default retry policy: share one copy of it (the record is read-only),
        # a third of the record's memory on a large plan.
        shared = _NO_RETRY.model_dump(mode="json")
        defaults: list[dict[str, Any]] = []
        for group in ("steps", "rollback"):
            for step in data[group]:
                if step["retry"] == shared:
                    defaults.append(step)
                # `phase` came after plans were hashed and approved: a step without one records
                # (and hashes) exactly as before, so every existing approval stays bound.
                if step.get("phase", 0) is None:
                    del step["phase"]
        text = _canonical_text(data, defaults, shared)
        for step in defaults:
            step["retry"] = shared
        return data, sha256_of_text(text).hex(), text


# Stands in for the default retry policy while a plan's text is encoded (see ``_canonical_text``).
_DEFAULT_RETRY_MARK = "\x00forethought: the default retry policy\x00"
_DEFAULT_RETRY_TOKEN = json.dumps(_DEFAULT_RETRY_MARK)


def _canonical_text(data: dict[str, Any], defaults: list[dict[str, Any]], shared: dict[str, Any]) -> str:
    """``canonical_dumps(data)`` once every step in ``defaults`` holds ``shared`` as its retry.

    The default policy (five keys, three floats) was ~40 % of the encoding of a plan of simple
    steps: it is encoded once and put in place of a marker string. Exact: the marker's JSON
    token can only occur as a whole string token (a ``"`` inside a string is escaped), tokens do
    not overlap, so when the text holds it exactly as often as steps were given it, every
    occurrence is one of those steps' retry, and replacing them gives the plain encoding. A plan
    that holds the marker itself is encoded plainly.
    """
    if defaults:
        for step in defaults:
            step["retry"] = _DEFAULT_RETRY_MARK
        text = canonical_dumps(data)
        if text.count(_DEFAULT_RETRY_TOKEN) == len(defaults):
            return text.replace(_DEFAULT_RETRY_TOKEN, canonical_dumps(shared))
        for step in defaults:
            step["retry"] = shared
    return canonical_dumps(data)


# Text longer than this is hashed a slice at a time (``sha256_of_text``).
_HASH_SLICE_CHARS = 1 << 20


def sha256_of_text(text: str, prefix: bytes = b"") -> bytes:
    """``hashlib.sha256(prefix + text.encode("utf-8")).digest()``, without the whole encoded copy.

    A 100,000-step plan's text is 31 MB: its encoded copy (and a copy joined to ``prefix``) were
    freed at once, and glibc's allocator takes a freed block that large as a sign to serve every
    smaller request from its heap from then on, which it keeps resident (peak RSS of such an
    ``exec`` +90 MB). UTF-8 encodes each code point on its own, so the slices' encodings joined
    are the whole text's.
    """
    if len(text) <= _HASH_SLICE_CHARS:
        return hashlib.sha256(prefix + text.encode("utf-8")).digest()
    digest = hashlib.sha256(prefix)
    for start in range(0, len(text), _HASH_SLICE_CHARS):
        digest.update(text[start : start + _HASH_SLICE_CHARS].encode("utf-8"))
    return digest.digest()


def canonical_dumps(data: Any) -> str:
    """Canonical JSON text: sorted keys, no insignificant whitespace, UTF-8 kept."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def plan_from_data(data: Mapping[str, Any]) -> Plan:
    """Build a plan from native-format data (see ``planfile`` for seed-style import)."""
    return Plan.model_validate(data)
