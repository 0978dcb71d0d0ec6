"""The built book for the browser tests and the compile-page benchmark: build it as `make book` does, serve it
on 127.0.0.1, and start Debian's Chromium the way every book test does."""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "build_book.py"
CHROMIUM = "/usr/bin/chromium"
# The flags that keep Debian's Chromium quiet and local on a machine with no outside network.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def run_build(root: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(html_dir: Path) -> Iterator[str]:
    """The folder over HTTP on 127.0.0.1 (a free port): yields the base URL."""
    handler = functools.partial(QuietHandler, directory=str(html_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
