"""The JSON Schema the planner's output must satisfy, generated from the actual tool set.

Why so specific: small models break on anything open-ended. With constrained decoding this schema
is a grammar, so the model *cannot* emit an unknown tool, a misspelt argument, a missing required
argument, or a reference to a step that does not exist yet. Concretely:

- the plan is ``{"steps": [...]}``, one fixed-length positional tuple per allowed plan length
  (``$defs/step<k>`` is step k's schema): step k is an ``anyOf`` over one shape per tool, each
  with that tool's own argument schema — in the *classic* shape the fixed id ``s<k>`` and the
  tool name as ``const``s beside ``args``, in the *compact* shape one key, the tool's name,
  holding the arguments, the id being the position (``step_shape``);
- every argument may alternatively be a whole-value reference, drawn from an ``enum`` of
  references to *earlier* steps (``${s1}``, ``${s1.field}`` for the producing tool's declared
  output fields) whose type fits the argument;
- plain strings may not contain ``$`` (so no malformed or forward references sneak in), and with
  ``literals`` given (quoted strings, file names and numbers lifted from the goal) string
  arguments are restricted to those literals — the single most effective trick for a 135M model.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from forethought.plan._schema import fits, item_types, types_of
from forethought.plan.coverage import goal_literals as coverage_literals
from forethought.planning.step_shape import PlanShape, shape_for
from forethought.tools.base import ToolSpec

_NO_DOLLAR = "^[^$]*$"
# An apostrophe right after a letter or digit is a possessive or a contraction ("a.txt's
# total", "don't"), no quote: single quotes open and close only beside no word (as in
# ``plan.coverage``).
_QUOTED_RE = re.compile(r"\"([^\"\n]{1,200})\"|(?<!\w)'([^'\n]{1,200})'(?!\w)|`([^`\n]{1,200})`")
# A file name's extension starts with a letter (as in ``plan.coverage``): "12.5" is a number.
_FILE_RE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5})(?![\w/])")
# Parameters that take a *file* name ("directory" does not: a file name there is a mistake).
_PATHY_PARAM = re.compile(r"path|file|dest|src|source|target|output|input", re.I)
# Named otherwise ("location", "where"), a parameter still takes a file name when its own
# description says so, or when it is the only required text parameter of a tool whose description
# is about a file and its name is not one for content.
_FILE_WORD = re.compile(r"\bfiles?\b|\bpaths?\b", re.I)
_CONTENT_PARAM = re.compile(r"text|content|body|passage|data|note|message|value|query|word", re.I)
_DIR_PARAM = re.compile(r"dir|folder", re.I)
# A parameter named after a file format beside what the file holds ("statement_csv",
# "tickets_json", "notes_md") takes that file's name. A bare format name ("csv", "json") is as
# often the content itself, and a content word ("csv_text") says it is: neither counts.
_FORMAT_WORDS = frozenset(
    [
        "csv",
        "tsv",
        "json",
        "jsonl",
        "ndjson",
        "yaml",
        "yml",
        "toml",
        "ini",
        "xml",
        "html",
        "htm",
        "md",
        "markdown",
        "txt",
        "log",
        "xlsx",
        "xls",
        "pdf",
    ]
)
# A number stands alone: the parts of a date or a time ("2026-11-03", "10:30") are no numbers
# of their own (the token is one value, ``value_filters.value_words``).
_NUMBER_RE = re.compile(r"(?<![\w.:/-])(-?\d+(?:\.\d+)?)(?![\w.]|[-/:]\d)")
# "in docs", "under src/app", "of the reports folder": a directory named in the goal.
_DIR_PHRASE_RE = re.compile(
    r"\b(?:in|under|inside|within|of|from)\s+(?:the\s+)?(?:(?:folder|directory|dir)\s+)?"
    r"([A-Za-z0-9_][\w-]*(?:/[\w-]+)*/?)(?!\.\w)(?:\s+(?:folder|directory|dir))?\b"
)
_NOT_DIRS = frozenset(
    {
        "this",
        "that",
        "it",
        "them",
        "file",
        "files",
        "text",
        "words",
        "lines",
        "a",
        "an",
        "the",
        "my",
        "each",
        "all",
        "every",
        "current",
    }
)
_DIR_TOOL = re.compile(r"dir|folder|list", re.I)
_ROOT_WORDS = frozenset({"workspace", "root", "here", "project"})  # the tools' root directory


@dataclass(frozen=True)
class Literals:
    """Values lifted from the goal text, offered to the model as argument candidates."""

    strings: tuple[str, ...] = ()
    numbers: tuple[float, ...] = ()
    directories: tuple[str, ...] = ()


def goal_literals(goal: str) -> Literals:
    """Quoted strings, file-like names and numbers in ``goal``, in order of appearance."""
    strings: list[str] = []
    for m in _QUOTED_RE.finditer(goal):
        strings.append(next(g for g in m.groups() if g is not None))
    unquoted = _QUOTED_RE.sub(" ", goal)
    strings.extend(m.group(1) for m in _FILE_RE.finditer(unquoted))
    numbers = [float(m.group(1)) for m in _NUMBER_RE.finditer(unquoted)]
    # Text the goal gives as content ("with the text buy milk", "write hello world to x.txt"):
    # the coverage check will ask that a step uses it whole, so the planner offers it whole.
    strings.extend(lit.text for lit in coverage_literals(goal) if lit.kind == "content")
    strings = [s for s in strings if "$" not in s]
    dirs = [
        "." if m.group(1).lower() in _ROOT_WORDS else m.group(1).rstrip("/")
        for m in _DIR_PHRASE_RE.finditer(unquoted)
        if m.group(1).lower() not in _NOT_DIRS and not _FILE_RE.fullmatch(m.group(1))
    ]
    if re.search(r"\b(?:this|current)\s+(?:folder|directory|dir)\b", unquoted, re.I):
        dirs.append(".")
    return Literals(
        tuple(dict.fromkeys(strings)),
        tuple(dict.fromkeys(numbers)),
        tuple(dict.fromkeys(d for d in dirs if d)),
    )


def _stems(text: str) -> set[str]:
    # Crude stemming (first 5 letters) so "summary" meets "summarize" and "lines" meets "line".
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower().replace("_", " ")) if len(w) > 2}


def takes_file_name(spec: ToolSpec, pname: str) -> bool:
    """Whether ``pname`` of ``spec`` takes a file's name (not a directory's): by its name, or,
    named otherwise, by what its own or its tool's description says (``_FILE_WORD`` above)."""
    props = spec.input_schema.get("properties") or {}
    prop = props.get(pname)
    if not isinstance(prop, Mapping) or types_of(prop, spec.input_schema) != {"string"}:
        return False
    if _DIR_PARAM.search(pname) or (_DIR_TOOL.search(spec.name) and pname == "path"):
        return False
    if _PATHY_PARAM.search(pname) or _names_a_format(pname):
        return True
    if _FILE_WORD.search(str(prop.get("description") or "")):
        return True
    texts = [
        p
        for p in spec.input_schema.get("required") or ()
        if isinstance(props.get(p), Mapping) and types_of(props[p], spec.input_schema) == {"string"}
    ]
    if _CONTENT_PARAM.search(pname) or not _FILE_WORD.search(spec.description):
        return False
    if texts == [pname]:
        return True
    # A tool that writes content ("text", "content") to a file, with one other text parameter
    # ("name", "text"), names its file by that one. Only a tool with effects: a read-only one with
    # content beside another text ("pattern", "text") is searching the content, not naming a file.
    names = [p for p in texts if not _CONTENT_PARAM.search(p)]
    return spec.effect != "read_only" and len(texts) == 2 and names == [pname]


def _names_a_format(pname: str) -> bool:
    words = [w for w in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", pname) if w]
    return (
        len(words) > 1 and any(w.lower() in _FORMAT_WORDS for w in words) and not _CONTENT_PARAM.search(pname)
    )


def rank_tools(goal: str, tools: Mapping[str, ToolSpec]) -> dict[str, ToolSpec]:
    """Tools ordered by lexical relevance to ``goal`` (stable for ties).

    Small models lean towards whatever is listed first, in the prompt and in the grammar's
    alternatives; putting the likely tools first is cheap tool retrieval.
    """
    goal_stems = _stems(goal)
    has_file = any(_FILE_RE.fullmatch(v) for v in goal_literals(goal).strings)

    def score(item: tuple[int, str]) -> tuple[float, int]:
        index, name = item
        spec = tools[name]
        name_hits = len(goal_stems & _stems(name))
        desc_hits = len(goal_stems & _stems(spec.description))
        # A tool that can take a file named in the goal is a likely first step.
        params = (spec.input_schema.get("properties") or {}).keys()
        takes_file = has_file and any(takes_file_name(spec, p) for p in params)
        return (-(2.0 * name_hits + desc_hits + 1.5 * takes_file), index)

    order = sorted(enumerate(tools), key=score)
    return {name: tools[name] for _, name in order}


def min_steps_hint(goal: str, tools: Mapping[str, ToolSpec]) -> int:
    """A lower bound on the steps a goal needs, from which tools its words name.

    Tiny models end the plan after the first step; in strict mode this becomes ``minItems``.
    Each tool named by the goal ("count the *words*", "*write* …") is one step; if the goal
    names a file but none of those tools takes a file, reading it is one more.
    """
    goal_stems = _stems(goal)
    named = [spec for name, spec in tools.items() if goal_stems & _stems(name)]
    has_file = any(_FILE_RE.fullmatch(v) for v in goal_literals(goal).strings)
    takes_file = any(
        takes_file_name(spec, p) for spec in named for p in (spec.input_schema.get("properties") or {})
    )
    return max(1, len(named) + (1 if has_file and not takes_file else 0))


def step_ids(count: int, taken: Sequence[str] = ()) -> list[str]:
    """``count`` fresh positional ids ``s1, s2, …`` skipping ids already ``taken``."""
    out: list[str] = []
    n = 1
    used = set(taken)
    while len(out) < count:
        candidate = f"s{n}"
        if candidate not in used:
            out.append(candidate)
        n += 1
    return out


@dataclass(frozen=True)
class RefCandidate:
    text: str  # "${s1.lines}"
    types: frozenset[str] | None  # JSON types the referenced value may have; None = unknown
    items: frozenset[str] | None = None  # for an array: its items' JSON types; None = unknown


def reference_candidates(step_id: str, spec: ToolSpec | None) -> list[RefCandidate]:
    """Whole-value references into ``step_id``'s output: the output and its declared fields."""
    out_schema = spec.output_schema if spec is not None else None
    if not out_schema:
        return [RefCandidate("${" + step_id + "}", None)]
    whole = types_of(out_schema, out_schema)
    found = [RefCandidate("${" + step_id + "}", _frozen(whole), _frozen(item_types(out_schema, out_schema)))]
    props = out_schema.get("properties")
    if isinstance(props, Mapping):
        for name, sub in props.items():
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", str(name)):
                t = types_of(sub, out_schema)
                found.append(
                    RefCandidate(
                        "${" + step_id + "." + str(name) + "}",
                        _frozen(t),
                        _frozen(item_types(sub, out_schema)),
                    )
                )
    return found


def _frozen(types: set[str] | None) -> frozenset[str] | None:
    return frozenset(types) if types is not None else None


def _rewrite_refs(node: Any, prefix: str) -> Any:
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and v.startswith("#/$defs/"):
                out[k] = "#/$defs/" + prefix + v.removeprefix("#/$defs/")
            elif k == "$ref" and isinstance(v, str) and v.startswith("#/definitions/"):
                out[k] = "#/$defs/" + prefix + v.removeprefix("#/definitions/")
            else:
                out[k] = _rewrite_refs(v, prefix)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(v, prefix) for v in node]
    return node


class PlanSchemaBuilder:
    """Builds the output schema; ``defs`` collects every tool's ``$defs`` under unique names.

    ``shape`` is the step shape asked for (``step_shape``); ``self.shape`` is the one built,
    classic when a tool's name rules the compact one out. Classic by default: the embedded
    model's slot grammars (``decompose``) are written in it.
    """

    def __init__(
        self,
        tools: Mapping[str, ToolSpec],
        *,
        literals: Literals | None = None,
        describe: bool = False,
        max_string: int | None = None,
        shape: PlanShape = "classic",
    ) -> None:
        self.tools = dict(tools)
        self.shape: PlanShape = shape_for(self.tools, shape)
        self.max_string = max_string
        self.literals = literals or Literals()
        self.describe = describe
        self.defs: dict[str, Any] = {}
        self._args_inputs: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
        for name, spec in self.tools.items():
            schema = copy.deepcopy(spec.input_schema)
            prefix = re.sub(r"\W", "_", name) + "__"
            for key in ("$defs", "definitions"):
                for def_name, def_schema in (schema.pop(key, None) or {}).items():
                    self.defs[prefix + def_name] = _rewrite_refs(def_schema, prefix)
            schema = _rewrite_refs(schema, prefix)
            self._args_inputs[name] = (schema, spec.input_schema)

    def _literal(
        self, pname: str, prop: dict[str, Any], root: Mapping[str, Any], relaxed: bool, tool: str = ""
    ) -> dict[str, Any] | None:
        """The non-reference alternatives for one argument; None means "references only"."""
        types = types_of(prop, root)
        if types != {"string"} or any(k in prop for k in ("enum", "const", "pattern", "format")):
            return prop
        takes_dir = bool(_DIR_PARAM.search(pname)) or (bool(_DIR_TOOL.search(tool)) and pname == "path")
        if takes_dir and self.literals.directories and not relaxed:
            return {"type": "string", "enum": list(self.literals.directories)}  # named in the goal
        if self.literals.strings and not relaxed:
            # Type-directed pruning: file names go to path-like parameters and other literals to
            # the rest. A text parameter with no fitting literal must take an earlier step's
            # output, so "count the words in notes.txt" cannot become count_words("notes.txt").
            if takes_dir:
                return self._free({**prop, "pattern": r"^[^$.]*$|^\.$"})  # a directory
            spec = self.tools.get(tool)
            pathy = takes_file_name(spec, pname) if spec is not None else bool(_PATHY_PARAM.search(pname))
            fitting = [v for v in self.literals.strings if bool(_FILE_RE.fullmatch(v)) == pathy]
            if fitting:
                return {"type": "string", "enum": fitting}
            if not pathy:
                return None
        return self._free({**prop, "pattern": _NO_DOLLAR})

    def _free(self, prop: dict[str, Any]) -> dict[str, Any]:
        if self.max_string is not None and "maxLength" not in prop:
            return {**prop, "maxLength": self.max_string}
        return prop

    def _args_schema(
        self, tool: str, refs: Sequence[RefCandidate], relaxed: bool = False
    ) -> dict[str, Any] | None:
        """Argument schema for ``tool`` at a position with ``refs`` available; None = impossible."""
        schema, original = self._args_inputs[tool]
        props = schema.get("properties")
        if not isinstance(props, Mapping):
            return schema
        required = set(schema.get("required") or ())
        new_props: dict[str, Any] = {}
        for pname, pschema in props.items():
            want = types_of(pschema, original)
            want_items = item_types(pschema, original)
            literal = self._literal(
                str(pname), dict(pschema) if isinstance(pschema, Mapping) else {}, original, relaxed, tool
            )
            options = [r.text for r in refs if fits(r.types, r.items, want, want_items)]
            if literal is None and not options:
                if pname in required:
                    return None
                continue
            if literal is None:
                new_props[pname] = {"enum": options}
            else:
                new_props[pname] = {"anyOf": [literal, {"enum": options}]} if options else literal
        out = {k: v for k, v in schema.items() if k not in ("title", "description")}
        out["properties"] = new_props
        out.setdefault("additionalProperties", False)
        return out

    def _candidates(self, step_id: str, tool: str | None) -> list[RefCandidate]:
        if tool is not None:
            return reference_candidates(step_id, self.tools.get(tool))
        # The tool of an earlier *new* step is unknown when the schema is built (a static schema
        # cannot depend on what was generated), so offer every tool's fields; the validator
        # rejects a field the chosen tool lacks and the repair round fixes it.
        merged: dict[str, frozenset[str] | None] = {}
        for spec in self.tools.values():
            for cand in reference_candidates(step_id, spec):
                if cand.text in merged:
                    old = merged[cand.text]
                    merged[cand.text] = None if old is None or cand.types is None else old | cand.types
                else:
                    merged[cand.text] = cand.types
        return [RefCandidate(text, types) for text, types in merged.items()]

    def step_schema(self, step_id: str, earlier: Sequence[tuple[str, str | None]]) -> dict[str, Any]:
        """Schema of one step with id ``step_id``; ``earlier`` = (id, tool) it may reference."""
        refs = [c for sid, tool in earlier for c in self._candidates(sid, tool)]
        shapes = []
        args_by_tool = {tool: self._args_schema(tool, refs) for tool in self.tools}
        if all(a is None for a in args_by_tool.values()):
            args_by_tool = {tool: self._args_schema(tool, refs, relaxed=True) for tool in self.tools}
        for tool, args in args_by_tool.items():
            if args is None:
                continue
            props: dict[str, Any]
            if self.shape == "compact":
                props, required = {tool: args}, [tool]
            else:
                props = {"id": {"const": step_id}, "tool": {"const": tool}, "args": args}
                required = ["id", "tool", "args"]
            if self.describe:
                props["description"] = {"type": "string", "maxLength": 120}
            if earlier:
                props["depends_on"] = {
                    "type": "array",
                    "items": {"enum": [e[0] for e in earlier]},
                    "maxItems": len(earlier),
                }
            shapes.append(
                {
                    "type": "object",
                    "properties": props,
                    "required": required,
                    "additionalProperties": False,
                }
            )
        return shapes[0] if len(shapes) == 1 else {"anyOf": shapes}

    def plan_schema(
        self, new_ids: Sequence[str], prior: Sequence[tuple[str, str | None]] = (), *, min_steps: int = 1
    ) -> dict[str, Any]:
        """``{"steps": [...]}`` with one positional schema per id in ``new_ids``.

        ``prior`` are steps that already exist (completed steps during a replan): every new step
        may reference them. Step k may also reference new steps before it, never after.
        """
        if not new_ids:
            raise ValueError("a plan schema needs at least one step id (max_steps must be >= 1)")
        defs = dict(self.defs)
        refs = []
        earlier = list(prior)
        for k, sid in enumerate(new_ids, start=1):
            defs[f"step{k}"] = self.step_schema(sid, earlier)  # tool defs all contain "__"
            refs.append({"$ref": f"#/$defs/step{k}"})
            earlier.append((sid, None))
        # One fixed-length tuple per allowed plan length, not `prefixItems` + `items: false` +
        # min/maxItems: llama.cpp's server rejects a boolean `items` and reads `prefixItems` as a
        # tuple of exactly that length, ignoring min/maxItems. Each alternative pins its length,
        # so every provider reads the same language; the step schemas live once in `$defs`.
        lengths = range(max(1, min(min_steps, len(refs))), len(refs) + 1)
        tuples = [{"type": "array", "prefixItems": refs[:n], "minItems": n, "maxItems": n} for n in lengths]
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {"steps": tuples[0] if len(tuples) == 1 else {"anyOf": tuples}},
            "required": ["steps"],
            "additionalProperties": False,
            "$defs": defs,
        }
        return schema


def plan_json_schema(
    tools: Mapping[str, ToolSpec],
    *,
    max_steps: int = 6,
    literals: Literals | None = None,
    describe: bool = False,
    prior: Sequence[tuple[str, str | None]] = (),
    shape: PlanShape = "classic",
) -> dict[str, Any]:
    """Convenience wrapper: the schema for a fresh plan of up to ``max_steps`` steps."""
    builder = PlanSchemaBuilder(tools, literals=literals, describe=describe, shape=shape)
    ids = step_ids(max_steps, [p[0] for p in prior])
    return builder.plan_schema(ids, prior)
