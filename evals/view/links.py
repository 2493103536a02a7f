"""Where pages link to: URLs for the server, relative file paths for the static export.

Both linkers answer the same questions, so one set of page renderers serves both. The export cannot run a
text search or a free sort; its linker returns None for those and pages leave such links out. ``report.html``
(the run page alone) links to nothing.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from urllib.parse import quote, urlencode

from evals.view.listing import PER_PAGE, ListQuery


def slug(text: str, limit: int = 80) -> str:
    """A file-name-safe, collision-free name for ``text`` (readable part plus a short hash)."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._")[:limit] or "x"
    return f"{readable}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


class ServerLinker:
    """Absolute URLs served by ``evals.view.server``."""

    dynamic = True

    def index(self) -> str:
        return "/"

    def compare(self) -> str:
        return "/compare"

    def leaderboard(self) -> str:
        return "/leaderboard"

    def run(self, rid: str) -> str:
        return f"/runs/{quote(rid, safe='')}/"

    def files(self, rid: str) -> str | None:
        return f"/runs/{quote(rid, safe='')}/files/"

    def samples(self, rid: str, q: ListQuery) -> str | None:
        params = q.params()
        return f"/runs/{quote(rid, safe='')}/samples" + ("?" + urlencode(params) if params else "")

    def sample(self, rid: str, sample_id: str, epoch: int, q: ListQuery | None = None) -> str:
        params = {"id": sample_id, **({"epoch": str(epoch)} if epoch else {})}
        if q is not None:
            params |= {f"l.{k}": v for k, v in q.params(page=1).items()}
        return f"/runs/{quote(rid, safe='')}/sample?" + urlencode(params)

    def item(self, sample_id: str) -> str:
        """The item across every run being viewed."""
        return "/item?" + urlencode({"id": sample_id})

    def sample_json(self, rid: str, sample_id: str) -> str:
        """The sample and all its stored results (every condition and epoch, traces) as one JSON file."""
        return f"/runs/{quote(rid, safe='')}/sample.json?" + urlencode({"id": sample_id})


class ExportLinker:
    """Paths relative to the page being written (``here``, relative to the export root)."""

    dynamic = False

    def __init__(self, here: str, default_vs: dict[str, str] | None = None) -> None:
        self.here = here
        self.default_vs = default_vs or {}

    def rel(self, target: str) -> str:
        return quote(posixpath.relpath(target, posixpath.dirname(self.here) or "."))

    def index(self) -> str:
        return self.rel("index.html")

    def compare(self) -> str:
        return self.rel("compare.html")

    def leaderboard(self) -> str:
        return self.rel("leaderboard.html")

    def run(self, rid: str) -> str:
        return self.rel(self.run_path(rid))

    def files(self, rid: str) -> str | None:
        return None

    def samples(self, rid: str, q: ListQuery) -> str | None:
        path = self.samples_path(rid, q)
        return None if path is None else self.rel(path)

    def sample(self, rid: str, sample_id: str, epoch: int, q: ListQuery | None = None) -> str:
        return self.rel(self.sample_path(rid, sample_id, epoch))

    @staticmethod
    def run_path(rid: str) -> str:
        return f"runs/{rid}/index.html"

    @staticmethod
    def sample_path(rid: str, sample_id: str, epoch: int) -> str:
        return f"runs/{rid}/samples/{slug(sample_id)}.e{epoch}.html"

    def samples_path(self, rid: str, q: ListQuery) -> str | None:
        """The pre-rendered list page for ``q``; None for what the export does not pre-render (search, sorts
        other than by id, a task and a family at once, other page sizes)."""
        if q.q or q.sort != "id" or q.per_page != PER_PAGE or (q.task and q.family):
            return None
        vs = "default" if q.vs in (None, self.default_vs.get(rid)) else slug(q.vs)
        scope = f"task-{slug(q.task)}" if q.task else f"family-{slug(q.family)}" if q.family else "all"
        return f"runs/{rid}/list/{vs}/{scope}/{q.outcome or 'all'}/{q.page}.html"


class ReportLinker:
    """``report.html``: one file beside the run, so no page of samples or files to link to (pages show counts
    without links)."""

    dynamic = False

    def files(self, rid: str) -> str | None:
        return None

    def samples(self, rid: str, q: ListQuery) -> str | None:
        return None


SiteLinker = ServerLinker | ExportLinker
"""The linkers of a site of pages (the server, the static export): they link to the runs, the comparison and
the sample pages."""
Linker = SiteLinker | ReportLinker
"""Any linker; ``report.html`` (one page) has no other page to link to."""
