"""The ``geodesy`` tool set: distances, bearings, destinations and interpolation over geocore."""

from __future__ import annotations

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from geocore import geodesy as g
from tools._common import Lat, Lon, make_tool, result
from tools.registry import toolset


class TwoPoints(BaseModel):
    lat1: Lat
    lon1: Lon
    lat2: Lat
    lon2: Lon


class Interpolation(TwoPoints):
    fraction: float = Field(ge=0, le=1, description="Fraction of the way from point 1 to point 2, 0 to 1")


class Destination(BaseModel):
    lat: Lat
    lon: Lon
    bearing_deg: float = Field(ge=0, le=360, description="Initial bearing in degrees clockwise from north, 0 to 360")
    distance_km: float = Field(ge=0, le=20_037.5, description="Distance to travel in kilometres, 0 to 20,037.5")


def distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> str:
    """Great-circle (haversine) distance between two points on a sphere of radius 6371 km.
    Returns JSON {"distance_km", "distance_miles"}."""
    d = g.haversine_km(lat1, lon1, lat2, lon2)
    return result(distance_km=d, distance_miles=d / 1.609344)


def geodesic_distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> str:
    """Geodesic distance between two points on the WGS84 ellipsoid (more exact than the sphere).
    Returns JSON {"distance_km"}."""
    return result(distance_km=g.geodesic_km(lat1, lon1, lat2, lon2))


def initial_bearing(lat1: float, lon1: float, lat2: float, lon2: float) -> str:
    """Initial great-circle bearing from point 1 to point 2, degrees clockwise from north in [0, 360),
    with its 8- and 16-point compass names. Returns JSON {"bearing_deg", "compass_8", "compass_16"}."""
    b = g.initial_bearing(lat1, lon1, lat2, lon2)
    return result(bearing_deg=b, compass_8=g.compass_point(b, 8), compass_16=g.compass_point(b, 16))


def destination_point(lat: float, lon: float, bearing_deg: float, distance_km: float) -> str:
    """Point reached by travelling distance_km from (lat, lon) along the great circle with the given initial
    bearing, on a sphere of radius 6371 km. Returns JSON {"lat", "lon"}."""
    la, lo = g.destination(lat, lon, bearing_deg, distance_km)
    return result(lat=la, lon=lo)


def interpolate_great_circle(lat1: float, lon1: float, lat2: float, lon2: float, fraction: float) -> str:
    """Point at a fraction (0 to 1) of the way along the great circle from point 1 to point 2
    (spherical linear interpolation). Returns JSON {"lat", "lon"}."""
    la, lo = g.interpolate(lat1, lon1, lat2, lon2, fraction)
    return result(lat=la, lon=lo)


def midpoint(lat1: float, lon1: float, lat2: float, lon2: float) -> str:
    """Great-circle midpoint of two points. Returns JSON {"lat", "lon"}."""
    la, lo = g.midpoint(lat1, lon1, lat2, lon2)
    return result(lat=la, lon=lo)


@toolset("geodesy", "Distances, bearings, destination points and great-circle interpolation")
def geodesy_tools() -> list[BaseTool]:
    """Distances, bearings, destination points and great-circle interpolation."""
    return [
        make_tool(distance_km, TwoPoints),
        make_tool(geodesic_distance_km, TwoPoints),
        make_tool(initial_bearing, TwoPoints),
        make_tool(destination_point, Destination),
        make_tool(interpolate_great_circle, Interpolation),
        make_tool(midpoint, TwoPoints),
    ]
