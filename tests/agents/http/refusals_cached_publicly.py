"""Broken HTTP status service: its 404s carry Cache-Control: public, max-age=30 ("not found is
cheap to cache at the CDN"), and no Vary. Another user's 404 for a session is then what a shared
cache answers its owner with, for the same URL, for half a minute: the owner reads his own
session as unknown. Caught by http.protocol.owner-everywhere#shared-cache.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def revalidated(self, request, response):
        if response.status_code == 404:
            response.headers["cache-control"] = "public, max-age=30"
        return super().revalidated(request, response)


if __name__ == "__main__":
    main(Service)
