"""The service metrics: api/metrics.yaml and the registry's names read as the harness reads them, /metrics pages of both
services parsed (fixtures/metrics/*.txt, with the names the services publish), and the
per-second scraper against a small HTTP server that goes away mid-way."""

from __future__ import annotations

import csv
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bankbench import paths, registry
from bankbench.errors import UserError
from bankbench.measure import scrape

PAGES = Path(__file__).parent / "fixtures" / "metrics"


def test_every_service_names_every_series() -> None:
    series, dialects = registry.metric_series()
    assert {"requests", "pool_pending", "pool_acquires", "pool_acquire_seconds", "pool_timeouts",
            "gc_pauses", "gc_pause_seconds", "heap_bytes", "threads"} <= set(series)
    required = {key for key, about in series.items() if not about.get("optional")}
    for name in registry.names():
        assert required <= set(scrape.selectors(name)), name
    assert scrape.selectors("java")["heap_bytes"] == scrape.Selector("jvm_memory_used_bytes", (("area", "heap"),))
    assert scrape.selectors("java-virtual") == scrape.selectors("java")
    assert "jit_ms" in dialects["java"] and "jit_ms" not in dialects["go"]  # only a JIT has one


def test_selector_parsing() -> None:
    selector = scrape.parse_selector('jvm_memory_used_bytes{area="heap", id="G1 Old Gen"}')
    assert selector == scrape.Selector("jvm_memory_used_bytes", (("area", "heap"), ("id", "G1 Old Gen")))
    assert selector.matches("jvm_memory_used_bytes", {"area": "heap", "id": "G1 Old Gen", "x": "y"})
    assert not selector.matches("jvm_memory_used_bytes", {"area": "nonheap", "id": "G1 Old Gen"})
    with pytest.raises(UserError, match="label filter"):
        scrape.parse_selector("foo{area=heap}")
    with pytest.raises(UserError, match="unknown service"):
        scrape.selectors("unknown-service")


def test_go_page() -> None:
    figures = scrape.values((PAGES / "go.txt").read_text(), scrape.selectors("go"))
    assert figures == {
        "requests": 1527, "request_seconds": pytest.approx(24.76),  # /metrics itself left out
        "pool_max": 95, "pool_open": 95, "pool_active": 90, "pool_idle": 5, "pool_pending": 12,
        "pool_acquires": 50000, "pool_acquire_seconds": 12.5, "pool_timeouts": 3, "pool_created": 96,
        "gc_pauses": 420, "gc_pause_seconds": 0.0251,  # the summary's _count and _sum, not its quantiles
        "heap_bytes": 26214400, "threads": 1234,
        "requests_200": 1500, "requests_422": 20, "requests_503": 7,
    }
    assert list(figures)[-3:] == ["requests_200", "requests_422", "requests_503"]


def test_java_page() -> None:
    figures = scrape.values((PAGES / "java.txt").read_text(), scrape.selectors("java"))
    assert figures["requests"] == 1210  # 800 + 400 + 8 + 2, not the 59 scrapes
    assert {k: v for k, v in figures.items() if k.startswith("requests_")} == {
        "requests_200": 1200, "requests_404": 2, "requests_503": 8}
    assert figures["pool_created"] == 95  # HikariCP's creation timer count
    assert figures["pool_timeouts"] == 8 and figures["pool_pending"] == 150
    assert (figures["pool_acquires"], figures["pool_acquire_seconds"]) == (40000, 30.0)
    assert (figures["gc_pauses"], figures["gc_pause_seconds"]) == (31, 0.5)  # both collectors summed
    assert figures["heap_bytes"] == 62914560 + 41943040 + 2097152  # heap pools only
    assert figures["threads"] == 230


def test_a_missing_series_is_left_out() -> None:
    figures = scrape.values("# TYPE go_goroutines gauge\ngo_goroutines 7\n", scrape.selectors("go"))
    assert figures == {"threads": 7}


class Page(BaseHTTPRequestHandler):
    """Serves the Go fixture page on /metrics."""

    def do_GET(self) -> None:
        body = (PAGES / "go.txt").read_bytes()
        self.send_response(200 if self.path == "/metrics" else 404)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def test_scraper_writes_rows_and_survives_the_service_going_away(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    out = tmp_path / "service_metrics.csv"
    scraper = scrape.Scraper(out, f"http://127.0.0.1:{server.server_port}", "go", interval=0.05, timeout=0.5)
    scraper.start()
    wait_for(out, "up,1")
    server.shutdown()
    server.server_close()
    wait_for(out, "up,0")
    scraper.stop()
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == list(scrape.COLUMNS)
    up = [row["value"] for row in rows if row["series"] == "up"]
    assert "1" in up and up[-1] == "0"  # answered, then refused: recorded, not raised
    pending = {row["value"] for row in rows if row["series"] == "pool_pending"}
    assert pending == {"12"}
    counted = [row["value"] for row in rows if row["series"] == "pool_acquires"]
    assert counted[0] == "50000"  # whole counters, not 5e+04


def wait_for(path: Path, text: str, timeout: float = 20) -> None:
    """Until the scraper has written `text` into `path` (it flushes every row)."""
    deadline = time.monotonic() + timeout
    while not (path.exists() and text in path.read_text()):
        assert time.monotonic() < deadline, f"no {text!r} in {path} after {timeout} s"
        time.sleep(0.02)


def test_series_are_read_from_the_layout() -> None:
    assert paths.METRICS.name == "metrics.yaml" and paths.METRICS.is_file()
