"""An HTTP service that prints its URL and then never answers a request (it writes its pid to the
file named by its first argument, so a test knows when it is up and can look for it after, and
touches that name + ".asked" when a request arrives, so a test knows the suite waits on it)."""

import http.server
import os
import sys
import time
from pathlib import Path


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        Path(sys.argv[1] + ".asked").touch()
        time.sleep(120)

    do_POST = do_GET


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
Path(sys.argv[1]).write_text(str(os.getpid()))
print(f"http://127.0.0.1:{server.server_port}", flush=True)
server.serve_forever()
