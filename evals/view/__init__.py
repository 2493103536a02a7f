"""The tool-call trace viewer: ``python -m evals.view [RUN_DIR ...]`` serves run directories on 127.0.0.1 and
``--export DIR`` writes the same pages as static files. Pages: runs, one run (spec, comparison table with
intervals, tool use, gap chart, breakdowns), the sample list (filters, search, sort, pages) and one sample
(prompt, gold, both answers side by side, each answer's timeline, a sketch of its geometry). Standard library
only; no network access from the pages.
"""

from evals.view.app import Viewer
from evals.view.export import export
from evals.view.server import make_server, serve_in_thread

__all__ = ["Viewer", "export", "make_server", "serve_in_thread"]
