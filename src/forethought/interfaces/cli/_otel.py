"""The CLI's OpenTelemetry setup: an application may install the global tracer provider, the
library never does. Done only when ``OTEL_TRACES_EXPORTER`` names exporters (``console``,
``otlp``, … — each found through the SDK's ``opentelemetry_traces_exporter`` entry points, so
``otlp`` needs ``opentelemetry-exporter-otlp``); the SDK itself reads the other ``OTEL_*``
variables (service name, resource, endpoint, batching)."""

from __future__ import annotations

import os
from importlib.metadata import entry_points

from forethought._extras import has_extra, missing_extra
from forethought.errors import UserError


def configure_tracing_from_env() -> bool:
    names = [n.strip() for n in os.environ.get("OTEL_TRACES_EXPORTER", "").split(",") if n.strip()]
    names = [n for n in names if n != "none"]
    if not names:
        return False
    if not has_extra("otel"):
        raise missing_extra("OTEL_TRACES_EXPORTER", "otel")
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    found = {ep.name: ep for ep in entry_points(group="opentelemetry_traces_exporter")}
    provider = TracerProvider()  # shuts down (flushing its exporters) at exit
    for name in names:
        if name not in found:
            raise UserError(
                f"OTEL_TRACES_EXPORTER: no exporter named {name!r} is installed (have: "
                f"{', '.join(sorted(found)) or 'none'}); for otlp: pip install opentelemetry-exporter-otlp"
            )
        provider.add_span_processor(BatchSpanProcessor(found[name].load()()))
    trace.set_tracer_provider(provider)
    return True
