"""GPSBench system prompt and coordinate formatting, in our own words."""

from __future__ import annotations

SYSTEM_PROMPT = (
    "You are an expert in geography, geodesy and GPS coordinates. Answer the user's question. "
    "Coordinates are decimal degrees (latitude, longitude); south and west are negative. "
    "Keep your reasoning short, then finish with one line of the form\n"
    "FINAL ANSWER: <answer>"
)

COORD_DECIMALS = 4


def fmt_point(lat: float, lon: float) -> str:
    """``(lat, lon)`` with the precision the gold is computed from."""
    return f"({lat:.{COORD_DECIMALS}f}, {lon:.{COORD_DECIMALS}f})"


def rounded(lat: float, lon: float) -> tuple[float, float]:
    """The coordinates exactly as shown to the model: gold answers are computed from these."""
    return round(lat, COORD_DECIMALS), round(lon, COORD_DECIMALS)
