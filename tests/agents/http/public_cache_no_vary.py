"""Broken HTTP status service: to let a CDN absorb dashboards' polling, every 200 status carries
Cache-Control: public, max-age=1, stale-while-revalidate=5 and no Vary. The status depends on the
x-user-id header (another user gets 404), so a shared cache following these directives answers
anyone asking the same URL with the owner's status. Certified before (blind round 13): no case
read the caching directives, and the suite talks to the service directly. Caught by
http.protocol.owner-everywhere#shared-cache.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def revalidated(self, request, response):
        response = super().revalidated(request, response)
        if response.status_code in (200, 304):
            response.headers["cache-control"] = "public, max-age=1, stale-while-revalidate=5"
        return response


if __name__ == "__main__":
    main(Service)
