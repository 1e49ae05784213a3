"""A level's raw results in S3 (runs/<run>/levels/<level>/raw/), and their copy into its folder.

See docs/aws.md#how-results-come-back."""

import gzip
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bankbench.load import generators


@dataclass
class RunStore:
    s3: Any
    bucket: str
    run_id: str

    def raw_prefix(self, level_id: str) -> str:
        """Where the load task of level `level_id` uploads (its RESULTS_PREFIX)."""
        return f"runs/{self.run_id}/levels/{level_id}/raw/"

    def raw_text(self, level_id: str, name: str) -> str:
        key = self.raw_prefix(level_id) + name
        return self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read().decode()

    def download(self, level_id: str, dest: Path, generator: str) -> None:
        """Copies the level's samples and log into `dest`, the samples gzipped as locally."""
        module = generators.MODULES[generator]
        local_names = {module.SAMPLES: generators.LEVEL_SAMPLES[generator], module.LOG: module.LOG}
        for name, local in local_names.items():
            body = self.s3.get_object(Bucket=self.bucket, Key=self.raw_prefix(level_id) + name)["Body"]
            opener = gzip.open if local.endswith(".gz") else open
            with opener(dest / local, "wb") as out:
                shutil.copyfileobj(body, out)
