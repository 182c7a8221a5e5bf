"""``@tool``: a Python function (sync or async) as a forethought tool.

The input schema comes from the signature's type hints (validated by pydantic at call time), the
output schema from the return annotation, the description from the docstring. A parameter
annotated ``ToolContext`` is injected and hidden from the schema. Sync functions run on a daemon
worker thread (``_threads``: the run's pool of reused workers) so a slow one cannot stall the
scheduler, and one stuck past its timeout cannot keep the process from exiting; pass
``blocking=False`` for trivial ones.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, overload

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model

from forethought.errors import ToolError, UserError
from forethought.plan.model import Effect
from forethought.plan.tool_spec import digest_of
from forethought.tools._threads import run_blocking
from forethought.tools.base import Tool, ToolContext, ToolSpec

_NO_OUTPUT_SCHEMA = (Any, inspect.Signature.empty, None, type(None))


class PythonTool:
    """A tool backed by a Python callable; still callable directly as the original function."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        effect: Effect = "read_only",
        idempotent: bool | None = None,
        timeout_s: float | None = None,
        est_latency_s: float | None = None,
        blocking: bool = True,
        source: str | None = None,
    ) -> None:
        self.fn = fn
        self._is_async = inspect.iscoroutinefunction(fn)
        self._blocking = blocking
        hints = typing.get_type_hints(fn, include_extras=True)
        sig = inspect.signature(fn)
        fields: dict[str, Any] = {}
        self._ctx_param: str | None = None
        for pname, param in sig.parameters.items():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise UserError(
                    f"tool {fn.__name__!r}: *args/**kwargs are not supported; "
                    "declare each parameter with a type"
                )
            annotation = hints.get(pname, Any)
            if annotation is ToolContext:
                self._ctx_param = pname
                continue
            default = ... if param.default is param.empty else param.default
            fields[pname] = (annotation, default)
        tool_name = name or fn.__name__
        self._args_model: type[BaseModel] = create_model(
            f"{tool_name}_args", __config__=ConfigDict(extra="forbid"), **fields
        )
        ret = hints.get("return", inspect.Signature.empty)
        self._out_adapter: TypeAdapter[Any] | None = None
        output_schema = None
        if ret not in _NO_OUTPUT_SCHEMA:
            self._out_adapter = TypeAdapter(ret)
            output_schema = self._out_adapter.json_schema()
        input_schema = self._args_model.model_json_schema()
        input_schema.pop("title", None)
        doc = inspect.getdoc(fn) or ""
        self._spec = ToolSpec(
            name=tool_name,
            description=description if description is not None else doc,
            input_schema=input_schema,
            output_schema=output_schema,
            effect=effect,
            idempotent=(effect == "read_only") if idempotent is None else idempotent,
            timeout_s=timeout_s,
            est_latency_s=est_latency_s,
            source=source or f"python:{fn.__module__}",
            implementation_digest=implementation_digest(fn),
        )

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    @property
    def runs_in_thread(self) -> bool:
        """Whether a call takes a worker thread (a blocking sync function): the run that owns
        the tool starts its worker threads before its first step when any tool does."""
        return self._blocking and not self._is_async

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<tool {self._spec.name} ({self._spec.effect})>"

    async def invoke(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        try:
            parsed = self._args_model.model_validate(args)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"]) or "args"
            raise ToolError(f"invalid argument {loc}: {first['msg']}", retryable=False) from None
        kwargs = {k: getattr(parsed, k) for k in type(parsed).model_fields}
        if self._ctx_param:
            kwargs[self._ctx_param] = ctx
        if self._is_async:
            result = await self.fn(**kwargs)
        elif self._blocking:
            result = await run_blocking(self.fn, **kwargs)
        else:
            result = self.fn(**kwargs)
        if self._out_adapter is not None:
            return self._out_adapter.dump_python(result, mode="json")
        if isinstance(result, BaseModel):
            return result.model_dump(mode="json")
        return result


# ------------------------------------------------------------------------------- pinning the code
#
# What an approval of a Python tool pins (``implementation_digest``), and why:
#
# - The function's *bytecode* (``co_code``, constants, names, flags, nested code objects;
#   recursively), of the function and of every function it wraps (``__wrapped__``) or closes over.
#   It is exactly what will run: it cannot be stale, unlike ``inspect.getsource``, which re-reads
#   the file (through ``linecache``) after the module was compiled. It changes with any change to
#   the body. It also changes with the Python version; a Python upgrade between approval and run
#   then asks for a new approval, which is the safe direction.
# - The sha256 of the *module file* the function was compiled from, read when the tool is created
#   (at import time). What a call does also depends on the module's helpers, constants and imports;
#   pinning the file covers them, at the price of an edit anywhere in that file asking for a new
#   approval of its side-effecting tools. Code in *other* modules the function imports is not
#   pinned (docs/security.md says so).
# - The qualified name. Not the module name (a ``--tools`` file is imported under a name derived
#   from a per-process hash) nor the file's path (relative or absolute depending on the caller).
#
# Every part is stable across processes: a fresh interpreter computes the same digest, because
# approvals are checked in a later process than the one that recorded them.

_MAX_DEPTH = 8


def implementation_digest(fn: Callable[..., Any]) -> str:
    """Hash of the code that runs when ``fn`` is called (see the comment above)."""
    return digest_of({"kind": "python", **_callable_fingerprint(fn, _MAX_DEPTH)})


def _callable_fingerprint(fn: Any, depth: int) -> dict[str, Any]:
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType):  # a callable object: pin its class's __call__
        code = getattr(type(fn).__call__, "__code__", None)
    out: dict[str, Any] = {"qualname": getattr(fn, "__qualname__", type(fn).__qualname__)}
    if isinstance(code, types.CodeType):
        out["code"] = _code_fingerprint(code, depth)
        out["module_file"] = _file_sha256(code.co_filename)
    if depth > 0:
        wrapped = getattr(fn, "__wrapped__", None)
        if wrapped is not None and wrapped is not fn:
            out["wraps"] = _callable_fingerprint(wrapped, depth - 1)
        cells = getattr(fn, "__closure__", None) or ()
        closed = []
        for cell in cells:
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if inspect.isfunction(value) or inspect.ismethod(value):
                closed.append(_callable_fingerprint(value, depth - 1))
        if closed:
            out["closure"] = closed
    return out


def _code_fingerprint(code: types.CodeType, depth: int) -> dict[str, Any]:
    return {
        "co_code": code.co_code.hex(),
        "consts": [_const_fingerprint(c, depth) for c in code.co_consts],
        "names": list(code.co_names),
        "varnames": list(code.co_varnames),
        "freevars": list(code.co_freevars),
        "cellvars": list(code.co_cellvars),
        "flags": code.co_flags,
        "args": [code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount],
    }


def _const_fingerprint(value: Any, depth: int) -> Any:
    if isinstance(value, types.CodeType):
        return {"code": _code_fingerprint(value, depth)}
    if isinstance(value, tuple):
        return {"tuple": [_const_fingerprint(v, depth) for v in value]}
    if isinstance(value, frozenset):  # iteration order follows the per-process string hash seed
        return {"frozenset": sorted(digest_of(_const_fingerprint(v, depth)) for v in value)}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return {"int": hex(value)}  # any size (decimal text of huge ints is limited)
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    return {type(value).__name__: repr(value)}  # float, complex, Ellipsis: repr is exact


def _file_sha256(filename: str) -> str | None:
    """The module file's hash, or None when the code was not compiled from a file (``exec``)."""
    if not filename or filename.startswith("<"):
        return None
    try:
        return hashlib.sha256(Path(filename).read_bytes()).hexdigest()
    except OSError:
        return None


@overload
def tool(fn: Callable[..., Any], /) -> PythonTool: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    effect: Effect = "read_only",
    idempotent: bool | None = None,
    timeout_s: float | None = None,
    est_latency_s: float | None = None,
    blocking: bool = True,
) -> Callable[[Callable[..., Any]], PythonTool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    effect: Effect = "read_only",
    idempotent: bool | None = None,
    timeout_s: float | None = None,
    est_latency_s: float | None = None,
    blocking: bool = True,
) -> PythonTool | Callable[[Callable[..., Any]], PythonTool]:
    """Declare a tool: ``@tool`` or ``@tool(effect="mutating", timeout_s=30)``."""

    def wrap(f: Callable[..., Any]) -> PythonTool:
        return PythonTool(
            f,
            name=name,
            description=description,
            effect=effect,
            idempotent=idempotent,
            timeout_s=timeout_s,
            est_latency_s=est_latency_s,
            blocking=blocking,
        )

    return wrap(fn) if fn is not None else wrap


def load_python_tools(path: Path) -> list[Tool]:
    """Import a ``.py`` file and collect its module-level tools; errors become one-line UserErrors."""
    if not path.is_file():
        raise UserError(f"{path}: tools file not found; check the --tools path")
    mod_name = f"forethought_user_tools_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise UserError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(mod_name, None)
        raise UserError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    except UserError as exc:
        sys.modules.pop(mod_name, None)
        raise UserError(f"{path}: {exc}") from None
    except Exception as exc:
        sys.modules.pop(mod_name, None)
        raise UserError(f"{path}: importing the tools module failed: {type(exc).__name__}: {exc}") from None
    found: list[Tool] = []
    for value in vars(module).values():
        if isinstance(value, PythonTool):
            value._spec = value._spec.model_copy(update={"source": f"python:{path}"})
            found.append(value)
    if not found:
        raise UserError(
            f"{path}: no @tool functions found; decorate functions with "
            "`from forethought import tool` / `@tool`"
        )
    return found
