"""W3C trace context as a client instrumented with OpenTelemetry sends it: the ``traceparent``,
``tracestate`` and ``baggage`` HTTP headers, which ACP reserves as root keys of ``_meta`` for the
same purpose. An implementation's tracing layer reads them, so a request that carries them takes a
path of its own, whose answers must be the same."""

from __future__ import annotations

__all__ = ["TRACE_CONTEXT"]

TRACE_CONTEXT = {
    "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "tracestate": "conformance=00f067aa0ba902b7",
    "baggage": "conformance.run=1",
}
