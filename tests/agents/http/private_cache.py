"""Conforming HTTP status service: every 200 status carries Cache-Control: private, max-age=1 (a
browser may keep the owner's copy a second; no shared cache stores it), and, for a browser's
request (one with Origin), Cache-Control: public, max-age=1 with Vary: X-User-Id, Origin (a
shared cache keys it by caller). Defeats the assumption that a status with a freshness lifetime
leaks through a cache in front: must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def revalidated(self, request, response):
        response = super().revalidated(request, response)
        if response.status_code in (200, 304):  # a 304 carries the fields its 200 would
            if request.headers.get("origin"):
                response.headers["cache-control"] = "public, max-age=1"
                response.headers["vary"] = "X-User-Id, Origin"
            else:
                response.headers["cache-control"] = "private, max-age=1"
        return response


if __name__ == "__main__":
    main(Service)
