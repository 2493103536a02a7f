"""The ``projections`` tool set: coordinate formats (decimal degrees ⇄ DMS) and map projections (WGS84 ⇄ UTM,
WGS84 ⇄ Web Mercator), thin wrappers over :mod:`geocore.coords`."""

from __future__ import annotations

from typing import Literal

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from geocore import coords as c
from tools._common import Lat, Lon, make_tool, result
from tools.registry import toolset


class Point(BaseModel):
    lat: Lat
    lon: Lon


class DmsText(BaseModel):
    text: str = Field(min_length=1, max_length=200, description=(
        "A position in degrees-minutes-seconds, latitude first, e.g. 40°26'46.3\"N, 79°58'56.0\"W "
        "(hemisphere letters N/S/E/W or signs), or one single angle such as 32°3'9.0\"S"))


class UtmPoint(BaseModel):
    lat: Lat
    lon: Lon
    zone: int | None = Field(default=None, ge=1, le=60, description=(
        "UTM zone 1-60; omit to use the standard zone floor((lon + 180) / 6) + 1 (no Norway/Svalbard exceptions)"))


class UtmCoordinate(BaseModel):
    easting_m: float = Field(ge=0, le=1_000_000, description="UTM easting in metres (false easting 500,000 m)")
    northing_m: float = Field(ge=0, le=10_000_000, description=(
        "UTM northing in metres (southern hemisphere includes the 10,000,000 m false northing)"))
    zone: int = Field(ge=1, le=60, description="UTM zone number 1-60")
    hemisphere: Literal["N", "S"] = Field(description="'N' for the northern hemisphere, 'S' for the southern")


class MercatorPoint(BaseModel):
    x_m: float = Field(ge=-20_037_508.35, le=20_037_508.35, description="Web Mercator x (easting) in metres")
    y_m: float = Field(ge=-20_048_966.11, le=20_048_966.11, description="Web Mercator y (northing) in metres")


def _dms_parts(value: float, axis: Literal["lat", "lon"]) -> dict[str, object]:
    d = c.decimal_to_dms(value, axis)
    return {"degrees": d.degrees, "minutes": d.minutes, "seconds": round(d.seconds, 4), "hemisphere": d.hemisphere}


def decimal_to_dms(lat: float, lon: float) -> str:
    """Convert a position from decimal degrees to degrees-minutes-seconds (seconds rounded to 2 decimals).
    Returns JSON {"dms": "40°26'46.30\\"N, 79°58'56.00\\"W", "lat_parts": {degrees, minutes, seconds,
    hemisphere}, "lon_parts": {...}} where the parts are unrounded."""
    return result(dms=c.format_dms(lat, lon, 2), lat_parts=_dms_parts(lat, "lat"), lon_parts=_dms_parts(lon, "lon"))


def dms_to_decimal(text: str) -> str:
    """Convert degrees-minutes-seconds text to signed decimal degrees (south and west negative).
    Returns JSON {"lat", "lon"} for a pair, or {"value"} for a single angle."""
    try:
        lat, lon = c.parse_coordinate_pair(text)
    except ValueError:
        return result(value=c.parse_dms(text))
    return result(lat=lat, lon=lon)


def latlon_to_utm(lat: float, lon: float, zone: int | None = None) -> str:
    """Project a WGS84 position to UTM (Transverse Mercator, scale 0.9996, false easting 500,000 m, false
    northing 10,000,000 m south of the equator). Latitude must be within -80..84.
    Returns JSON {"zone", "hemisphere", "easting_m", "northing_m"}."""
    z = c.simple_utm_zone(lon) if zone is None else zone
    u = c.to_utm(lat, lon, z)
    return result(zone=u.zone, hemisphere=u.hemisphere, easting_m=u.easting, northing_m=u.northing)


def utm_to_latlon(easting_m: float, northing_m: float, zone: int, hemisphere: str) -> str:
    """Convert a WGS84 UTM coordinate back to latitude and longitude in decimal degrees.
    Returns JSON {"lat", "lon"}."""
    lat, lon = c.from_utm(easting_m, northing_m, zone, hemisphere)
    return result(lat=lat, lon=lon)


def latlon_to_web_mercator(lat: float, lon: float) -> str:
    """Project a WGS84 position to Web Mercator (EPSG:3857, sphere R = 6378137 m): x = R·lon, y = R·ln(tan(45° +
    lat/2)), angles in radians. |lat| must be <= 85.051129. Returns JSON {"x_m", "y_m"}."""
    x, y = c.to_web_mercator(lat, lon)
    return result(x_m=x, y_m=y)


def web_mercator_to_latlon(x_m: float, y_m: float) -> str:
    """Convert Web Mercator (EPSG:3857) metres back to latitude and longitude in decimal degrees.
    Returns JSON {"lat", "lon"}."""
    lat, lon = c.from_web_mercator(x_m, y_m)
    return result(lat=lat, lon=lon)


@toolset("projections", "Coordinate formats and projections: decimal degrees <-> DMS, WGS84 <-> UTM and Web Mercator")
def projection_tools() -> list[BaseTool]:
    """Coordinate formats and projections: decimal degrees <-> DMS, WGS84 <-> UTM and Web Mercator."""
    return [
        make_tool(decimal_to_dms, Point),
        make_tool(dms_to_decimal, DmsText),
        make_tool(latlon_to_utm, UtmPoint),
        make_tool(utm_to_latlon, UtmCoordinate),
        make_tool(latlon_to_web_mercator, Point),
        make_tool(web_mercator_to_latlon, MercatorPoint),
    ]
