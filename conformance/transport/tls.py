"""One TLS context for every HTTP client the harness opens: building one loads the system's CA
certificates (tens of milliseconds), and runs open a client per connection and per call."""

from __future__ import annotations

import functools
import ssl

__all__ = ["tls_context"]


@functools.cache
def tls_context() -> ssl.SSLContext:
    return ssl.create_default_context()
