import gzip

import boto3
import pytest
from moto import mock_aws

from bankbench.run.environments.aws.results import RunStore

LEVEL = "go-u4-p95-r1"


# What the uploader of each generator's task writes (infra/docker/*/entrypoint.sh): its samples
# and log or console, beside what stays in S3.
UPLOADED = {"jmeter": {"jmeter.csv": "timeStamp,elapsed\n1,2\n", "jmeter.log": "log\n", "controller.out": "out\n"},
            "gatling": {"gatling.csv": "timeStamp,elapsed\n1,2\n", "gatling.log": "console\n"}}


@mock_aws
@pytest.mark.parametrize("generator", sorted(UPLOADED))
def test_a_level_downloads_into_the_results_layout(tmp_path, generator):
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="results")
    store = RunStore(s3, "results", "20261122T013000Z-smoke")
    for name, text in {**UPLOADED[generator], "started_ms": "1", "ended_ms": "2", "exit_code": "0"}.items():
        s3.put_object(Bucket="results", Key=store.raw_prefix(LEVEL) + name, Body=text.encode())

    store.download(LEVEL, tmp_path, generator)

    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{generator}.csv.gz", f"{generator}.log"]
    assert gzip.decompress((tmp_path / f"{generator}.csv.gz").read_bytes()) == b"timeStamp,elapsed\n1,2\n"
    assert store.raw_text(LEVEL, "ended_ms") == "2"
    assert store.raw_prefix(LEVEL) == f"runs/20261122T013000Z-smoke/levels/{LEVEL}/raw/"
