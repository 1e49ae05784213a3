"""Executes results/results.ipynb headless (papermill, the venv's `python3` kernel) and saves it as HTML.

See docs/method.md#the-report."""

import tempfile
from pathlib import Path

from bankbench import paths
from bankbench.errors import UserError

NOTEBOOK = paths.ROOT / "results" / "results.ipynb"
KERNEL = "python3"  # ipykernel installs this kernelspec into the venv, running the venv's python


def render_html(run_dirs: list[Path], html_path: Path, notebook: Path = NOTEBOOK) -> Path:
    """Runs `notebook` with `run_dirs` as its parameter and writes it, outputs included, to `html_path`."""
    # Imported here: they take seconds to import, which only a notebook run should pay.
    import papermill
    from jupyter_client.kernelspec import NoSuchKernel
    from nbconvert import HTMLExporter

    with tempfile.TemporaryDirectory() as tmp:
        executed = Path(tmp) / notebook.name
        try:
            papermill.execute_notebook(
                notebook, executed, parameters={"run_dirs": [str(path) for path in run_dirs]},
                kernel_name=KERNEL, progress_bar=False, cwd=notebook.parent,
            )
        except NoSuchKernel as err:
            raise UserError(f"no Jupyter kernel {KERNEL!r}: run `make venv` ({err})") from err
        except papermill.PapermillExecutionError as err:
            raise UserError(f"{notebook.name} failed in cell {err.cell_index}: {err.ename}: {err.evalue}") from err
        body, _ = HTMLExporter(exclude_input_prompt=True, exclude_output_prompt=True).from_filename(str(executed))
    # Written aside and renamed, so a failed render never leaves half a page.
    partial = html_path.with_name(html_path.name + ".tmp")
    partial.write_text(body, encoding="utf-8")
    partial.replace(html_path)
    return html_path
