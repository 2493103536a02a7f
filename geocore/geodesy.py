"""Great-circle geometry on a sphere (GPSBench gold, R = 6371 km) and WGS84 geodesics via pyproj.

All angles are degrees, arguments are ordered lat then lon, distances are kilometres.
"""

from __future__ import annotations

import math

from pyproj import Geod

from geocore import _validate as check

EARTH_RADIUS_KM = 6371.0
"""Mean Earth radius used by GPSBench's gold answers (App. C)."""

COMPASS_8: tuple[str, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
COMPASS_16: tuple[str, ...] = (
    "N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE",
    "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW",
)
_WORDS = {"N": "north", "E": "east", "S": "south", "W": "west"}

_WGS84 = Geod(ellps="WGS84")
_ANTIPODAL_EPS = 1e-12  # radians: closer than this to antipodal, the great circle is undefined

Vec = tuple[float, float, float]


# ----------------------------------------------------------------------------- helpers

def _pair(lat1: float, lon1: float, lat2: float, lon2: float) -> tuple[float, float, float, float]:
    return (check.lat(lat1, "lat1"), check.lon(lon1, "lon1"), check.lat(lat2, "lat2"), check.lon(lon2, "lon2"))


def _norm360(deg: float) -> float:
    """Map an angle to [0, 360) (``-1e-17 % 360`` is 360.0 in floats, hence the guard)."""
    x = deg % 360.0
    return 0.0 if x >= 360.0 else x + 0.0


def _norm_lon(deg: float) -> float:
    """Leave a longitude in [-180, 180] untouched, otherwise wrap it into [-180, 180)."""
    if -180.0 <= deg <= 180.0:
        return deg
    return (deg + 180.0) % 360.0 - 180.0


def _vec(lat: float, lon: float) -> Vec:
    """Unit vector (GPSBench eq. 3) of a point given in degrees."""
    p, q = math.radians(lat), math.radians(lon)
    return (math.cos(p) * math.cos(q), math.cos(p) * math.sin(q), math.sin(p))


def _latlon(v: Vec) -> tuple[float, float]:
    """Degrees (lat, lon) of a non-zero vector (GPSBench eq. 6)."""
    x, y, z = v
    return (math.degrees(math.atan2(z, math.hypot(x, y))), math.degrees(math.atan2(y, x)))


def _dot(a: Vec, b: Vec) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _norm(a: Vec) -> float:
    return math.sqrt(_dot(a, a))


def _angle(a: Vec, b: Vec) -> float:
    """Angle in radians between two unit vectors, accurate at all separations."""
    return math.atan2(_norm(_cross(a, b)), _dot(a, b))


def _central_angle(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Haversine central angle in radians (GPSBench eq. 1 without R); no validation."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2.0 * math.asin(min(1.0, math.sqrt(h)))


def _bearing(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """GPSBench eq. 2 in degrees, normalised to [0, 360); no validation."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dl = math.radians(lon2 - lon1)
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return _norm360(math.degrees(math.atan2(y, x)))


def _great_circle_normal(lat1: float, lon1: float, lat2: float, lon2: float) -> tuple[Vec, Vec]:
    """Start vector and unit normal of the great circle 1 -> 2; ValueError if it is undefined."""
    a, b = _vec(lat1, lon1), _vec(lat2, lon2)
    n = _cross(a, b)
    size = _norm(n)
    if size < _ANTIPODAL_EPS:
        raise ValueError("(lat1, lon1) and (lat2, lon2) must be distinct and not antipodal to define a great circle")
    return a, (n[0] / size, n[1] / size, n[2] / size)


# ----------------------------------------------------------------------------- distances

def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float, radius_km: float = EARTH_RADIUS_KM) -> float:
    """Great-circle distance in km on a sphere (GPSBench App. C.1, the gold for distance tasks)."""
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    return check.positive(radius_km, "radius_km") * _central_angle(lat1, lon1, lat2, lon2)


def geodesic_inverse(lat1: float, lon1: float, lat2: float, lon2: float) -> tuple[float, float, float]:
    """WGS84 inverse problem: (forward azimuth at 1, back azimuth at 2 pointing to 1, distance km).

    Azimuths are degrees in [0, 360).
    """
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    az12, az21, dist_m = _WGS84.inv(lon1, lat1, lon2, lat2)
    return (_norm360(az12), _norm360(az21), dist_m / 1000.0)


def geodesic_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Shortest distance in km on the WGS84 ellipsoid (Karney's algorithm via pyproj)."""
    return geodesic_inverse(lat1, lon1, lat2, lon2)[2]


# ----------------------------------------------------------------------------- directions

def initial_bearing(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Spherical forward azimuth from 1 to 2 in [0, 360) (GPSBench App. C.2); 0 for identical points."""
    return _bearing(*_pair(lat1, lon1, lat2, lon2))


def final_bearing(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Spherical azimuth of travel on arrival at 2 along the great circle from 1, in [0, 360)."""
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    return _norm360(_bearing(lat2, lon2, lat1, lon1) + 180.0)


def compass_point(bearing_deg: float, points: int = 8) -> str:
    """Compass abbreviation of a bearing; 8 points use GPSBench's bins (N = [337.5, 22.5)), or 16 points.

    Any finite bearing is accepted and first reduced to [0, 360).
    """
    b = _norm360(check.finite(bearing_deg, "bearing_deg"))
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
    theta = math.radians(check.finite(bearing_deg, "bearing_deg"))
    delta = check.non_negative(distance_km, "distance_km") / check.positive(radius_km, "radius_km")
    p1, l1 = math.radians(lat), math.radians(lon)
    sin_p2 = math.sin(p1) * math.cos(delta) + math.cos(p1) * math.sin(delta) * math.cos(theta)
    p2 = math.asin(max(-1.0, min(1.0, sin_p2)))
    y = math.sin(theta) * math.sin(delta) * math.cos(p1)
    x = math.cos(delta) - math.sin(p1) * sin_p2
    l2 = l1 + math.atan2(y, x)
    return (math.degrees(p2), _norm_lon(math.degrees(l2)))


def midpoint(lat1: float, lon1: float, lat2: float, lon2: float) -> tuple[float, float]:
    """Great-circle midpoint (normalised sum of the unit vectors); ValueError for antipodal points."""
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    a, b = _vec(lat1, lon1), _vec(lat2, lon2)
    m = (a[0] + b[0], a[1] + b[1], a[2] + b[2])
    if _norm(m) < _ANTIPODAL_EPS:
        raise ValueError("(lat1, lon1) and (lat2, lon2) are antipodal: their midpoint is undefined")
    return _latlon(m)


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
    a, b = _vec(lat1, lon1), _vec(lat2, lon2)
    delta = _angle(a, b)
    if delta == 0.0:
        return (lat1, lon1)
    if math.pi - delta < _ANTIPODAL_EPS:
        raise ValueError("(lat1, lon1) and (lat2, lon2) are antipodal: the great circle between them is undefined")
    s = math.sin(delta)
    wa, wb = math.sin((1.0 - f) * delta) / s, math.sin(f * delta) / s
    return _latlon((wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2]))


def geodesic_interpolate(lat1: float, lon1: float, lat2: float, lon2: float, fraction: float) -> tuple[float, float]:
    """Point at ``fraction`` of the WGS84 geodesic 1 -> 2 (by distance); fraction 0/1 return the inputs."""
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    f = check.fraction(fraction)
    if f == 0.0:
        return (lat1, lon1)
    if f == 1.0:
        return (lat2, lon2)
    az12, _, dist_m = _WGS84.inv(lon1, lat1, lon2, lat2)
    lon, lat, _ = _WGS84.fwd(lon1, lat1, az12, f * dist_m)
    return (lat, _norm_lon(lon))


def cross_track_km(
    lat: float, lon: float, lat1: float, lon1: float, lat2: float, lon2: float, radius_km: float = EARTH_RADIUS_KM
) -> float:
    """Signed distance in km from (lat, lon) to the great circle through 1 and 2 (sphere).

    Positive when the point lies to the right of the direction of travel 1 -> 2, negative to the left.
    """
    p = _vec(check.lat(lat, "lat"), check.lon(lon, "lon"))
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    r = check.positive(radius_km, "radius_km")
    _, n = _great_circle_normal(lat1, lon1, lat2, lon2)
    h = _dot(p, n)
    in_plane = _norm((p[0] - h * n[0], p[1] - h * n[1], p[2] - h * n[2]))
    return -r * math.atan2(h, in_plane)


def along_track_km(
    lat: float, lon: float, lat1: float, lon1: float, lat2: float, lon2: float, radius_km: float = EARTH_RADIUS_KM
) -> float:
    """Signed distance in km from point 1, along the great circle towards 2, to the foot of (lat, lon).

    Negative when the foot lies behind point 1; the result is within [-pi R, pi R].
    """
    p = _vec(check.lat(lat, "lat"), check.lon(lon, "lon"))
    lat1, lon1, lat2, lon2 = _pair(lat1, lon1, lat2, lon2)
    r = check.positive(radius_km, "radius_km")
    a, n = _great_circle_normal(lat1, lon1, lat2, lon2)
    t = _cross(n, a)  # unit tangent at point 1, pointing towards point 2
    return r * math.atan2(_dot(p, t), _dot(p, a))
