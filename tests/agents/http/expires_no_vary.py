"""Broken HTTP status service: every 200 status carries Expires two seconds after its Date (a
framework's "cache static-ish JSON briefly" default) and no Cache-Control or Vary. A shared cache
may answer anyone asking the same URL with the owner's status for those two seconds. The same
bug as public_cache_no_vary, said by the older header. Caught by
http.protocol.owner-everywhere#shared-cache.
"""

import pathlib
import sys
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def revalidated(self, request, response):
        response = super().revalidated(request, response)
        if response.status_code in (200, 304):  # a 304 carries the Expires its 200 would
            # The server's Date header says now; Expires two seconds later.
            response.headers["expires"] = format_datetime(
                datetime.now(UTC) + timedelta(seconds=2), usegmt=True
            )
        return response


if __name__ == "__main__":
    main(Service)
