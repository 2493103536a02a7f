"""The great-circle kernels of geocore, on a sphere (GPSBench gold, R = 6371 km): one scalar form (``math``)
and one vectorised form (``numpy``, suffix ``_np``) of each formula, written with the same operations in the
same order, so the two agree to rounding (numpy's SIMD arcsin/arctan2 may differ from libm in the last bits).

Angles in and out are degrees (lat before lon) except central angles, which are radians. Nothing here
validates its arguments: the checked, documented API is :mod:`geocore.geodesy`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

EARTH_RADIUS_KM = 6371.0
"""Mean Earth radius used by GPSBench's gold answers (App. C)."""

Vec = tuple[float, float, float]
FloatArray = NDArray[np.float64]


# ----------------------------------------------------------------------------- angle normalisation

def norm360(deg: float) -> float:
    """Map an angle to [0, 360) (``-1e-17 % 360`` is 360.0 in floats, hence the guard)."""
    x = deg % 360.0
    return 0.0 if x >= 360.0 else x + 0.0


def norm360_np(deg: ArrayLike) -> FloatArray:
    """:func:`norm360` on arrays."""
    x = np.mod(deg, 360.0)
    return np.where(x >= 360.0, 0.0, x + 0.0)


def norm_lon(deg: float) -> float:
    """Leave a longitude in [-180, 180] untouched, otherwise wrap it into [-180, 180)."""
    if -180.0 <= deg <= 180.0:
        return deg
    return (deg + 180.0) % 360.0 - 180.0


# ----------------------------------------------------------------------------- unit vectors

def unit_vector(lat: float, lon: float) -> Vec:
    """Unit vector (GPSBench eq. 3) of a point given in degrees."""
    p, q = math.radians(lat), math.radians(lon)
    return (math.cos(p) * math.cos(q), math.cos(p) * math.sin(q), math.sin(p))


def unit_vector_np(lat: ArrayLike, lon: ArrayLike) -> FloatArray:
    """Unit vectors (N x 3) of points given as arrays of degrees."""
    p, q = np.radians(lat), np.radians(lon)
    return np.column_stack((np.cos(p) * np.cos(q), np.cos(p) * np.sin(q), np.sin(p)))


def vector_latlon(v: Vec) -> tuple[float, float]:
    """Degrees (lat, lon) of a non-zero vector (GPSBench eq. 6)."""
    x, y, z = v
    return (math.degrees(math.atan2(z, math.hypot(x, y))), math.degrees(math.atan2(y, x)))


def dot(a: Vec, b: Vec) -> float:
    """Dot product of two 3-vectors."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vec, b: Vec) -> Vec:
    """Cross product of two 3-vectors."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(a: Vec) -> float:
    """Euclidean length of a 3-vector."""
    return math.sqrt(dot(a, a))


def vector_angle(a: Vec, b: Vec) -> float:
    """Angle in radians between two vectors, accurate at all separations."""
    return math.atan2(norm(cross(a, b)), dot(a, b))


def cross_track_angle(p: Vec, n: Vec) -> float:
    """Signed angle (radians) from the unit vector ``p`` to the great circle with unit normal ``n``; positive on
    the side ``n`` points to."""
    h = dot(p, n)
    return math.atan2(h, norm((p[0] - h * n[0], p[1] - h * n[1], p[2] - h * n[2])))


def along_track_angle(p: Vec, a: Vec, t: Vec) -> float:
    """Signed angle (radians) along a great circle from its point ``a``, in the direction of the unit tangent
    ``t`` at ``a``, to the foot of the unit vector ``p``; within [-pi, pi]."""
    return math.atan2(dot(p, t), dot(p, a))


# ----------------------------------------------------------------------------- central angle (haversine)

def central_angle(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Haversine central angle in radians between two points (GPSBench eq. 1 without R)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2.0 * math.asin(min(1.0, math.sqrt(h)))


def central_angle_np(lat1: ArrayLike, lon1: ArrayLike, lat2: ArrayLike, lon2: ArrayLike) -> FloatArray:
    """:func:`central_angle` on arrays (broadcast)."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dp, dl = p2 - p1, np.radians(np.subtract(lon2, lon1))
    h = np.sin(dp / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return 2.0 * np.arcsin(np.minimum(1.0, np.sqrt(h)))


# ----------------------------------------------------------------------------- initial bearing

def initial_bearing(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """GPSBench eq. 2: forward azimuth from 1 to 2 in degrees, in [0, 360); 0 for identical points."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dl = math.radians(lon2 - lon1)
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return norm360(math.degrees(math.atan2(y, x)))


def initial_bearing_np(lat1: ArrayLike, lon1: ArrayLike, lat2: ArrayLike, lon2: ArrayLike) -> FloatArray:
    """:func:`initial_bearing` on arrays (broadcast)."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dl = np.radians(np.subtract(lon2, lon1))
    y = np.sin(dl) * np.cos(p2)
    x = np.cos(p1) * np.sin(p2) - np.sin(p1) * np.cos(p2) * np.cos(dl)
    return norm360_np(np.degrees(np.arctan2(y, x)))


# ----------------------------------------------------------------------------- destination point

def destination(lat: float, lon: float, bearing_deg: float, angle: float) -> tuple[float, float]:
    """(lat, lon) reached from a point along a great circle with initial ``bearing_deg`` after the central
    ``angle`` (radians: distance / R; negative goes backwards). The longitude is not wrapped: it may leave
    [-180, 180] by up to 180 degrees (callers wrap it, e.g. with :func:`norm_lon`)."""
    theta = math.radians(bearing_deg)
    p1, l1 = math.radians(lat), math.radians(lon)
    sin_p2 = math.sin(p1) * math.cos(angle) + math.cos(p1) * math.sin(angle) * math.cos(theta)
    p2 = math.asin(max(-1.0, min(1.0, sin_p2)))
    y = math.sin(theta) * math.sin(angle) * math.cos(p1)
    x = math.cos(angle) - math.sin(p1) * sin_p2
    return (math.degrees(p2), math.degrees(l1 + math.atan2(y, x)))


def destination_np(lat: ArrayLike, lon: ArrayLike, bearing_deg: ArrayLike, angle: ArrayLike
                   ) -> tuple[FloatArray, FloatArray]:
    """:func:`destination` on arrays (broadcast): (lats, lons), longitudes not wrapped."""
    theta = np.radians(bearing_deg)
    p1, l1 = np.radians(lat), np.radians(lon)
    sin_p2 = np.sin(p1) * np.cos(angle) + np.cos(p1) * np.sin(angle) * np.cos(theta)
    p2 = np.arcsin(np.clip(sin_p2, -1.0, 1.0))
    y = np.sin(theta) * np.sin(angle) * np.cos(p1)
    x = np.cos(angle) - np.sin(p1) * sin_p2
    return (np.degrees(p2), np.degrees(l1 + np.arctan2(y, x)))


# ----------------------------------------------------------------------------- spherical excess

def lhuilier_excess(a: float, b: float, c: float) -> float:
    """Spherical excess (steradians on the unit sphere) of a triangle with angular sides a, b, c (L'Huilier,
    GPSBench eq. 7)."""
    s = (a + b + c) / 2.0
    t = math.tan(s / 2) * math.tan((s - a) / 2) * math.tan((s - b) / 2) * math.tan((s - c) / 2)
    return 4.0 * math.atan(math.sqrt(max(t, 0.0)))
