"""Model adapters behind one small protocol; see ``base`` for the contract."""

from forethought.models.base import (
    Message,
    Model,
    ModelRequest,
    ModelResponse,
    StreamChunk,
    Usage,
    collect_stream,
)
from forethought.models.record import model_called_event, model_called_fields
from forethought.models.resolve import default_model_name, resolve_model
from forethought.models.scripted import ScriptedModel, ScriptedModelExhausted

__all__ = [
    "Message",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "ScriptedModel",
    "ScriptedModelExhausted",
    "StreamChunk",
    "Usage",
    "collect_stream",
    "default_model_name",
    "model_called_event",
    "model_called_fields",
    "resolve_model",
]
