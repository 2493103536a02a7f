"""GTR gold answers recomputed independently from the prompt text alone: the map, roads and observations are
read back with regular expressions, bearings come from pyproj on a sphere, shortest paths from a plain
Dijkstra written here. Every gold option must follow from the text, and every distractor must not."""

from __future__ import annotations

import re

import pytest
from gtr_scene import SPHERE, Scene, read

from tasks import get_task
from tasks.records import Sample

SIZE = 12
OBS_RE = re.compile(r"(C\d{3}): in view from ([\d.]+) s to ([\d.]+) s, heading (\d+)°, speed ([\d.]+) m/s")
CLIP_RE = re.compile(r"Clip \d+: (C\d{3}): heading (\d+)°, speed ([\d.]+) m/s")
TARGET_RE = re.compile(r"last seen by (C\d{3}) from ([\d.]+) s to ([\d.]+) s, heading (\d+)°, speed ([\d.]+) m/s; "
                       r"it heads for camera (C\d{3})")
RANGE_RE = re.compile(r"speed stayed between ([\d.]+) and ([\d.]+) m/s")
SEG_RE = re.compile(r"(C\d{3}) \[([\d.]+), ([\d.]+)\]")
COMPASS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def mid(a: float, b: float) -> float:
    return (a + b) / 2


def gold_letter(s: Sample) -> int:
    return int(s.target["index"])


def seen(t: float, v: float, r: float) -> tuple[float, float]:
    return round(t - r / v, 1), round(t + r / v, 1)


def check_forecast(s: Sample, sc: Scene, pred: list[tuple[str, tuple[float, float]]]) -> None:
    """The prediction recomputed from the prompt: exactly the gold option lists its cameras (options name
    cameras only), and the gold segments kept for ST-IoU agree with it to the printed 0.1 s."""
    cams = [c for c, _ in pred]
    assert [i for i, o in enumerate(sc.options) if o.split(" → ") == cams] == [gold_letter(s)], s.id
    gold = [(c, (float(a), float(b))) for c, (a, b) in s.target["segments"]]
    assert [c for c, _ in gold] == cams, s.id
    assert all(abs(a - b) <= 0.051 for (_, x), (_, y) in zip(gold, pred, strict=True)
               for a, b in zip(x, y, strict=True)), (s.id, gold, pred)
    assert not SEG_RE.search("\n".join(sc.options)) and not re.search(r"\d\.\d", "\n".join(sc.options))


def samples(name: str) -> list[Sample]:
    return get_task(name, size=SIZE).generate(seed=11, size=SIZE)


def test_map_is_real_and_consistent() -> None:
    for s in samples("gtr.geo_location") + samples("gtr.next_spot"):
        sc = read(s)
        outdoor = s.meta["setting"] == "outdoor"
        assert len([c for c in sc.area if sc.area[c] == 1]) == 12 and len(sc.area) == 15
        for a, nbrs in sc.adj.items():
            for b, length in nbrs.items():
                (la1, lo1), (la2, lo2) = sc.pos[a], sc.pos[b]
                direct = SPHERE.inv(lo1, la1, lo2, la2)[2]
                assert direct - 1 <= length <= direct * (1.2 if outdoor else 1.1) + 1, (a, b)
                assert sc.area[a] == sc.area[b]
        for cam, a, b, heading, v in OBS_RE.findall(sc.text):
            assert int(heading) in [sc.bearing(cam, n) for n in sc.adj[cam]]
            assert float(b) - float(a) == pytest.approx(2 * sc.radius / float(v), abs=0.11)


def test_geo_location_gold_fits_time_and_distractors_do_not() -> None:
    for s in samples("gtr.geo_location"):
        sc = read(s)
        (a, a0, a1, *_), (b, b0, b1, *_) = OBS_RE.findall(sc.text)
        vmin, vmax = map(float, RANGE_RE.search(sc.text).groups())
        dt = mid(float(b0), float(b1)) - mid(float(a0), float(a1))
        paths = [[a, *o.split(" → "), b] for o in sc.options]
        fits = [i for i, p in enumerate(paths) if sc.is_path(p) and len(set(p)) == len(p)
                and sc.length(p) / vmax <= dt <= sc.length(p) / vmin]
        assert fits == [gold_letter(s)], s.id


def test_arrival_interval_gold_is_the_only_reachable_interval() -> None:
    for s in samples("gtr.arrival_interval"):
        sc = read(s)
        (a, a0, a1, *_), _ = OBS_RE.findall(sc.text)
        vmin, vmax = map(float, RANGE_RE.search(sc.text).groups())
        route = re.search(r"it went ((?:C\d{3}(?: → )?)+)", sc.text).group(1).split(" → ")
        x = re.search(r"did camera (C\d{3}) see it", sc.text).group(1)
        d = sc.length(route[:route.index(x) + 1])
        t0 = mid(float(a0), float(a1))
        lo, hi = t0 + d / vmax - sc.radius / vmax, t0 + d / vmin + sc.radius / vmin
        hits = [i for i, o in enumerate(sc.options) if min(hi, float(o[1:-1].split(", ")[1])) >
                max(lo, float(o[1:-1].split(", ")[0]))]
        assert hits == [gold_letter(s)], s.id


def test_motion_state_gold_heading_distance_speed() -> None:
    for s in samples("gtr.motion_state"):
        sc = read(s)
        (a, a0, a1, *_), (b, b0, b1, *_) = OBS_RE.findall(sc.text)
        route = re.search(r"it went ((?:C\d{3}(?: → )?)+)", sc.text).group(1).rstrip(".").split(" → ")
        x = re.search(r"passed camera (C\d{3})", sc.text).group(1)
        k = route.index(x)
        heading = COMPASS[int(((sc.bearing(x, route[k + 1]) + 22.5) % 360) // 45)]
        dist = sc.length(route[:k + 1])
        avg = sc.length(route) / (mid(float(b0), float(b1)) - mid(float(a0), float(a1)))
        m = re.compile(r"heading (\w+), speed ([\d.]+) m/s, (\d+) m from")
        hits = [i for i, o in enumerate(sc.options) if (g := m.match(o)) and g.group(1) == heading
                and int(g.group(3)) == dist and 0.7 <= float(g.group(2)) / avg <= 1.45]
        assert hits == [gold_letter(s)], s.id


def consistent(sc: Scene, order: list[str], headings: dict[str, int]) -> bool:
    """Every camera but the last is left, on the route through the cameras in this order, by its heading."""
    route, pos = sc.expand(order), 0
    for c in order[:-1]:
        pos = route.index(c, pos)
        if sc.bearing(c, route[pos + 1]) != headings[c]:
            return False
    return True


def test_causal_reordering_gold_is_the_order_the_headings_allow() -> None:
    for s in samples("gtr.causal_reordering"):
        sc = read(s)
        headings = {c: int(h) for c, h, _ in CLIP_RE.findall(sc.text)}
        orders = [o.split(" → ") for o in sc.options]
        assert [i for i, o in enumerate(orders) if consistent(sc, o, headings)] == [gold_letter(s)], s.id
        gold = orders[gold_letter(s)]
        assert sc.length(sc.expand(gold)) == sc.dijkstra(gold[0])[0][gold[-1]]  # on one shortest route


def test_next_spot_gold_from_heading_and_speed() -> None:
    for s in samples("gtr.next_spot"):
        sc = read(s)
        cam, s0, s1, heading, v = OBS_RE.findall(sc.text)[-1]
        nxt = [n for n in sc.adj[cam] if sc.bearing(cam, n) == int(heading)]
        assert len(nxt) == 1
        t = mid(float(s0), float(s1)) + sc.adj[cam][nxt[0]] / float(v)
        check_forecast(s, sc, [(nxt[0], seen(t, float(v), sc.radius))])


def test_trajectory_forecast_gold_from_average_speed() -> None:
    for s in samples("gtr.trajectory_forecast"):
        sc = read(s)
        obs = OBS_RE.findall(sc.text)
        (c1, a0, a1, *_), (cl, b0, b1, *_) = obs[0], obs[-1]
        z = re.search(r"heading for camera (C\d{3})", sc.text).group(1)
        t0, t1 = mid(float(a0), float(a1)), mid(float(b0), float(b1))
        v = sc.dijkstra(c1)[0][cl] / (t1 - t0)
        route = sc.shortest(cl, z)
        pred = [(c, seen(t1 + sc.length(route[:i + 1]) / v, v, sc.radius)) for i, c in enumerate(route) if i]
        check_forecast(s, sc, pred)


def test_multi_target_gold_is_the_only_joint_view() -> None:
    for s in samples("gtr.multi_target"):
        sc = read(s)
        views = []
        for cam, s0, s1, heading, v, dest in TARGET_RE.findall(sc.text):
            route = sc.shortest(cam, dest)
            assert sc.bearing(cam, route[1]) == int(heading)
            t = mid(float(s0), float(s1))
            views.append({c: seen(t + sc.length(route[:i + 1]) / float(v), float(v), sc.radius)
                          for i, c in enumerate(route) if i})
        joint = [(c, (max(views[0][c][0], views[1][c][0]), min(views[0][c][1], views[1][c][1])))
                 for c in views[0] if c in views[1]]
        joint = [(c, iv) for c, iv in joint if iv[1] > iv[0]]
        assert len(joint) == 1
        check_forecast(s, sc, joint)
