"""The public API: ``from forethought import Agent, Plan, Step, tool, ForethoughtError, …``.

Every name in ``forethought.__all__`` imports from the package itself, the README's Python API
snippet runs its imports as written, and ``import forethought`` stays light: no model SDK, no MCP,
no llama.cpp runtime and no terminal UI is imported until something needs it.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import forethought

README = Path(__file__).resolve().parents[1] / "README.md"
HEAVY = ("openai", "anthropic", "mcp", "mcp_types", "xllamacpp", "rich")


@pytest.mark.parametrize("name", forethought.__all__)
def test_each_public_name_imports_from_the_package(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from forethought import {name}", namespace)
    assert namespace[name] is getattr(forethought, name)


def test_the_error_families_and_the_core_types_are_public() -> None:
    from forethought import (
        Agent,
        ForethoughtError,
        Plan,
        RunError,
        Step,
        UserError,
        tool,
    )

    assert issubclass(UserError, ForethoughtError) and issubclass(RunError, ForethoughtError)
    assert callable(tool) and callable(Agent)
    assert Plan(goal="g", steps=[Step(id="a", tool="t")]).steps[0].id == "a"


def _readme_python_api_snippet() -> str:
    section = README.read_text().split("## Python API", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README's Python API section has no python block"
    return match.group(1)


def test_the_readme_python_api_snippet_imports_work() -> None:
    snippet = _readme_python_api_snippet()
    # The whole snippet is valid Python (it awaits at top level, as in a notebook or asyncio REPL).
    tree = compile(snippet, "README.md", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert imports, "the snippet imports nothing"
    assert any(
        isinstance(n, ast.ImportFrom) and n.module == "forethought" and "Agent" in {a.name for a in n.names}
        for n in imports
    ), "Agent not from forethought"
    exec(compile(ast.Module(body=imports, type_ignores=[]), "README.md", "exec"), {})


def test_import_forethought_pulls_no_extra_and_no_terminal_ui() -> None:
    src = str(Path(forethought.__file__).resolve().parents[1])
    code = f"import sys, forethought; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": src},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
