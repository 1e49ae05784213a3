"""python -m bankpy: serves until SIGTERM or SIGINT, then shuts down gracefully; with --versions,
prints the versions it runs with as JSON (its registry entry's version reader) and exits."""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
from importlib.metadata import version

from bankpy import config
from bankpy.api import App
from bankpy.metrics import Metrics
from bankpy.store import Store
from bankpy.web import Server

SHUTDOWN_S = 10  # how long the requests being answered may take to finish after SIGTERM
log = logging.getLogger("bankpy")


def versions() -> dict[str, str]:
    return {"python": sys.version.split()[0],
            **{name: version(name) for name in ("psycopg", "psycopg-pool", "prometheus_client")}}


def main() -> int:
    if sys.argv[1:] == ["--versions"]:
        print(json.dumps(versions()))
        return 0
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)  # a down database would flood the log
    try:
        cfg = config.load(os.environ)
    except ValueError as err:
        print(f"bank-python: {err}", file=sys.stderr)
        return 1
    signals = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, signals)  # before any thread starts: all inherit it
    store = Store(cfg)  # connects in the background: a down database answers 503 until it is back
    server = Server(cfg.port, App(store, Metrics(store.stats, cfg.max_concurrent)), cfg.max_concurrent)
    threading.Thread(target=server.serve_forever, name="accept", daemon=True).start()
    log.info("listening on :%d, pool_size %d, max_concurrent_requests %d", cfg.port, cfg.pool_size,
             cfg.max_concurrent)
    signal.sigwait(signals)
    finished = server.stop(SHUTDOWN_S)
    store.close()
    log.info("stopped%s", "" if finished else f" (requests cut after {SHUTDOWN_S} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
