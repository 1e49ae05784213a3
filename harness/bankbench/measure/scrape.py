"""Per-second samples of the service's own `GET /metrics`, while a level runs.

Each key's matching samples summed (its registry entry's names of api/metrics.yaml's series:
`jvm_memory_used_bytes{area="heap"}`) and the answered requests per HTTP status, long form
(`t_ms,series,value`: statuses are not known ahead).

See api/metrics.md and results/LAYOUT.md#service_metricscsvxz."""

import csv
import re
import time
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bankbench import paths, registry
from bankbench.errors import UserError
from bankbench.measure.resources import Background

COLUMNS = ("t_ms", "series", "value")
UP = "up"  # series: 1 when the scrape answered, 0 when it did not (service down, timeout)
STATUS_PREFIX = "requests_"  # series requests_<status>: answered requests by HTTP status
REQUESTS_KEY = "requests"  # the key whose samples carry the `status` label
SKIPPED_URI = "/metrics"  # the scraper's own requests are no part of the load
SELECTOR = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?$")
LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')


class Selector(NamedTuple):
    """A sample name and the labels a matching sample must have (others may be there too)."""

    name: str
    labels: tuple[tuple[str, str], ...] = ()

    def matches(self, name: str, labels: dict[str, str]) -> bool:
        return name == self.name and all(labels.get(k) == v for k, v in self.labels)


def parse_selector(text: str) -> Selector:
    """`name` or `name{label="value",...}`, as api/metrics.yaml writes it."""
    if not (match := SELECTOR.match(text.strip())):
        raise UserError(f"{paths.METRICS}: {text!r} is not a metric name with an optional label filter")
    name, filters = match.groups()
    labels = tuple(LABEL.findall(filters or ""))
    if filters and not labels:
        raise UserError(f"{paths.METRICS}: cannot read the label filter of {text!r}")
    return Selector(name, labels)


def selectors(service: str) -> dict[str, Selector]:
    """Key -> selector of the service named `service`, in the order of api/metrics.yaml."""
    return {key: parse_selector(name) for key, name in registry.get(service).metrics.items()}


def values(text: str, wanted: dict[str, Selector]) -> dict[str, float]:
    """Each key's matching samples summed, and `requests_<status>` per status of the requests'."""
    # Each sample checked against its own name's selectors only: a page has hundreds of samples.
    by_name: dict[str, list[tuple[str, Selector]]] = defaultdict(list)
    for key, selector in wanted.items():
        by_name[selector.name].append((key, selector))
    requests = wanted.get(REQUESTS_KEY)
    sums: defaultdict[str, float] = defaultdict(float)
    statuses: defaultdict[str, float] = defaultdict(float)
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.labels.get("uri") == SKIPPED_URI:
                continue
            for key, selector in by_name.get(sample.name, ()):
                if selector.matches(sample.name, sample.labels):
                    sums[key] += sample.value
            if requests and requests.matches(sample.name, sample.labels) and "status" in sample.labels:
                statuses[STATUS_PREFIX + sample.labels["status"]] += sample.value
    # Series order, then statuses in numeric order: the same order in every row of the file.
    return {key: sums[key] for key in wanted if key in sums} | dict(sorted(statuses.items()))


class Scraper(Background):
    """Appends the service's figures to service_metrics.csv once a second until stopped; a scrape
    that fails (a fault restarting the service, or no answer within `timeout`) is `up` 0."""

    def __init__(self, out: Path, url: str, service: str, interval: float = 1.0, timeout: float = 2.0):
        super().__init__()
        self.out, self.url, self.interval, self.timeout = out, f"{url}/metrics", interval, timeout
        self.wanted = selectors(service)

    def run(self) -> None:
        with open(self.out, "w", newline="") as f, httpx.Client(timeout=self.timeout) as client:
            writer = csv.writer(f)
            writer.writerow(COLUMNS)
            due = time.monotonic() + self.interval
            while not self.stopped.wait(max(due - time.monotonic(), 0)):
                figures = self.scrape(client)
                t_ms = int(time.time() * 1000)
                writer.writerow([t_ms, UP, int(figures is not None)])
                writer.writerows([t_ms, series, f"{value:.15g}"] for series, value in (figures or {}).items())
                f.flush()
                # On the beat; after a scrape slower than the interval, the missed beats are skipped.
                due += self.interval
                if due < time.monotonic():
                    due = time.monotonic() + self.interval

    def scrape(self, client: httpx.Client) -> dict[str, float] | None:
        """The figures of one page, or None when there is no readable page."""
        try:
            response = client.get(self.url)
            response.raise_for_status()
            return values(response.text, self.wanted)
        except (httpx.HTTPError, ValueError):
            return None
