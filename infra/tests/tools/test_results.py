import gzip
import json

import boto3
from moto import mock_aws

from awsbench.results import RAW, RunStore

LEVEL = "levels/go-u4-p95-r1/"


@mock_aws
def test_a_run_downloads_into_the_results_layout(tmp_path):
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="results")
    store = RunStore(s3, "results", "20261122T013000Z-aws-smoke")
    # What the controller's uploader writes, then what the driver adds.
    for name, text in {"jmeter.csv": "timeStamp,elapsed\n1,2\n", "jmeter.log": "log\n",
                       "started_ms": "1", "ended_ms": "2", "exit_code": "0"}.items():
        store.put_text(LEVEL + RAW + name, text)
    store.put_json(LEVEL + "level.json", {"users": 4})
    store.put_json(LEVEL + "money.json", {"ok": True})
    store.put_metrics("go-u4-p95-r1", [{"t_ms": 1, "x": 2.5}], ("t_ms", "x"))
    store.put_json("manifest.json", {"env": "aws"})

    assert store.download(tmp_path) == 6

    level = tmp_path / LEVEL
    assert sorted(p.name for p in level.iterdir()) == [
        "jmeter.csv.gz", "jmeter.log", "level.json", "metrics.csv", "money.json"]
    assert gzip.decompress((level / "jmeter.csv.gz").read_bytes()) == b"timeStamp,elapsed\n1,2\n"
    assert (level / "metrics.csv").read_text() == "t_ms,x\n1,2.5\n"
    assert json.loads((tmp_path / "manifest.json").read_text()) == {"env": "aws"}
