"""The leaderboard page in a real browser (headless Debian Chromium via Playwright): a two-model run made through
the CLI with two scripted policies, viewed with ``python -m evals.view PARENT`` (served), as the parent's
``report.html`` and as the static export. Screenshots go to test-artifacts/viewer/.
Without Playwright or Chromium these tests skip locally and FAIL when the CI variable is set.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from chromium import ARTIFACTS
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from evals.compare import main
from evals.view.app import Viewer
from evals.view.export import export
from evals.view.leaderboard import find_boards
from evals.view.links import ServerLinker
from evals.view.runs import find_runs
from evals.view.server import serve_in_thread


def caller(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    """Wrong alone; with tools calls distance_km on the prompt's points and answers its result (always right)."""
    if not tools:
        return "FINAL ANSWER: 1 km"
    results = [m for m in messages if isinstance(m, ToolMessage)]
    if results:
        return f"FINAL ANSWER: {json.loads(str(results[-1].content))['distance_km']:.1f} km"
    import re

    prompt = str(next(m.content for m in messages if m.type == "human"))
    (a1, o1), (a2, o2) = re.findall(r"\((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\)", prompt)[:2]
    args = {"lat1": float(a1), "lon1": float(o1), "lat2": float(a2), "lon2": float(o2)}
    return AIMessage("", tool_calls=[{"name": "distance_km", "id": "c1", "args": args}])


def idler(messages: list[BaseMessage], tools: list[str]) -> str:
    """Wrong in both conditions, never calls a tool: gap 0."""
    return "FINAL ANSWER: 1 km"


MODELS = [f"scripted/{__name__}:caller", f"scripted/{__name__}:idler"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    root = tmp_path_factory.mktemp("leaderboard-browser")
    parent = root / "parent"
    assert main(["--model", ",".join(MODELS), "--tasks", "gpsbench.distance", "--limit", "6", "--no-cache",
                 "--output", str(parent)]) == 0
    boards = find_boards([parent])
    viewer = Viewer(find_runs([parent]), boards=boards)
    server, url = serve_in_thread(viewer)
    index = export(Viewer(find_runs([parent])).runs, root / "export", board=viewer.leaderboard())
    board = json.loads((parent / "results.json").read_text())["leaderboard"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield {"url": url, "parent": parent, "export": index, "board": board, "boards": boards}
    server.shutdown()



def _gap_text(g: dict) -> str:
    return f"{100 * g['gap']:+.1f}"


def check_board(pg, board: dict) -> None:
    """The page shows each model's gap and the difference of gaps that results.json holds."""
    table = pg.locator("table.leaderboard")
    assert table.count() == 1
    for model in MODELS:
        row = table.locator(f'tr[data-model="{model}"][data-task="gpsbench.distance"]')
        assert row.count() == 1, model
        [want] = [r for r in board["rows"] if r["model"] == model]
        assert row.locator("td.gap").inner_text().startswith(_gap_text(want["gap"]["tools"]))
    caller_row = table.locator(f'tr[data-model="{MODELS[0]}"]')
    assert caller_row.locator("td").nth(4).inner_text() == "100"  # every tools answer called a tool
    assert table.locator(f'tr[data-model="{MODELS[1]}"]').locator("td").nth(4).inner_text() == "0"
    [diff] = board["differences"]
    cell = pg.locator("table.differences tr.diff td.gap")
    assert cell.inner_text().startswith(f"{100 * diff['difference']:+.1f}")
    assert f"{MODELS[0]} − {MODELS[1]}" in pg.locator("table.differences").inner_text()
    assert pg.locator("svg.gapchart").is_visible()
    assert not pg.errors, pg.errors


def test_served_leaderboard_links_each_models_run(page, site) -> None:
    pg = page
    assert site["boards"]  # python -m evals.view PARENT finds the parent's leaderboard
    pg.goto(site["url"])
    pg.get_by_role("link", name="Leaderboard →").click()
    pg.wait_for_url("**/leaderboard")
    check_board(pg, site["board"])
    assert site["board"]["rows"][0]["gap"]["tools"]["gap"] == 1.0  # caller gains every item
    pg.screenshot(path=str(ARTIFACTS / "leaderboard.png"), full_page=True)
    pg.get_by_role("link", name=MODELS[0], exact=True).first.click()
    pg.wait_for_selector("h1")
    assert MODELS[0] in pg.locator("h1").inner_text()


def test_parent_report_and_export_show_the_same_leaderboard(page, site) -> None:
    pg = page
    pg.goto((site["parent"] / "report.html").resolve().as_uri())
    check_board(pg, site["board"])
    pg.screenshot(path=str(ARTIFACTS / "leaderboard-report.png"), full_page=True)
    pg.get_by_role("link", name=MODELS[1], exact=True).first.click()  # the model's own report.html
    pg.wait_for_selector("h1")
    assert MODELS[1] in pg.locator("h1").inner_text()
    pg.goto(site["export"].resolve().as_uri())
    pg.get_by_role("link", name="Leaderboard →").click()
    check_board(pg, site["board"])


def test_nested_runs_a_chosen_leaderboard_and_one_item_across_models(page, site) -> None:
    """``python -m evals.view`` on the folder above the parent finds both models' runs one level down; the
    leaderboard of the two runs chosen by their checkboxes; one item across both models."""
    pg = page
    root = site["parent"].parent
    runs = find_runs([root])
    assert len(runs) == 2 and {r.parent for r in runs} == {site["parent"]}
    viewer = Viewer(runs)
    server, url = serve_in_thread(viewer)
    try:
        pg.goto(url)
        pg.screenshot(path=str(ARTIFACTS / "nested-runs.png"), full_page=True)
        for rid in viewer.runs:
            assert pg.locator(f'a[href="{ServerLinker().run(rid)}"]').count() >= 1, rid
        pg.goto(url.rstrip("/") + "/leaderboard")
        boxes = pg.locator('form input[name="run"]')
        assert boxes.count() == 2
        pg.get_by_role("button", name="show these runs").click()
        pg.wait_for_url("**/leaderboard?run=*")
        check_board(pg, site["board"])
        pg.screenshot(path=str(ARTIFACTS / "leaderboard-chosen.png"), full_page=True)
        rid = next(iter(viewer.runs))
        sid, epoch = next(iter(viewer.runs[rid].index().by_key))
        pg.goto(url.rstrip("/") + ServerLinker().sample(rid, sid, epoch))
        pg.get_by_role("link", name="across runs").click()
        pg.wait_for_url("**/item?id=*")
        rows = pg.locator("table.grid tbody tr")
        assert rows.count() == 2 * 2  # two models × two conditions, one epoch
        text = pg.locator("table.grid").inner_text()
        assert "intrinsic" in text and "tools" in text
        pg.screenshot(path=str(ARTIFACTS / "item-across-models.png"), full_page=True)
        assert not pg.errors, pg.errors
    finally:
        server.shutdown()
