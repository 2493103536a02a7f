"""Great-circle geometry on a sphere (GPSBench gold, R = 6371 km) and WGS84 geodesics via pyproj.

All angles are degrees, arguments are ordered lat then lon, distances are kilometres.
"""

from __future__ import annotations

import math

from pyproj import Geod

from geocore import sphere
from geocore import validation as check
from geocore.sphere import (
    EARTH_RADIUS_KM,
    Vec,
    along_track_angle,
    central_angle,
    cross,
    cross_track_angle,
    norm,
    norm360,
    norm_lon,
    unit_vector,
    vector_angle,
    vector_latlon,
)

COMPASS_8: tuple[str, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
COMPASS_16: tuple[str, ...] = (
    "N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE",
    "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW",
)
_WORDS = {"N": "north", "E": "east", "S": "south", "W": "west"}

WGS84 = Geod(ellps="WGS84")
"""The WGS84 ellipsoid (pyproj/GeographicLib) for geodesic distances, areas and interpolation."""
_ANTIPODAL_EPS = 1e-12  # radians: closer than this to antipodal, the great circle is undefined


# ----------------------------------------------------------------------------- helpers

def _pair(lat1: float, lon1: float, lat2: float, lon2: float) -> tuple[float, float, float, float]:
    return (check.lat(lat1, "lat1"), check.lon(lon1, "lon1"), check.lat(lat2, "lat2"), check.lon(lon2, "lon2"))


def _great_circle_normal(lat1: float, lon1: float, lat2: float, lon2: float) -> tuple[Vec, Vec]:
    """Start vector and unit normal of the great circle 1 -> 2; ValueError if it is undefined."""
    a, b = unit_vector(lat1, lon1), unit_vector(lat2, lon2)
    n = cross(a, b)
    size = norm(n)
    if size < _ANTIPODAL_EPS:
        raise ValueError("(lat1, lon1) and (lat2, lon2) must be distinct and not antipodal to define a great circle")
    return a, (n[0] / size, n[1] / size, n[2] / size)


# ----------------------------------------------------------------------------- distances

def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float, radius_km: float = EARTH_RADIUS_KM) -> float:
    """Great-circle distance in km on a sphere (GPSBench App. C.1, the gold for distance tasks)."""
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    return check.positive(radius_km, "radius_km") * central_angle(lat1, lon1, lat2, lon2)


def geodesic_inverse(lat1: float, lon1: float, lat2: float, lon2: float) -> tuple[float, float, float]:
    """WGS84 inverse problem: (forward azimuth at 1, back azimuth at 2 pointing to 1, distance km).

    Azimuths are degrees in [0, 360).
    """
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    az12, az21, dist_m = WGS84.inv(lon1, lat1, lon2, lat2)
    return (norm360(az12), norm360(az21), dist_m / 1000.0)


def geodesic_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Shortest distance in km on the WGS84 ellipsoid (Karney's algorithm via pyproj)."""
    return geodesic_inverse(lat1, lon1, lat2, lon2)[2]


# ----------------------------------------------------------------------------- directions

def initial_bearing(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Spherical forward azimuth from 1 to 2 in [0, 360) (GPSBench App. C.2); 0 for identical points."""
    return sphere.initial_bearing(*_pair(lat1, lon1, lat2, lon2))


def final_bearing(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Spherical azimuth of travel on arrival at 2 along the great circle from 1, in [0, 360)."""
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    return norm360(sphere.initial_bearing(lat2, lon2, lat1, lon1) + 180.0)


def compass_point(bearing_deg: float, points: int = 8) -> str:
    """Compass abbreviation of a bearing; 8 points use GPSBench's bins (N = [337.5, 22.5)), or 16 points.

    Any finite bearing is accepted and first reduced to [0, 360).
    """
    b = norm360(check.finite(bearing_deg, "bearing_deg"))
    if isinstance(points, bool) or points not in (8, 16):
        raise ValueError(f"points must be 8 or 16, got {points!r}")
    names = COMPASS_8 if points == 8 else COMPASS_16
    width = 360.0 / points
    return names[int((b + width / 2) // width) % points]


def compass_name(abbrev: str) -> str:
    """Full name of a compass abbreviation: "NE" -> "northeast", "NNE" -> "north-northeast"."""
    key = abbrev.strip().upper() if isinstance(abbrev, str) else None
    if key not in COMPASS_16:
        raise ValueError(f"abbrev must be one of {', '.join(COMPASS_16)}, got {abbrev!r}")
    if len(key) == 3:
        return f"{_WORDS[key[0]]}-{compass_name(key[1:])}"
    return "".join(_WORDS[c] for c in key)


# ----------------------------------------------------------------------------- points along paths

def destination(
    lat: float, lon: float, bearing_deg: float, distance_km: float, radius_km: float = EARTH_RADIUS_KM
) -> tuple[float, float]:
    """Point reached from (lat, lon) after ``distance_km`` along a great circle with initial ``bearing_deg``.

    Longitude is returned in [-180, 180].
    """
    lat, lon = check.lat(lat, "lat"), check.lon(lon, "lon")
    bearing = check.finite(bearing_deg, "bearing_deg")
    angle = check.non_negative(distance_km, "distance_km") / check.positive(radius_km, "radius_km")
    lat2, lon2 = sphere.destination(lat, lon, bearing, angle)
    return (lat2, norm_lon(lon2))


def midpoint(lat1: float, lon1: float, lat2: float, lon2: float) -> tuple[float, float]:
    """Great-circle midpoint (normalised sum of the unit vectors); ValueError for antipodal points."""
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    a, b = unit_vector(lat1, lon1), unit_vector(lat2, lon2)
    m = (a[0] + b[0], a[1] + b[1], a[2] + b[2])
    if norm(m) < _ANTIPODAL_EPS:
        raise ValueError("(lat1, lon1) and (lat2, lon2) are antipodal: their midpoint is undefined")
    return vector_latlon(m)


def interpolate(lat1: float, lon1: float, lat2: float, lon2: float, fraction: float) -> tuple[float, float]:
    """Point at ``fraction`` of the great-circle arc 1 -> 2 by slerp (GPSBench App. C.3).

    fraction 0 and 1 return the inputs exactly, identical points return point 1, and antipodal points
    (no unique great circle) raise ValueError.
    """
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    f = check.fraction(fraction)
    if f == 0.0:
        return (lat1, lon1)
    if f == 1.0:
        return (lat2, lon2)
    a, b = unit_vector(lat1, lon1), unit_vector(lat2, lon2)
    delta = vector_angle(a, b)
    if delta == 0.0:
        return (lat1, lon1)
    if math.pi - delta < _ANTIPODAL_EPS:
        raise ValueError("(lat1, lon1) and (lat2, lon2) are antipodal: the great circle between them is undefined")
    s = math.sin(delta)
    wa, wb = math.sin((1.0 - f) * delta) / s, math.sin(f * delta) / s
    return vector_latlon((wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2]))


def geodesic_interpolate(lat1: float, lon1: float, lat2: float, lon2: float, fraction: float) -> tuple[float, float]:
    """Point at ``fraction`` of the WGS84 geodesic 1 -> 2 (by distance); fraction 0/1 return the inputs."""
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    f = check.fraction(fraction)
    if f == 0.0:
        return (lat1, lon1)
    if f == 1.0:
        return (lat2, lon2)
    az12, _, dist_m = WGS84.inv(lon1, lat1, lon2, lat2)
    lon, lat, _ = WGS84.fwd(lon1, lat1, az12, f * dist_m)
    return (lat, norm_lon(lon))


def cross_track_km(
    lat: float, lon: float, lat1: float, lon1: float, lat2: float, lon2: float, radius_km: float = EARTH_RADIUS_KM
) -> float:
    """Signed distance in km from (lat, lon) to the great circle through 1 and 2 (sphere).

    Positive when the point lies to the right of the direction of travel 1 -> 2, negative to the left.
    """
    p = unit_vector(check.lat(lat, "lat"), check.lon(lon, "lon"))
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    r = check.positive(radius_km, "radius_km")
    _, n = _great_circle_normal(lat1, lon1, lat2, lon2)
    return -r * cross_track_angle(p, n)


def along_track_km(
    lat: float, lon: float, lat1: float, lon1: float, lat2: float, lon2: float, radius_km: float = EARTH_RADIUS_KM
) -> float:
    """Signed distance in km from point 1, along the great circle towards 2, to the foot of (lat, lon).

    Negative when the foot lies behind point 1; the result is within [-pi R, pi R].
    """
    p = unit_vector(check.lat(lat, "lat"), check.lon(lon, "lon"))
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    r = check.positive(radius_km, "radius_km")
    a, n = _great_circle_normal(lat1, lon1, lat2, lon2)
    return r * along_track_angle(p, a, cross(n, a))  # cross(n, a): unit tangent at 1, pointing towards 2
