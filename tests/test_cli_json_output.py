"""``--json`` output of large results is written in pieces; the text is the same as one ``dumps``."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forethought.interfaces.cli import _common
from forethought.interfaces.cli._common import json_pieces, print_json

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
_KEYS = st.text(max_size=6) | st.integers(min_value=-3, max_value=3) | st.booleans() | st.none()
_DATA = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(_KEYS, inner, max_size=9),
    max_leaves=60,
)


@settings(max_examples=300, deadline=None)
@given(data=_DATA, slice_entries=st.integers(min_value=1, max_value=4))
def test_pieces_join_to_exactly_one_dumps(data: Any, slice_entries: int) -> None:
    # Small slices, so that mappings with a few entries are sliced and opened too; keys of every
    # JSON-coercible kind (mixed keys are encoded whole).
    expected = json.dumps(data, ensure_ascii=False, default=str)
    assert "".join(json_pieces(data, slice_entries)) == expected


def test_a_summary_sized_output_is_sliced_and_reads_back_equal(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = {"status": "succeeded", "text": "é ✓", "tokens": 0}
    steps = {f"s{i}": {**entry, "output": i} for i in range(5000)}
    summary = {"run_id": "r", "status": "succeeded", "steps": steps, "cost_usd": 0.5, "when": object()}
    pieces = list(json_pieces(summary))
    assert len(pieces) > 5  # the steps went out a slice at a time
    assert "".join(pieces) == json.dumps(summary, ensure_ascii=False, default=str)
    out = io.StringIO()
    monkeypatch.setattr(_common.sys, "stdout", out)
    print_json(summary)
    text = out.getvalue()
    assert text.endswith("}\n") and "\n" not in text[:-1]  # large: compact, one line
    assert json.loads(text)["steps"] == steps


def test_small_output_is_still_indented_and_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(_common.sys, "stdout", out)
    print_json({"a": [1, 2], "key": "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"})
    text = out.getvalue()
    assert text.startswith('{\n  "a": [\n')
    assert "sk-proj" not in text and "[REDACTED:" in text


def test_a_large_output_is_written_as_it_is_encoded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the indentation limit nothing more is held: the first write comes before the last
    slice is encoded (the whole text held first was the run's memory peak at 100,000 steps)."""
    steps = {f"s{i}": {"status": "succeeded", "output": "x" * 100} for i in range(20_000)}
    summary = {"run_id": "r", "steps": steps}
    events: list[str] = []

    class Out(io.StringIO):
        def write(self, text: str) -> int:
            events.append("write")
            return super().write(text)

    real = _common.json_pieces

    def pieces(value: Any, slice_entries: int = _common.SLICE_ENTRIES) -> Any:
        for piece in real(value, slice_entries):
            events.append("encode")
            yield piece

    out = Out()
    monkeypatch.setattr(_common.sys, "stdout", out)
    monkeypatch.setattr(_common, "json_pieces", pieces)
    print_json(summary)
    assert out.getvalue() == json.dumps(summary, ensure_ascii=False) + "\n"
    assert events.index("write") < len(events) - 1 - events[::-1].index("encode")
