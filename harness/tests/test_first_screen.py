"""The report's first screen at 1280×800 in headless Chromium (bankbench.publish.first_screen, `make
screenshot`): the committed index and newest run page show their verdict and their first table's
first three columns without scrolling, and a page that does not is caught."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from PIL import Image

from bankbench import cli
from bankbench.publish import first_screen

pytestmark = [pytest.mark.integration, pytest.mark.untimed]

VERDICT = "# A page\n\nThe verdict in a sentence.\n\n"
TABLE = "| service | p99 ms | capacity it/s |\n|---|---|---|\n| go | 4 | 600 |\n"
# A token a browser cannot wrap: its column grows to about 3,000 px.
WIDE = f"| service | p99 ms | capacity it/s |\n|---|---|---|\n| {'9' * 330} | 4 | 600 |\n"
LOW = "A paragraph that pushes the table down.\n\n" * 20


@pytest.fixture(scope="module", autouse=True)
def chromium() -> None:
    """Debian's Chromium, installed as `make screenshot` installs it: CI runs as root with apt."""
    out = subprocess.run(["bash", first_screen.INSTALL], capture_output=True, text=True)
    if out.returncode:
        pytest.fail(f"no headless Chromium for the screenshots: {first_screen.INSTALL} failed:\n"
                    f"{out.stdout}{out.stderr}")


def page(tmp_path: Path, markdown: str) -> Path:
    path = tmp_path / "page.md"
    path.write_text(markdown)
    return path


def test_the_committed_reports_first_screens_show_the_verdict_and_the_table(tmp_path: Path) -> None:
    shown = first_screen.default_pages()
    screens = first_screen.check(shown, tmp_path)
    assert {screen.page: screen.failures for screen in screens} == dict.fromkeys(shown, ())
    assert all(screen.layout and screen.layout.columns >= 2 for screen in screens)
    for screen in screens:
        with Image.open(screen.png) as png:
            assert png.size == (first_screen.WIDTH, first_screen.HEIGHT)


@pytest.mark.parametrize(("markdown", "failure"), [
    (VERDICT + TABLE, None),
    (VERDICT + WIDE, "the first table's column 3 ends at"),
    (VERDICT + LOW + TABLE, "the first table's header row ends at"),
    (VERDICT, "no table"),
])
def test_a_page_fails_when_its_table_is_too_wide_too_low_or_missing(tmp_path: Path, markdown: str,
                                                                   failure: str | None) -> None:
    [screen] = first_screen.check([page(tmp_path, markdown)], tmp_path)
    assert [message.startswith(failure) for message in screen.failures] == ([True] if failure else [])


def test_the_command_fails_on_a_page_that_misses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wide = page(tmp_path, VERDICT + WIDE)
    assert cli.main(["screenshot", "--page", str(wide), "--out", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert f"{wide}: verdict at" in out and "README.md: verdict at" in out
    assert "misses on" in err and str(wide) in err
