"""A level's raw results in S3, where the JMeter controller's uploader puts them
(runs/<run>/levels/<level>/raw/: jmeter.csv, jmeter.log, started_ms, ended_ms, exit_code), and
their copy into the level's folder of results/runs/ (results/LAYOUT.md)."""

from __future__ import annotations

import gzip
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bankbench.load import generators, jmeter

RAW = "raw/"
DOWNLOADS = {jmeter.SAMPLES: generators.LEVEL_SAMPLES["jmeter"], jmeter.LOG: jmeter.LOG}  # the rest stays in S3


@dataclass
class RunStore:
    s3: Any
    bucket: str
    run_id: str

    def raw_prefix(self, level_id: str) -> str:
        """Where the controller of level `level_id` uploads (its RESULTS_PREFIX)."""
        return f"runs/{self.run_id}/levels/{level_id}/{RAW}"

    def raw_text(self, level_id: str, name: str) -> str:
        key = self.raw_prefix(level_id) + name
        return self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read().decode()

    def download(self, level_id: str, dest: Path) -> None:
        """Copies the level's JMeter results into `dest`, the samples gzipped as locally."""
        for name, local in DOWNLOADS.items():
            body = self.s3.get_object(Bucket=self.bucket, Key=self.raw_prefix(level_id) + name)["Body"]
            opener = gzip.open if local.endswith(".gz") else open
            with opener(dest / local, "wb") as out:
                shutil.copyfileobj(body, out)
