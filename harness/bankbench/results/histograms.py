"""A level's requests as HdrHistograms (histograms.csv.xz), and the latencies they hold.

The one form of a load generator's results the analysis reads and git carries. Each row holds a V2
encoding, base64, not DEFLATEd as in interval logs, which would leave xz nothing in common between
rows. Latencies read back exact below 2,048 ms (whole ms, as both generators measure), above to
within 1/1,024.

See results/LAYOUT.md#histogramscsvxz and docs/method.md#latency-percentiles."""

import base64
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
from hdrh.histogram import HdrHistogram

from bankbench.results import files

FILE = "histograms.csv.xz"
DIGITS = 3
# JMeter's plan: 5 s to connect, 30 s to answer (bank.jmx); a longer sample widens the histograms.
HIGHEST_MS = 60_000
SAMPLE_DTYPES = {"timeStamp": "int64", "elapsed": "int32", "label": "category", "responseCode": "category",
                 "threadName": "category", "success": "bool"}
ROW_DTYPES = {"second": "int64", "label": "category", "status": "category", "ok": "bool", "requests": "int64",
              "end_ms": "int64", "iterations": "int64", "first_iteration_ms": "float64",
              "last_iteration_ms": "float64", "histogram": "string"}


class Histograms:
    """A level's rows (module doc), with each row's histogram decoded into its recorded values:
    `values` has a row per (row, value), `row` the index into `rows`, `value` ms, `count`."""

    def __init__(self, rows: pd.DataFrame):
        self.rows = rows.reset_index(drop=True)
        parts = [_recorded(text) for text in self.rows["histogram"]]
        empty = np.empty(0, np.int64)
        self.values = pd.DataFrame({
            "row": np.repeat(np.arange(len(parts)), [len(values) for values, _ in parts]),
            "value": np.concatenate([values for values, _ in parts] or [empty]),
            "count": np.concatenate([counts for _, counts in parts] or [empty]),
        })

    def latencies(self, rows: pd.Index | None = None) -> np.ndarray:
        """The latency of every request of `rows` (default all), ms, ordered by row then value."""
        values = self.values if rows is None else self.values[self.values["row"].isin(rows)]
        return np.repeat(values["value"].to_numpy(), values["count"].to_numpy())

    def seconds(self, rows: pd.Index | None = None) -> np.ndarray:
        """The `second` of every request of `rows`, aligned with `latencies(rows)`."""
        values = self.values if rows is None else self.values[self.values["row"].isin(rows)]
        return np.repeat(self.rows["second"].to_numpy()[values["row"].to_numpy()], values["count"].to_numpy())


def from_samples(samples: pd.DataFrame, measure_from_ms: int) -> Histograms:
    """Folds a generator's samples into histograms, seconds counted from `measure_from_ms`."""
    samples = samples.assign(second=(samples["timeStamp"] - measure_from_ms) // 1000,
                             end_ms=samples["timeStamp"] + samples["elapsed"],
                             status=samples["responseCode"].astype("string").fillna(""),
                             ok=samples["success"], first=False)
    samples.loc[samples.groupby("threadName", observed=True)["timeStamp"].idxmin(), "first"] = True
    highest = max(HIGHEST_MS, int(samples["elapsed"].max()) if len(samples) else 0)
    rows = []
    for key, group in samples.groupby(["second", "label", "status", "ok"], observed=True):
        histogram = HdrHistogram(1, highest, DIGITS)
        for value, count in group["elapsed"].value_counts().items():
            histogram.record_value(int(value), int(count))
        started = group.loc[group["first"], "timeStamp"]
        rows.append((*key, len(group), int(group["end_ms"].max()), len(started), started.min(),
                     started.max(), _without_deflate(histogram.encode())))
    return Histograms(pd.DataFrame(rows, columns=list(ROW_DTYPES)).astype(ROW_DTYPES))


def write(histograms: Histograms, path: Path) -> None:
    """Writes the rows as histograms.csv.xz (no time in its header: same samples, same bytes)."""
    histograms.rows.to_csv(path, index=False, compression="xz")


def convert(samples_csv: Path, measure_from_ms: int, path: Path) -> Histograms:
    """Reads a generator's samples file and writes its histograms to `path`."""
    histograms = from_samples(read_samples(samples_csv), measure_from_ms)
    write(histograms, path)
    return histograms


def read(path: Path) -> Histograms:
    return Histograms(_read_rows(path))


def read_samples(path: Path) -> pd.DataFrame:
    """A generator's samples in JMeter's CSV (jmeter.csv, or .csv.gz): SAMPLE_DTYPES, timeStamp the
    start (epoch ms), threadName one per iteration under the article and open models."""
    return files.read_csv(path, SAMPLE_DTYPES)


def _read_rows(path: Path) -> pd.DataFrame:
    return files.read_csv(path, ROW_DTYPES, all_columns=True, keep_default_na=False,
                          na_values={"first_iteration_ms": [""], "last_iteration_ms": [""]})


def _without_deflate(interval_log_form: bytes) -> str:
    """The V2 encoding, base64, of a histogram in interval log form (what hdrh's `encode` gives):
    base64 of an 8-byte header (cookie, length) and the DEFLATEd V2 encoding."""
    return base64.b64encode(zlib.decompress(base64.b64decode(interval_log_form)[8:])).decode()


def _recorded(text: str) -> tuple[np.ndarray, np.ndarray]:
    """The values a V2 encoding, base64, recorded (each bucket's lowest value) and their counts.
    hdrh reads only the DEFLATEd encoding: it goes in a zlib stream of stored blocks (level 0)."""
    histogram = HdrHistogram.decode(zlib.compress(base64.b64decode(text), 0), b64_wrap=False)
    counts = np.ctypeslib.as_array(histogram.counts)[:histogram.counts_len]
    where = np.flatnonzero(counts)
    values = np.fromiter((histogram.get_value_from_index(int(index)) for index in where), np.int64, len(where))
    return values, counts[where].astype(np.int64)
