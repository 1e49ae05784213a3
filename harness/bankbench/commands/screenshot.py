"""`bankbench screenshot` (make screenshot): the report's first screen, checked.

The first screen of the report's index and of one run's page as a reader's browser shows them at
1280×800 (bankbench.publish.first_screen), a PNG each under .cache/screenshots/; fails unless each
shows its verdict and its first table's first three columns without scrolling.

See docs/method.md#the-report."""

import argparse
from pathlib import Path

from bankbench import paths
from bankbench.errors import UserError
from bankbench.publish import first_screen


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--page", type=Path, metavar="MD",
                        help="the page checked beside the index (default: the newest published run's)")
    parser.add_argument("--out", type=Path, default=first_screen.OUT_DIR, metavar="DIR",
                        help="where the PNGs go (default: .cache/screenshots/)")


def shown(path: Path) -> str:
    resolved = path.resolve()
    return str(resolved.relative_to(paths.ROOT)) if resolved.is_relative_to(paths.ROOT) else str(path)


def main(args: argparse.Namespace) -> int:
    index, newest_run = first_screen.default_pages()
    checked = [index, args.page or newest_run]
    if absent := [str(page) for page in checked if not page.is_file()]:
        raise UserError(f"no page {', '.join(absent)}")
    screens = first_screen.check(checked, args.out)
    for screen in screens:
        verdict = "; ".join(screen.failures) or "ok"
        measured = f"{screen.layout.describe()}: " if screen.layout else ""
        print(f"{shown(screen.page)}: {measured}{verdict}\n  {shown(screen.png)}")
    if failed := [shown(screen.page) for screen in screens if screen.failures]:
        raise UserError(f"the first screen at {first_screen.WIDTH}×{first_screen.HEIGHT} misses on "
                        f"{', '.join(failed)} (above)")
    return 0
