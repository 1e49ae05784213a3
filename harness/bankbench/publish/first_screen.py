"""The report's first screen as a browser shows it (`make screenshot`).

The report's first screen as a reader's browser shows it (`make screenshot`): a Markdown page
rendered as GitHub renders it (cmarkgfm) under github.com's measures, in headless Chromium at
1280×800. A page passes when its verdict (the first paragraph under the title), its first table's
header row and that table's first three columns show without scrolling, down or sideways.

See docs/method.md#the-report.
"""

from dataclasses import dataclass
from pathlib import Path

import cmarkgfm
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from bankbench import paths
from bankbench.errors import UserError
from bankbench.publish import pages
from bankbench.publish.report import DEFAULT_OUT
from bankbench.results import runs

WIDTH, HEIGHT = 1280, 800
COLUMNS = 3  # the columns a reader must see without scrolling sideways: service and two figures
OUT_DIR = paths.ROOT / ".cache" / "screenshots"  # git ignores it: the repository keeps the command
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")  # named: else Selenium Manager would download one
INSTALL = paths.ROOT / "scripts" / "chromium.sh"  # Debian's chromium and chromium-driver, as root

# github.com's Markdown measures (github-markdown-css): a content column of at most 1012 px, 16 px
# text, its fonts, and tables as blocks that scroll sideways within the column when too wide.
CSS = """\
body { margin: 0; background: #fff; }
.markdown-body { box-sizing: border-box; max-width: 1012px; margin: 0 auto; padding: 32px;
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
  font-size: 16px; line-height: 1.5; color: #1f2328; overflow-wrap: break-word; }
.markdown-body > :first-child { margin-top: 0; }
.markdown-body h1, .markdown-body h2, .markdown-body h3 { margin: 24px 0 16px; font-weight: 600;
  line-height: 1.25; }
.markdown-body h1 { font-size: 2em; padding-bottom: .3em; border-bottom: 1px solid #d1d9e0b3; }
.markdown-body h2 { font-size: 1.5em; padding-bottom: .3em; border-bottom: 1px solid #d1d9e0b3; }
.markdown-body h3 { font-size: 1.25em; }
.markdown-body p, .markdown-body ul, .markdown-body ol, .markdown-body table, .markdown-body pre {
  margin: 0 0 16px; }
.markdown-body ul, .markdown-body ol { padding-left: 2em; }
.markdown-body a { color: #0969da; text-decoration: none; }
.markdown-body img { max-width: 100%; }
.markdown-body code, .markdown-body pre { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo,
  Consolas, "Liberation Mono", monospace; font-size: 85%; }
.markdown-body code { padding: .2em .4em; border-radius: 6px; background: #818b981f; }
.markdown-body pre { padding: 16px; overflow: auto; line-height: 1.45; border-radius: 6px;
  background: #f6f8fa; }
.markdown-body pre code { padding: 0; font-size: 100%; background: transparent; }
.markdown-body table { display: block; width: max-content; max-width: 100%; overflow: auto;
  border-spacing: 0; border-collapse: collapse; font-variant: tabular-nums; }
.markdown-body th { font-weight: 600; }
.markdown-body th, .markdown-body td { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body tr:nth-child(2n) { background: #f6f8fa; }
"""
PAGE = """\
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><base href="{base}"><title>{title}</title>
<style>{css}</style></head>
<body><article class="markdown-body">{body}</article></body></html>
"""
# What the first screen shows, in CSS pixels from the page's top-left corner, read before any scroll.
MEASURE = """\
const article = document.querySelector("article");
const verdict = article.querySelector("h1 ~ p"), table = article.querySelector("table");
if (!verdict || !table) return {verdict: !!verdict, table: !!table};
const box = element => element.getBoundingClientRect();
const header = table.rows[0], shown = [...header.cells].slice(0, arguments[0]);
return {
  verdict_top: box(verdict).top, table_top: box(table).top, header_bottom: box(header).bottom,
  columns: header.cells.length, columns_right: Math.max(...shown.map(cell => box(cell).right)),
  table_width: table.scrollWidth,
  // The table scrolls within its own box, the page within the viewport less its scroll bar.
  visible_right: Math.min(document.documentElement.clientWidth, box(table).right),
};
"""
ABSENT = {"verdict": "no paragraph under the title", "table": "no table"}


@dataclass(frozen=True)
class Layout:
    """Where a page's verdict and first table stand on the first screen, in CSS pixels."""
    verdict_top: float
    table_top: float
    header_bottom: float  # of the table's header row
    columns: int
    columns_right: float  # the right edge of the first COLUMNS columns
    table_width: float  # all its columns, scrolled to or not
    visible_right: float  # the rightmost pixel of the table a reader sees without scrolling

    def failures(self) -> list[str]:
        """What keeps the verdict or the table's first columns off the first screen."""
        found = []
        if self.verdict_top >= HEIGHT:
            found.append(f"the verdict starts at {self.verdict_top:.0f} px, below the first screen ({HEIGHT} px)")
        if self.header_bottom > HEIGHT:
            found.append(f"the first table's header row ends at {self.header_bottom:.0f} px, below the "
                         f"first screen ({HEIGHT} px)")
        if self.columns_right > self.visible_right:
            found.append(f"the first table's column {min(COLUMNS, self.columns)} ends at {self.columns_right:.0f} "
                         f"px, past the {self.visible_right:.0f} px shown without scrolling sideways")
        return found

    def describe(self) -> str:
        return (f"verdict at {self.verdict_top:.0f} px, first table at {self.table_top:.0f} px "
                f"(header row to {self.header_bottom:.0f} px) of {HEIGHT}; its first "
                f"{min(COLUMNS, self.columns)} of {self.columns} columns end at {self.columns_right:.0f} px "
                f"of {self.visible_right:.0f} px shown (table {self.table_width:.0f} px wide)")


@dataclass(frozen=True)
class Screen:
    """One page's first screen: its PNG and what was measured there, or why nothing could be."""
    page: Path
    png: Path
    layout: Layout | None
    failures: tuple[str, ...]


def default_pages() -> list[Path]:
    """The report's index and the page of the newest run results/published.csv lists."""
    shown = [path for path in runs.listed() if pages.under_results(path).startswith("runs/")]
    if not shown:
        raise UserError("results/published.csv lists no run under results/runs/: name a page")
    newest = max(shown, key=lambda path: path.name)  # a run's id starts with its UTC stamp
    return [DEFAULT_OUT / "README.md", DEFAULT_OUT / pages.PAGES_DIR / f"{pages.page_name(newest)}.md"]


def check(pages_shown: list[Path], out_dir: Path = OUT_DIR) -> list[Screen]:
    """Each page's first screen, in one headless Chromium whose viewport is WIDTH×HEIGHT."""
    out_dir.mkdir(parents=True, exist_ok=True)
    if missing := [str(program) for program in (CHROMIUM, CHROMEDRIVER) if not program.exists()]:
        raise UserError(f"no {', '.join(missing)}: run `bash {INSTALL.relative_to(paths.ROOT)}` as root "
                        "(make screenshot runs it)")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    options.add_argument("--headless=new")
    options.add_argument("--no-sandbox")  # CI runs as root, where Chromium refuses its sandbox
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        # The viewport itself: a 1280×800 window shows 657 px of page (room for toolbars not drawn).
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
        return [shoot(driver, page, out_dir) for page in pages_shown]
    finally:
        driver.quit()


def shoot(driver: webdriver.Chrome, page: Path, out_dir: Path) -> Screen:
    """Renders `page`, saves its first screen as a PNG (and its HTML beside it) and measures it."""
    name = f"{page.parent.name}-{page.stem}"
    rendered = out_dir / f"{name}.html"
    body = cmarkgfm.github_flavored_markdown_to_html(page.read_text())  # as GitHub renders it
    base = page.parent.resolve().as_uri() + "/"  # its links and images relative to its own folder
    rendered.write_text(PAGE.format(base=base, title=page.stem, css=CSS, body=body))
    driver.get(rendered.as_uri())  # returns once the page has loaded, images included
    png = out_dir / f"{name}.png"
    driver.save_screenshot(str(png))
    found = driver.execute_script(MEASURE, COLUMNS)
    if "verdict_top" not in found:
        return Screen(page, png, None, tuple(ABSENT[key] for key, there in found.items() if not there))
    layout = Layout(**found)
    return Screen(page, png, layout, tuple(layout.failures()))
