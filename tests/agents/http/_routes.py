"""For the variants that add a route or a method to the reference's app."""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, create_app, serve

__all__ = ["run"]


def run(extend, service=None):
    """Serve the reference (or ``service``) with ``extend(app, service)`` applied to its app, on
    the --listen address of the command line."""
    host, _, port = sys.argv[sys.argv.index("--listen") + 1].rpartition(":")
    service = service or ReferenceService()
    service.configure()
    app = create_app(service)
    extend(app, service)
    asyncio.run(serve(app, host, int(port)))
