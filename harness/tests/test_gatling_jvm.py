"""Gatling's JVM as the harness starts it (bankbench.load.gatling): its GC log goes into the
level's folder, so that a pause of the generator's own can be told from the service's (issue 35);
its heap and collector stay as set."""

from __future__ import annotations

from pathlib import Path

import pytest

from bankbench.load import console, gatling


def test_gatling_writes_its_gc_log_into_the_level_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started = []
    monkeypatch.setattr(gatling, "classpath", lambda: "classes:gatling.jar")
    monkeypatch.setattr(gatling.jmeter, "java", lambda: "java")
    monkeypatch.setattr(console.subprocess, "Popen", lambda cmd, **kwargs: started.append(cmd))
    level_dir = tmp_path / "go-u600-p95-r1"
    gatling.Run({"rate": 5}, level_dir)
    (cmd,) = started
    gc_log = f"-Xlog:gc*:file={level_dir / 'gatling-gc.log'}:time,uptime,level,tags"
    assert gc_log in cmd and cmd.index(gc_log) < cmd.index("-cp")  # a JVM option, before the main class
    assert cmd[1:cmd.index(gc_log)] == [*gatling.OPENS, *gatling.JVM_OPTIONS.split()]  # heap and GC as set
