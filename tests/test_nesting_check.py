"""``check_nesting`` (level by level) refuses exactly what the depth-first walk it replaced did."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forethought.errors import UserError
from forethought.plan import _yaml


def _depth_first(data: Any, limit: int) -> str | None:
    # The walk ``check_nesting`` used before: the message it raised, or None.
    if not isinstance(data, (dict, list)):
        return None
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value
        if depth > limit:
            return f"level {depth}"
        if depth == limit and children:
            return f"level {depth + 1}"
        stack.extend((v, depth + 1) for v in children if isinstance(v, (dict, list)))
    return None


_DATA = st.recursive(
    st.none() | st.integers() | st.text(max_size=2),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
    max_leaves=20,
)


@settings(max_examples=400)
@given(_DATA, st.integers(min_value=0, max_value=5))
def test_level_by_level_equals_depth_first(data: Any, limit: int) -> None:
    expected = _depth_first(data, limit)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_yaml, "MAX_NESTING", limit)
        if expected is None:
            _yaml.check_nesting(data, "plan.json")
        else:
            with pytest.raises(
                UserError, match=f"plan.json: {expected}: data nested more than {limit} levels"
            ):
                _yaml.check_nesting(data, "plan.json")
