"""Settings shared by every HTTP client the harness opens (the HTTP target's driver, ACP and MCP
over Streamable HTTP, the operator hooks)."""

from __future__ import annotations

import functools
import ssl

__all__ = ["KEEPALIVE_EXPIRY", "tls_context"]

# Seconds an idle connection is kept for reuse: under uvicorn's keep-alive of 5 s. At httpx's
# default (also 5 s) a request can go out on a connection the server is closing (a ReadError).
KEEPALIVE_EXPIRY = 1.0


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One TLS context per run: building one loads the system's CA certificates (tens of
    milliseconds), and runs open a client per connection and per call."""
    return ssl.create_default_context()
