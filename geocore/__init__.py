"""geocore: pure geospatial computation (degrees in and out, lat before lon).

Imports no other package of the project. The names below are loaded lazily, so importing one submodule
(e.g. ``geocore.timezones``) does not pull in pyproj or shapely.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_GEODESY = (
    "COMPASS_8", "COMPASS_16", "haversine_km", "geodesic_km", "geodesic_inverse",
    "initial_bearing", "final_bearing", "compass_point", "compass_name", "destination", "midpoint",
    "interpolate", "geodesic_interpolate", "cross_track_km", "along_track_km",
)
_POLYGONS = (
    "BoundingBox", "spherical_polygon_area_km2", "spherical_perimeter_km", "geodesic_area_perimeter",
    "sort_by_angle", "bounds", "bounding_box", "centroid", "spherical_centroid", "rdp",
    "point_in_polygon", "polygon_relation", "segments_intersect", "segment_intersection",
)
_COORDS = (
    "DMS", "UTM", "decimal_to_dms", "dms_to_decimal", "format_dms", "parse_dms", "parse_coordinate_pair",
    "utm_zone", "simple_utm_zone", "to_utm", "from_utm", "to_web_mercator", "from_web_mercator",
)
_EXPORTS: dict[str, str] = {
    "EARTH_RADIUS_KM": "sphere",
    **dict.fromkeys(_GEODESY, "geodesy"),
    **dict.fromkeys(_POLYGONS, "polygons"),
    **dict.fromkeys(_COORDS, "coords"),
}

__all__ = [
    "BoundingBox",
    "COMPASS_16",
    "COMPASS_8",
    "DMS",
    "EARTH_RADIUS_KM",
    "UTM",
    "along_track_km",
    "bounding_box",
    "bounds",
    "centroid",
    "compass_name",
    "compass_point",
    "cross_track_km",
    "decimal_to_dms",
    "destination",
    "dms_to_decimal",
    "final_bearing",
    "format_dms",
    "from_utm",
    "from_web_mercator",
    "geodesic_area_perimeter",
    "geodesic_interpolate",
    "geodesic_inverse",
    "geodesic_km",
    "haversine_km",
    "initial_bearing",
    "interpolate",
    "midpoint",
    "parse_coordinate_pair",
    "parse_dms",
    "point_in_polygon",
    "polygon_relation",
    "rdp",
    "segment_intersection",
    "segments_intersect",
    "simple_utm_zone",
    "sort_by_angle",
    "spherical_centroid",
    "spherical_perimeter_km",
    "spherical_polygon_area_km2",
    "to_utm",
    "to_web_mercator",
    "utm_zone",
]  # the same names as _EXPORTS (a literal, for linters)


def __getattr__(name: str) -> Any:
    """Load an exported name from its submodule on first access."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'geocore' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"geocore.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:
    from geocore.coords import (
        DMS,
        UTM,
        decimal_to_dms,
        dms_to_decimal,
        format_dms,
        from_utm,
        from_web_mercator,
        parse_coordinate_pair,
        parse_dms,
        simple_utm_zone,
        to_utm,
        to_web_mercator,
        utm_zone,
    )
    from geocore.geodesy import (
        COMPASS_8,
        COMPASS_16,
        along_track_km,
        compass_name,
        compass_point,
        cross_track_km,
        destination,
        final_bearing,
        geodesic_interpolate,
        geodesic_inverse,
        geodesic_km,
        haversine_km,
        initial_bearing,
        interpolate,
        midpoint,
    )
    from geocore.polygons import (
        BoundingBox,
        bounding_box,
        bounds,
        centroid,
        geodesic_area_perimeter,
        point_in_polygon,
        polygon_relation,
        rdp,
        segment_intersection,
        segments_intersect,
        sort_by_angle,
        spherical_centroid,
        spherical_perimeter_km,
        spherical_polygon_area_km2,
    )
    from geocore.sphere import EARTH_RADIUS_KM
