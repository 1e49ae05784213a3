"""A level's raw results in S3 (runs/<run>/levels/<level>/raw/, as its load task's uploader puts
them), and their copy into the level's folder."""

from __future__ import annotations

import gzip
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bankbench.load import generators

RAW = "raw/"


def downloads(generator: str) -> dict[str, str]:
    """By their name in S3, the files that come into the level's folder: samples and log."""
    module = generators.MODULES[generator]
    return {module.SAMPLES: generators.LEVEL_SAMPLES[generator], module.LOG: module.LOG}


@dataclass
class RunStore:
    s3: Any
    bucket: str
    run_id: str

    def raw_prefix(self, level_id: str) -> str:
        """Where the load task of level `level_id` uploads (its RESULTS_PREFIX)."""
        return f"runs/{self.run_id}/levels/{level_id}/{RAW}"

    def raw_text(self, level_id: str, name: str) -> str:
        key = self.raw_prefix(level_id) + name
        return self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read().decode()

    def download(self, level_id: str, dest: Path, generator: str) -> None:
        """Copies the level's results into `dest`, the samples gzipped as locally."""
        for name, local in downloads(generator).items():
            body = self.s3.get_object(Bucket=self.bucket, Key=self.raw_prefix(level_id) + name)["Body"]
            opener = gzip.open if local.endswith(".gz") else open
            with opener(dest / local, "wb") as out:
                shutil.copyfileobj(body, out)
