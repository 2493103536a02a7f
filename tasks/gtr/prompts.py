"""GTR prompt pieces in our own words: system prompt, the network map, observations and options."""

from __future__ import annotations

import string
from collections.abc import Sequence

from geocore.networks import COORD_DECIMALS, CameraNetwork
from tasks.gtr.scenes import SPEED_DECIMALS, Pass

LETTERS = string.ascii_uppercase

SYSTEM_PROMPT = (
    "You reason about targets moving through a network of surveillance cameras laid on a real map. "
    "Camera ids look like C417. Times are seconds since the recording started, speeds are metres per second, "
    "road lengths are metres, headings are degrees clockwise from north. A camera sees a target while the "
    "target is within the camera's view radius, so the target passes right under a camera at the middle of "
    "the interval in which that camera sees it. The heading at a camera is the bearing of the road by which "
    "the target leaves that camera. Keep your reasoning short, then finish with one line of the form\n"
    "FINAL ANSWER: <answer>"
)

_KIND_TEXT = {
    "outdoor": "a road network in {place}; the targets are vehicles",
    "indoor": "walkways of the {place}; the targets are pedestrians",
}
_AREA2_TEXT = {"outdoor": "another district", "indoor": "another building"}

MCQ_INSTRUCTION = "Answer with the letter of the correct option: FINAL ANSWER: <letter>"
FORECAST_INSTRUCTION = (
    "The options name cameras only. Choose one and state the interval yourself, as in-view times in seconds: "
    "FINAL ANSWER: <letter>; <camera> [<from>, <to>]"
)
TRAJECTORY_INSTRUCTION = (
    "The options name cameras only. Choose one and state the intervals yourself, one per camera of the option, "
    "in order, as in-view times in seconds: FINAL ANSWER: <letter>; <camera> [<from>, <to>]; <camera> "
    "[<from>, <to>]; ..."
)


def fmt_time(t: float) -> str:
    return f"{t:.1f}"


def fmt_interval(iv: Sequence[float]) -> str:
    """``[170.4, 178.5]``: an in-view interval in seconds as printed in options."""
    return f"[{fmt_time(iv[0])}, {fmt_time(iv[1])}]"


def fmt_speed(v: float, kind: str) -> str:
    return f"{v:.{SPEED_DECIMALS[kind]}f}"


def render_map(net: CameraNetwork) -> str:
    """The network as text: id, place, view radius, cameras by area, roads with lengths."""
    dec = COORD_DECIMALS[net.kind]

    def cams(area: int) -> str:
        return "\n".join(f"{c.id}: {c.lat:.{dec}f}, {c.lon:.{dec}f}, faces {c.facing}"
                         for c in net.cameras if c.area == area)

    def roads(area: int) -> str:
        ids = set(net.area_cameras(area))
        return ", ".join(f"{r.a}-{r.b} {r.length_m}" for r in net.roads if r.a in ids)

    radius = f"{net.view_radius_m:g}"
    return (
        f"Network id: {net.id} ({_KIND_TEXT[net.kind].format(place=net.place.name)}). "
        f"Each camera sees {radius} m around it.\n"
        f"Area 1 cameras (id: latitude, longitude, direction the camera faces):\n{cams(1)}\n"
        f"Area 1 roads (two-way, length in metres): {roads(1)}\n"
        f"Area 2 ({_AREA2_TEXT[net.kind]}, no road to area 1) cameras:\n{cams(2)}\n"
        f"Area 2 roads: {roads(2)}"
    )


def observation(p: Pass, kind: str, *, times: bool = True) -> str:
    """One observation line: camera, in-view interval, heading and speed."""
    seen = f"in view from {fmt_time(p.seen[0])} s to {fmt_time(p.seen[1])} s, " if times else ""
    return f"{p.camera}: {seen}heading {p.heading_deg}°, speed {fmt_speed(p.speed_mps, kind)} m/s"


def options_block(choices: Sequence[str]) -> str:
    return "\n".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(choices))


def user_prompt(net: CameraNetwork, question: str, choices: Sequence[str], instruction: str = MCQ_INSTRUCTION) -> str:
    return f"{render_map(net)}\n\n{question}\n\nOptions:\n{options_block(choices)}\n\n{instruction}"
