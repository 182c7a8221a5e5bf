"""Turn a model name (``provider:model``, ``local``, ``local:/x.gguf``) into a ``Model``.

Names are what users type (``--model``, ``--planner-model``…); planner, executor and critic are
just three names resolved here. With nothing configured we prefer a running Ollama (a quick
loopback probe) and fall back to the embedded model, so the first run works with zero setup.

Every provider's SDK is an extra; the adapters import theirs only when built, and a missing one
is a one-line ``UserError`` naming the extra (see ``forethought._extras``).
"""

from __future__ import annotations

import os
import socket
from urllib.parse import urlsplit

from forethought._extras import has_extra
from forethought.errors import ModelError, UserError
from forethought.models.base import Model

OLLAMA_DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_OLLAMA_MODEL = "qwen2.5:7b"
PROVIDERS = ("openai", "anthropic", "ollama", "openai-compat", "local", "scripted")


def ollama_base_url() -> str:
    """The Ollama OpenAI-compatible base URL (``OLLAMA_HOST`` may omit the scheme or path)."""
    host = os.environ.get("OLLAMA_HOST") or OLLAMA_DEFAULT_HOST
    if "://" not in host:
        host = "http://" + host
    host = host.rstrip("/")
    return host if host.endswith("/v1") else host + "/v1"


def probe(url: str, timeout_s: float = 0.15) -> bool:
    """True if something accepts TCP connections at ``url``'s host and port (no request sent)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", port), timeout=timeout_s):
            return True
    except OSError:
        return False


def default_model_name() -> str:
    """``FORETHOUGHT_MODEL``, else a reachable local Ollama, else the embedded model.

    Ollama is spoken to through the OpenAI SDK, so without the ``openai`` extra a running Ollama
    is not the default: an install with only ``[local]`` keeps working on the embedded model.
    """
    configured = os.environ.get("FORETHOUGHT_MODEL")
    if configured:
        return configured
    if has_extra("openai") and probe(ollama_base_url()):
        return f"ollama:{os.environ.get('FORETHOUGHT_OLLAMA_MODEL', DEFAULT_OLLAMA_MODEL)}"
    return "local"


def resolve_model(name: str | None = None) -> Model:
    """Build the model ``name`` refers to; unknown providers are a one-line ``UserError``."""
    name = (name or default_model_name()).strip()
    provider, _, rest = name.partition(":")
    provider = provider.lower()
    try:
        if provider == "local":
            from forethought.models.local import LocalModel

            return LocalModel(rest or None)
        if not rest:
            raise UserError(
                f"model {name!r}: give a model after the provider, e.g. "
                f"`{provider}:MODEL` (known providers: {', '.join(PROVIDERS)})"
            )
        if provider == "openai":
            from forethought.models.openai import OpenAIModel

            return OpenAIModel(rest)
        if provider == "scripted":
            # scripted:/path/replies.json — a JSON list of reply texts, for testing a setup end to
            # end (CLI included) without a model; an unexpected extra call is an error.
            from forethought.models.scripted import ScriptedModel

            return ScriptedModel.from_file(rest)
        if provider == "openai-compat":
            # openai-compat:MODEL talks to FORETHOUGHT_OPENAI_BASE_URL (vLLM, llama.cpp server…).
            from forethought.models.openai import OpenAIModel

            base = os.environ.get("FORETHOUGHT_OPENAI_BASE_URL")
            if not base:
                raise UserError(
                    f"model {name!r}: set FORETHOUGHT_OPENAI_BASE_URL to the server's "
                    "/v1 URL, e.g. http://127.0.0.1:8000/v1"
                )
            return OpenAIModel(rest, provider="openai-compat", base_url=base, key_env=None)
        if provider == "ollama":
            from forethought.models.openai import OpenAIModel

            return OpenAIModel(rest, provider="ollama", base_url=ollama_base_url(), key_env=None)
        if provider == "anthropic":
            from forethought.models.anthropic import AnthropicModel

            return AnthropicModel(rest)
    except ModelError as exc:
        # A missing key or weights is a configuration mistake the user fixes: exit 2, one line.
        raise UserError(str(exc)) from None
    raise UserError(
        f"model {name!r}: unknown provider {provider!r}; use one of "
        f"{', '.join(PROVIDERS)} (e.g. openai:gpt-4o-mini, ollama:qwen2.5:7b, local)"
    )
