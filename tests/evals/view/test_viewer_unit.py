"""The viewer without a browser: escaping on every page, refused paths, outcomes, pagination, sketches,
the static export's links, and the server's binding and Host check."""

from __future__ import annotations

import html
import http.client
import json
import os
import re
import shutil
import sqlite3
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from viewer_fixture_run import build_run

from agents.trace import ModelCallEvent, ToolCallEvent, TraceEvent
from evals.records import RunSpec, SampleResult
from evals.report import build_report, compare, write_results_json
from evals.run_reader import RunReader
from evals.store import RunStore
from evals.view.__main__ import main
from evals.view.app import Viewer
from evals.view.export import export
from evals.view.links import ServerLinker
from evals.view.listing import Cell, ListQuery, Row, RunIndex, classify
from evals.view.markup import JS, Safe, esc, h
from evals.view.runs import find_runs
from evals.view.server import is_loopback, make_server, serve_in_thread
from evals.view.sketch import extract, render
from evals.view.summary import Summary, summarise_run
from tasks.records import Message, Parsed, Sample, Score

EVIL = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'


# ---------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def fixture_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[str]]]:
    run_dir = tmp_path_factory.mktemp("viewer") / "run"
    return run_dir, build_run(run_dir)


def build_evil_run(run_dir: Path) -> None:
    """A hand-written run with markup in every field a model, a tool or a task could fill."""
    task, cond = f"evil.{EVIL}", f"tools[{EVIL}]"
    store = RunStore(run_dir)
    store.write_spec("evil", RunSpec(model=f"m/{EVIL}", tasks=[task], conditions=["intrinsic", cond],
                                     versions={EVIL: EVIL}, git_revision=EVIL))
    samples = [Sample(id=f"{task}/test/{i}{EVIL}", task=task, messages=(
        Message(role="system", content=EVIL), Message(role="user", content=f"Q {EVIL}")),
        target={EVIL: EVIL}, choices=(EVIL, "b"),
        payload={"points": [[10.0, 20.0], [11.0, 21.0]], "cities": [EVIL, "B"], EVIL: EVIL,
                 "polygon": [[0, 0], [0, 1], [1, 1]]},
        meta={"continent": EVIL if i % 2 else "EU", EVIL: i}) for i in range(4)]
    store.add_samples(samples)
    for i, s in enumerate(samples):
        for c in ("intrinsic", cond):
            trace: list[TraceEvent] = [
                ModelCallEvent(raw_text=EVIL, messages_in=[{"role": EVIL, "content": EVIL}], tools_offered=[EVIL],
                               error=EVIL, status="error" if i == 3 else None, retry_errors=[EVIL]),
                ToolCallEvent(tool=EVIL, args={EVIL: EVIL}, result=EVIL, status="ok"),
                ToolCallEvent(tool=EVIL, args={EVIL: EVIL}, error=EVIL, status="error")]
            store.add_result(SampleResult(
                run_id="evil", sample_id=s.id, task=task, condition=c, model=EVIL, final_text=EVIL,
                parsed=Parsed.failure(EVIL, EVIL) if i == 1 else Parsed.success(EVIL, EVIL),
                score=Score(correct=(i + (c == cond)) % 2 == 0 and i != 1, value=0.0, error=1.0, error_unit=EVIL,
                            explanation=EVIL, parse_failed=i == 1),
                trace=trace, status="error" if i == 2 else "ok", error=EVIL if i == 2 else None,
                stop_reason=EVIL, meta=dict(s.meta)))
    (run_dir / f"notes{EVIL[:8]}.log").write_text(EVIL)
    store.close()


class PageCheck(HTMLParser):
    """Collects scripts, event-handler attributes, scriptable URLs and tags the viewer never writes."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self.bad: list[str] = []
        self.links: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._in_script = True
            self.scripts.append("")
        if tag in ("img", "iframe", "object", "embed", "base"):
            self.bad.append(f"<{tag}>")
        for k, v in attrs:
            if k.startswith("on"):
                self.bad.append(f"{tag}[{k}]")
            if k in ("href", "src", "action") and v is not None:
                if v.strip().lower().startswith(("javascript:", "data:text")):
                    self.bad.append(f"{tag}[{k}={v}]")
                if k == "href":
                    self.links.append(v)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def assert_clean(html: str, where: str) -> PageCheck:
    p = PageCheck()
    p.feed(html)
    assert p.scripts == [JS], f"{where}: unexpected scripts {p.scripts!r}"[:300]
    assert not p.bad, f"{where}: {p.bad}"
    return p


# ---------------------------------------------------------------- escaping

def test_h_escapes_values_and_keeps_safe_markup() -> None:
    assert h("<b>{x}</b>", x="<i>&\"'") == "<b>&lt;i&gt;&amp;&quot;&#x27;</b>"
    assert h("<p>{x}</p>", x=Safe("<i>ok</i>")) == "<p><i>ok</i></p>"
    assert esc(None) == "" and isinstance(esc(3), Safe)


def test_every_page_of_a_run_full_of_markup_shows_it_as_text(tmp_path: Path) -> None:
    build_evil_run(tmp_path / "evil")
    viewer = Viewer([tmp_path / "evil"], wait_s=30)
    run = next(iter(viewer.runs.values()))
    base = f"/runs/{run.rid}/"
    targets = ["/", "/compare", base, base + "samples", base + "files/"]
    targets += [base + "samples?" + q for q in ("outcome=gained", "outcome=error", "outcome=parse_failure",
                                                 "q=script", "sort=-latency", "vs=" + EVIL)]
    index = run.index()

    targets += [ServerLinker().sample(run.rid, sid, ep, ListQuery(outcome="lost")) for sid, ep in index.by_key]
    targets += [ServerLinker().item(sid) for sid, _ in index.by_key]
    for t in targets:
        r = viewer.handle(t)
        assert r.status == 200, (t, r.status)
        html = r.body.decode()
        assert_clean(html, t)
        assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in html or t.endswith("files/"), t
    sample_html = viewer.handle(targets[-1]).body.decode()
    for text in ("Q &lt;script&gt;", "&lt;img src=x onerror=", "tools[&lt;script&gt;"):
        assert text in sample_html
    out = tmp_path / "export"
    export(viewer.runs, out)
    pages = list(out.rglob("*.html"))
    assert len(pages) > 8
    for p in pages:
        assert_clean(p.read_text(), str(p))


# ---------------------------------------------------------------- paths and server

def test_files_outside_the_run_directory_are_refused(fixture_run, tmp_path: Path) -> None:
    run_dir, _ = fixture_run
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    link = run_dir / "escape.txt"
    if not link.exists():
        link.symlink_to(secret)
    viewer = Viewer([run_dir])
    rid = next(iter(viewer.runs))
    assert viewer.handle(f"/runs/{rid}/files/run.sqlite").status == 200
    for bad in ("..%2Fsecret.txt", "..%2F..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "escape.txt"):
        assert viewer.handle(f"/runs/{rid}/files/{bad}").status == 403, bad
    for missing in ("nope.txt", "%00x"):
        assert viewer.handle(f"/runs/{rid}/files/{missing}").status == 404
    for other in ("/runs/../../etc/passwd", "/runs/%2e%2e/", f"/runs/{rid}/../../", "/etc/passwd", "/runs/"):
        assert viewer.handle(other).status == 404, other
    listing = viewer.handle(f"/runs/{rid}/files/").body.decode()
    assert "escape.txt (outside the run directory)" in listing and "top secret" not in listing


def test_server_binds_loopback_checks_host_and_serves_pages(fixture_run) -> None:
    run_dir, _ = fixture_run
    viewer = Viewer([run_dir])
    server = make_server(viewer, port=0, quiet=True)
    assert server.server_address[0] == "127.0.0.1"
    server.server_close()
    server, url = serve_in_thread(viewer)
    try:
        host, port = urlsplit(url).hostname, urlsplit(url).port
        conn = http.client.HTTPConnection(host, port, timeout=10)
        conn.request("GET", "/")
        r = conn.getresponse()
        body = r.read().decode()
        assert r.status == 200 and "default-src 'none'" in r.getheader("Content-Security-Policy")
        assert r.getheader("X-Content-Type-Options") == "nosniff" and "scripted/viewer-fixture" in body
        conn.request("GET", "/", headers={"Host": "evil.example:80"})
        r = conn.getresponse()
        r.read()
        assert r.status == 400
        conn.request("POST", "/")
        r = conn.getresponse()
        r.read()
        assert r.status == 405
        conn.request("GET", "/runs/run/files/..%2F..%2F..%2Fetc%2Fpasswd")
        r = conn.getresponse()
        assert r.status == 403 and "root:" not in r.read().decode()
    finally:
        server.shutdown()
    assert is_loopback("localhost") and is_loopback("::1") and not is_loopback("0.0.0.0")


def test_viewer_opens_the_database_read_only(fixture_run) -> None:
    run_dir, _ = fixture_run
    with pytest.raises(sqlite3.OperationalError):
        RunReader(run_dir).connect().execute("DELETE FROM results")


# ---------------------------------------------------------------- outcomes, pagination, search

def cell(correct: bool, status: str = "ok", pf: bool = False, **kw) -> Cell:
    return Cell(status=status, correct=correct, parse_failed=pf, **kw)


def test_outcomes_follow_correctness_and_flag_parse_failures_and_errors() -> None:
    assert classify(cell(True), cell(True)) == "both_right"
    assert classify(cell(False), cell(True)) == "gained"
    assert classify(cell(True), cell(False)) == "lost"
    assert classify(cell(False), cell(False)) == "both_wrong"
    assert classify(None, cell(True)) is None
    row = Row.of("s", 0, "t.x", cell(False, pf=True, answer="hedged"), cell(False, status="error"))
    assert row.outcome is None and row.parse_failure and row.error  # an error is not an answer: no pair outcome
    assert row.has("parse_failure") and row.has("error") and row.has("hedged") and not row.has("refused")
    assert not row.has("both_wrong") and not row.has("gained")
    both = Row.of("s", 0, "t.x", cell(False, pf=True, answer="refused"), cell(False, answer="answered"))
    assert both.outcome == "both_wrong" and both.has("refused") and not both.has("hedged")


def test_list_counts_match_the_reports_gained_and_lost(fixture_run) -> None:
    run_dir, ids = fixture_run
    reader = RunReader(run_dir)
    comp = compare(list(reader.results(with_trace=False)), ["intrinsic", "tools"])[0]
    index = RunIndex(reader.cells(), ["intrinsic", "tools"])
    _, counts = index.select(ListQuery())
    assert counts["gained"] == comp.gap["tools"]["gained"] == len(ids["gained"]) + 3  # + parse, xss, hedged
    assert counts["lost"] == comp.gap["tools"]["lost"] == 1  # lost (the error is in no pair)
    assert counts["parse_failure"] == comp.conditions["intrinsic"].parse_failures == 2  # parse, hedged
    assert counts["hedged"] == comp.conditions["intrinsic"].statuses["hedged"] == 1
    assert counts["unparsed"] == comp.conditions["intrinsic"].statuses["unparsed"] == 1
    assert {r.sample_id for r in index.select(ListQuery(outcome="hedged"))[0]} == set(ids["hedged"])
    assert counts["error"] == comp.conditions["tools"].errors == 1
    gained = {r.sample_id for r in index.select(ListQuery(outcome="gained"))[0]}
    assert gained == set(ids["gained"] + ids["parse"] + ids["xss"] + ids["hedged"])
    assert {r.sample_id for r in index.select(ListQuery(outcome="error"))[0]} == set(ids["error"])


def test_tool_filters_match_the_reports_tool_use(fixture_run) -> None:
    """"answered without calling a tool" and "disagrees with its tools" list what results.json counts."""
    run_dir, ids = fixture_run
    viewer = Viewer([run_dir])
    run = viewer.runs["run"]
    u = run.summary(wait_s=None)[0].comparisons[0].tool_use["tools"]
    assert u.n - u.used_tools == 1 and u.fidelity.disagree == 1 and u.fidelity.checked == 7
    _, counts = run.index().select(ListQuery())
    assert counts["no_tool_call"] == 1 and counts["disagrees"] == 1
    assert {r.sample_id for r in run.index().select(ListQuery(outcome="no_tool_call"))[0]} == set(ids["both_right"])
    assert {r.sample_id for r in run.index().select(ListQuery(outcome="disagrees"))[0]} == set(ids["both_wrong"])
    listing = viewer.handle("/runs/run/samples?outcome=disagrees").body.decode()
    assert listing.count('class="badge o-disagrees"') == 1 and ids["both_wrong"][0].split("/", 1)[1] in listing
    page = viewer.handle("/runs/run/").body.decode()
    assert 'title="gained with tools: intrinsic wrong, called a tool, right">6<' in page
    assert "/runs/run/samples?task=gpsbench.distance&amp;vs=tools&amp;outcome=no_tool_call" in page  # never tried


def test_results_without_bodies_keep_tool_results_and_drop_messages(fixture_run) -> None:
    run_dir, ids = fixture_run
    reader = RunReader(run_dir)
    [light] = [r for r in reader.results(ids["both_wrong"], bodies=False) if r.condition == "tools"]
    [full] = [r for r in reader.results(ids["both_wrong"]) if r.condition == "tools"]
    assert [e.kind for e in light.trace] == [e.kind for e in full.trace] == ["model_call", "tool_call", "model_call"]
    assert full.trace[0].messages_in and light.trace[0].messages_in is None and light.trace[2].raw_text is None
    assert light.trace[0].tools_offered == full.trace[0].tools_offered and "distance_km" in full.trace[0].tools_offered
    assert light.trace[1].result == full.trace[1].result and "distance_km" in light.trace[1].result
    with_results = set(reader.tool_result_ids())
    assert set(ids["both_wrong"]) <= with_results and not with_results & set(ids["both_right"] + ids["error"])


def synthetic_index(n: int) -> RunIndex:
    cells = []
    for i in range(n):
        sid = f"fam{i % 2}.task{i % 3}/test/{i:06d}"
        cells.append((sid, 0, "intrinsic", sid.split("/")[0], cell(i % 3 == 0, error=float(i))))
        cells.append((sid, 0, "tools", sid.split("/")[0], cell(i % 2 == 0, error=None if i % 5 == 0 else float(n - i),
                                                               tool_calls=i % 4, latency_s=i / 10)))
    return RunIndex(cells, ["intrinsic", "tools"])


def test_pagination_filters_and_sorting() -> None:
    index = synthetic_index(1050)
    pg = index.page(ListQuery(per_page=100))
    assert (pg.total, pg.pages, len(pg.rows), pg.rows[0].sample_id) == (1050, 11, 100, "fam0.task0/test/000000")
    last = index.page(ListQuery(page=99, per_page=100))
    assert last.page == 11 and len(last.rows) == 50
    assert index.page(ListQuery(task="fam1.task1")).total == 175
    assert index.page(ListQuery(family="fam0")).total == 525
    gained = index.select(ListQuery(outcome="gained"))[0]
    assert all(not r.a.correct and r.b.correct for r in gained) and gained
    by_latency = index.select(ListQuery(sort="-latency"))[0]
    assert by_latency[0].b.latency_s == 104.9 and by_latency[-1].b.latency_s == 0.0
    errs = [r.b.error for r in index.select(ListQuery(sort="err_b"))[0]]
    assert errs[:3] == [1.0, 2.0, 3.0] and errs[-1] is None  # missing values last
    assert [r.b.error for r in index.select(ListQuery(sort="-err_b"))[0]][-1] is None
    prev, nxt, pos, total = index.neighbours(ListQuery(outcome="gained"), (gained[1].sample_id, 0))
    assert (prev, nxt, pos, total) == (gained[0], gained[2], 2, len(gained))


def test_list_query_reads_parameters_leniently() -> None:
    q = ListQuery.from_params({"page": "-3", "per_page": "100000", "outcome": "bogus", "sort": "drop table",
                               "q": "  x  ", "task": "a.b"})
    assert (q.page, q.per_page, q.outcome, q.sort, q.q, q.task) == (1, 500, None, "id", "x", "a.b")
    assert ListQuery.from_params(q.params()) == q
    assert ListQuery(outcome="gained", page=3).params() == {"outcome": "gained", "page": "3"}


def test_text_search_reaches_answers_and_tool_calls(fixture_run) -> None:
    run_dir, ids = fixture_run
    reader = RunReader(run_dir)
    assert reader.search("window.__xss=1") == set(ids["xss"])
    assert reader.search("WINDOW.__XSS=1") == set(ids["xss"])  # ASCII case-insensitive
    assert reader.search("mid-call") == set(ids["error"])
    assert set(ids["xss"]) <= reader.search('onerror="window')  # quotes are JSON-escaped in records
    assert reader.search("100%_sure") == set()


# ---------------------------------------------------------------- sketch, pages, export, CLI

def test_sketch_finds_points_paths_polygons_and_crosses_the_antimeridian() -> None:
    shapes = extract({"points": [[1, 2], [3, 4]], "cities": ["A", "B"], "trajectory": [[0, 0], [1, 1], [2, 0]],
                      "polygons": [[[0, 0], [0, 1], [1, 1]], [[5, 5], [5, 6], [6, 6]]], "speed_range": [3, 12],
                      "nested": {"start": {"lat": 10, "lon": 20}}}, target=[7, 8], answers={"tools": [7.1, 8.1]})
    assert [label for _, label in shapes.points] == ["A", "B", "start"]
    assert len(shapes.paths) == 1 and len(shapes.polygons) == 2 and len(shapes.marks) == 2
    svg = render(shapes)
    assert svg.startswith("<svg") and svg.count("<polygon") == 2 and "<polyline" in svg
    wide = render(extract({"points": [[0, 179.5], [1, -179.5]]}))
    (x0, y0), (x1, y1) = [(float(x), float(y)) for x, y in re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"', wide)]
    assert abs(abs(x1 - x0) / abs(y1 - y0) - 1) < 0.05  # 1° apart east-west, not 359°
    assert render(extract({"speed_range": [3, 12]})) == ""


def test_sample_page_shows_both_answers_and_the_timeline(fixture_run) -> None:
    run_dir, ids = fixture_run
    viewer = Viewer([run_dir])
    rid = next(iter(viewer.runs))
    html = viewer.handle(f"/runs/{rid}/sample?id={ids['lost'][0]}").body.decode()
    for text in ("intrinsic", "tools", "model call 1", "#1 distance_km", "#2 distance_km", "same call as #1",
                 "lost with tools", "<svg", "Input should be a valid number"):
        assert text in html, text
    failed = viewer.handle(f"/runs/{rid}/sample?id={ids['error'][0]}").body.decode()
    assert 'class="badge o-error">error</span>' in failed and "provider exploded &lt;b&gt;mid-call" in failed
    xss = viewer.handle(f"/runs/{rid}/sample?id={ids['xss'][0]}").body.decode()
    assert "repeated" in xss and "&lt;script&gt;window.__xss=1&lt;/script&gt;" in xss


def test_run_page_shows_answer_status_shares_and_errors_and_the_list_filters_by_status(fixture_run) -> None:
    run_dir, ids = fixture_run
    viewer = Viewer([run_dir], wait_s=30)
    rid = next(iter(viewer.runs))
    html = viewer.handle(f"/runs/{rid}/").body.decode()
    # 10 samples; intrinsic: 8 answered, 1 hedged, 1 unparsed; tools: 1 error, so 9 answered samples
    for text in ("intrinsic status %", "tools status %", ">80/10/0/10/0/0/0<", ">100/0/0/0/0/0/0<",
                 "answered 8, hedged 1, unlocated 0, unparsed 1, refused 0, truncated 0, blocked 0 of 10 answered samples", ">0 / 1<", "incomplete"):
        assert text in html, text
    assert 'class="chip o-hedged"' in html and f'href="/runs/{rid}/samples?outcome=hedged"' in html
    listing = viewer.handle(f"/runs/{rid}/samples?outcome=hedged").body.decode()
    hedged_id = ids["hedged"][0].split("/", 1)[1]
    assert hedged_id in listing and listing.count('class="badge o-hedged"') == 1
    sample = viewer.handle(f"/runs/{rid}/sample?id={ids['hedged'][0]}").body.decode()
    assert 'class="badge o-hedged"' in sample


def test_export_links_all_resolve(fixture_run, tmp_path: Path) -> None:
    run_dir, ids = fixture_run
    out = tmp_path / "site"
    assert main(["--export", str(out), str(run_dir)]) == 0
    pages = list(out.rglob("*.html"))
    n_samples = sum(len(v) for v in ids.values())
    assert len(list((out / "runs").glob("*/samples/*.html"))) == n_samples
    for p in pages:
        check = assert_clean(p.read_text(), str(p))
        for href in check.links:
            if href == "data:,":  # the empty favicon
                continue
            if href.startswith(("http:", "https:", "//")):
                pytest.fail(f"{p}: absolute link {href}")
            target = (p.parent / unquote(href.split("#")[0])).resolve()
            assert target.is_file() and target.is_relative_to(out.resolve()), f"{p}: {href}"


def test_cli_refuses_missing_or_empty_directories(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path / "nope")]) == 2
    assert main([str(tmp_path)]) == 2
    assert "no run directory" in capsys.readouterr().err


def test_a_folder_of_runs_is_expanded_and_run_ids_are_unique(fixture_run, tmp_path: Path) -> None:
    run_dir, _ = fixture_run
    assert find_runs([run_dir.parent]) == [run_dir]
    parent = tmp_path / "runs" / "board"  # a several-model run's parent, one level down in runs/
    parent.mkdir(parents=True)
    (parent / "m1").symlink_to(run_dir, target_is_directory=True)
    (tmp_path / "runs" / "empty").mkdir()
    assert find_runs([tmp_path / "runs"]) == [parent / "m1"]
    viewer = Viewer([run_dir, run_dir])
    assert sorted(viewer.runs) == ["run", "run-2"]
    assert os.path.samefile(viewer.runs["run"].dir, run_dir)


# ---------------------------------------------------------------- summaries

def test_summary_publishes_the_table_before_the_breakdowns(fixture_run) -> None:
    run_dir, _ = fixture_run
    published: list[Summary] = []
    final = summarise_run(list(RunReader(run_dir).results(with_trace=False)), ["intrinsic", "tools"],
                          published.append)
    assert [s.complete for s in published] == [False] and final.complete
    assert published[0].comparisons[0].gap["tools"]["gained"] == final.comparisons[0].gap["tools"]["gained"] == 6
    assert "region" in final.comparisons[0].breakdowns


def test_a_fresh_results_json_is_used_and_a_stale_one_ignored(fixture_run, tmp_path: Path) -> None:
    run_dir, _ = fixture_run
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    reader = RunReader(copy)
    results = list(reader.results(with_trace=False))
    report = build_report(results, ["intrinsic", "tools"], {})
    report["tasks"][0]["task"] = "from-results-json"
    write_results_json(copy / "results.json", report)
    last = reader.last_result_time()
    os.utime(copy / "results.json", (last + 5, last + 5))
    html = Viewer([copy]).handle("/runs/run/").body.decode()
    assert "from-results-json" in html and "read from results.json" in html
    os.utime(copy / "results.json", (last - 5, last - 5))
    html = Viewer([copy]).handle("/runs/run/").body.decode()
    assert "from-results-json" not in html and "gpsbench.distance" in html


def test_secrets_in_stored_text_are_masked(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GEOGAP_TEST_API_KEY", "hunter2hunter2")
    store = RunStore(tmp_path / "run")
    store.write_spec("s", RunSpec(model="m/x", tasks=["t.x"], conditions=["intrinsic"]))
    store.add_samples([Sample(id="t.x/test/0", task="t.x", messages=(Message(role="user", content="q"),), target=1)])
    store.add_result(SampleResult(run_id="s", sample_id="t.x/test/0", task="t.x", condition="intrinsic", model="m/x",
                                  status="error", error="401 for key hunter2hunter2 and Bearer sk-abcdefghijklmnop1234"))
    store.close()
    html = Viewer([tmp_path / "run"]).handle("/runs/run/sample?id=t.x%2Ftest%2F0").body.decode()
    assert "401 for key" in html and "hunter2hunter2" not in html and "sk-abcdefghijklmnop1234" not in html


def test_a_sample_exports_as_json_with_every_condition_and_its_trace(fixture_run) -> None:
    run_dir, _ = fixture_run
    viewer = Viewer([run_dir])
    run = next(iter(viewer.runs.values()))
    sid, epoch = next(iter(run.index().by_key))
    page_html = viewer.handle(ServerLinker().sample(run.rid, sid, epoch)).body.decode()
    url = ServerLinker().sample_json(run.rid, sid)
    assert html.escape(url) in page_html
    r = viewer.handle(url)
    assert r.status == 200 and r.content_type == "application/json"
    data = json.loads(r.body)
    stored = [x for x in RunReader(run_dir).results([sid])]
    assert data["sample"]["id"] == sid
    assert [(x["condition"], x["epoch"]) for x in data["results"]] == [(x.condition, x.epoch) for x in stored]
    assert sum(len(x["trace"]) for x in data["results"]) == sum(len(x.trace) for x in stored) > 0
    assert viewer.handle(ServerLinker().sample_json(run.rid, "no/such/id")).status == 404


def test_the_leaderboard_takes_chosen_runs_and_survives_an_odd_one(fixture_run, tmp_path: Path) -> None:
    run_dir, _ = fixture_run
    odd = tmp_path / "odd"
    RunStore(odd).close()  # a store with no spec yet: it cannot join a leaderboard
    viewer = Viewer([run_dir, run_dir, odd])
    assert sorted(viewer.runs) == ["odd", "run", "run-2"]
    page_html = viewer.handle("/leaderboard").body.decode()
    assert 'name="run" value="odd"' in page_html and "left out: odd: " in page_html
    assert viewer.leaderboard()["skipped"] and len(viewer.leaderboard()["models"]) == 2
    chosen = viewer.handle("/leaderboard?run=run&run=odd").body.decode()
    assert "left out: odd: " in chosen  # the odd run chosen is named, the other shown
    assert 'value="run" checked' in chosen and 'value="run-2">' in chosen  # run-2 not ticked
    both = viewer.leaderboard(chosen=["run", "run-2"])
    assert both is not None and not both["skipped"] and len(both["models"]) == 2


def test_one_item_across_runs_lists_every_runs_answers(fixture_run) -> None:
    run_dir, _ = fixture_run
    viewer = Viewer([run_dir, run_dir])
    run = viewer.runs["run"]
    sid, epoch = next(iter(run.index().by_key))
    assert html.escape(ServerLinker().item(sid)) in viewer.handle(ServerLinker().sample(run.rid, sid, epoch)).body.decode()
    r = viewer.handle(ServerLinker().item(sid))
    assert r.status == 200
    page_html = r.body.decode()
    stored = list(RunReader(run_dir).results([sid], with_trace=False))
    assert page_html.count("<tr><td><a href=") == 2 * len(stored)  # every answer of both runs
    for rid in ("run", "run-2"):
        assert html.escape(ServerLinker().sample(rid, sid, stored[0].epoch)) in page_html
    assert viewer.handle(ServerLinker().item("no/such/id")).status == 404
