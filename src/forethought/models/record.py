"""Build the ``model_called`` event payload for one call, recorded whole so a replay needs no model.

The caller (planner, executor, critic) owns the run id and sequence numbers, so this returns the
fields, not a sequenced event; ``model_called_event`` wraps them when the caller has both. API keys
never reach here: requests hold messages and options only, and headers are never recorded.
"""

from __future__ import annotations

from typing import Any

from forethought.events.kinds import ModelCalled
from forethought.models.base import ModelRequest, ModelResponse


def model_called_fields(
    role: str, request: ModelRequest, response: ModelResponse, *, step_id: str | None = None
) -> dict[str, Any]:
    """Keyword arguments for ``events.ModelCalled`` (all but run_id/seq/ts/plan_version)."""
    return {
        "role": role,
        "model": response.model,
        "step_id": step_id,
        "request": request.model_dump(mode="json", exclude_defaults=True),
        "response": response.model_dump(mode="json", exclude={"raw"}),
        "input_tokens": response.usage.input_tokens,
        "output_tokens": response.usage.output_tokens,
        "cost_usd": response.cost_usd,
        "latency_s": response.latency_s,
    }


def model_called_event(
    run_id: str,
    seq: int,
    role: str,
    request: ModelRequest,
    response: ModelResponse,
    *,
    step_id: str | None = None,
    plan_version: int = 1,
) -> ModelCalled:
    return ModelCalled(
        run_id=run_id,
        seq=seq,
        plan_version=plan_version,
        **model_called_fields(role, request, response, step_id=step_id),
    )


def response_from_record(fields: dict[str, Any]) -> ModelResponse:
    """Rebuild the response recorded by ``model_called_fields`` (for replay)."""
    return ModelResponse.model_validate(fields["response"])
