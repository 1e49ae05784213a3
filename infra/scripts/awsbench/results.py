"""A run's results in S3, under runs/<run>/ with the layout of results/LAYOUT.md, and their
download into results/runs/<run>/. S3 is where a run accumulates: the JMeter controller uploads
its raw files, the driver adds level.json, money.json and metrics.csv, then copies it all home."""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RAW = "raw/"  # what the controller's uploader writes: jmeter.csv, jmeter.log, started_ms ...


@dataclass
class RunStore:
    s3: Any
    bucket: str
    run_id: str

    @property
    def prefix(self) -> str:
        return f"runs/{self.run_id}/"

    def level_prefix(self, level_id: str) -> str:
        return f"{self.prefix}levels/{level_id}/"

    def put_json(self, key: str, doc: dict) -> None:
        self.put_text(key, json.dumps(doc, indent=2) + "\n")

    def put_text(self, key: str, text: str) -> None:
        self.s3.put_object(Bucket=self.bucket, Key=self.prefix + key, Body=text.encode())

    def get_text(self, key: str) -> str:
        return self.s3.get_object(Bucket=self.bucket, Key=self.prefix + key)["Body"].read().decode()

    def put_metrics(self, level_id: str, rows: list[dict], columns: tuple[str, ...]) -> None:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        self.put_text(f"levels/{level_id}/metrics.csv", out.getvalue())

    def download(self, dest: Path) -> int:
        """Copies the run into `dest`; the raw JMeter results become jmeter.csv.gz, the other raw
        files (timestamps, exit code) stay in S3. Returns the number of files written."""
        written = 0
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix):
            for item in page.get("Contents", []):
                target = local_path(dest, item["Key"][len(self.prefix):])
                if target is None:
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                body = self.s3.get_object(Bucket=self.bucket, Key=item["Key"])["Body"]
                opener = gzip.open if target.suffix == ".gz" else open
                with opener(target, "wb") as out:
                    shutil.copyfileobj(body, out)
                written += 1
        return written


def local_path(dest: Path, relative_key: str) -> Path | None:
    """Where an object of the run goes locally, or None for raw files that stay in S3."""
    level_dir, raw, name = relative_key.rpartition(RAW)
    if not raw:
        return dest / relative_key
    return {"jmeter.csv": dest / level_dir / "jmeter.csv.gz", "jmeter.log": dest / level_dir / "jmeter.log"}.get(name)
