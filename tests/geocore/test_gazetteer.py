"""geocore.gazetteer: GeoNames cities, countries, point → country, land/sea."""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable

import pytest

from geocore import gazetteer as gz
from geocore import timezones as tzs


def _sphere_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Spherical law of cosines on R = 6371 km (independent of the module's haversine)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    c = math.sin(p1) * math.sin(p2) + math.cos(p1) * math.cos(p2) * math.cos(math.radians(lon2 - lon1))
    return 6371.0 * math.acos(max(-1.0, min(1.0, c)))


# --- cities -----------------------------------------------------------------------------------------------


def test_cities_count_and_fields() -> None:
    cs = gz.cities()
    assert 30_000 < len(cs) < 40_000
    assert gz.cities() is cs  # cached
    assert len({c.geonameid for c in cs}) == len(cs)
    for c in cs:
        assert -90 <= c.lat <= 90 and -180 <= c.lon <= 180
        assert c.continent in gz.CONTINENTS
        assert len(c.country_code) == 2 and c.country
        assert c.population >= 0
        assert isinstance(c.alternate_names, tuple)
        assert c.ascii_name.isascii()


def test_city_is_frozen() -> None:
    city = gz.cities()[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        city.name = "x"  # type: ignore[misc]


def test_city_time_zones_are_canonical_iana_names() -> None:
    zones = {c.timezone for c in gz.cities()}
    assert all(tzs.is_canonical_zone(z) for z in zones), sorted(z for z in zones if not tzs.is_canonical_zone(z))


def test_city_sections_are_left_out() -> None:
    names = {c.name for c in gz.cities()}
    assert "Paris 04 Hôtel-de-Ville" not in names and "Lyon 03" not in names
    assert not any("(Kreis" in n for n in names)
    assert {"Paris", "Lyon", "Marseille", "Zürich", "Winterthur", "Bucharest"} <= names


def test_ascii_name() -> None:
    (munich,) = gz.find_city("Munich")
    assert gz._ascii_name("Łódź") == "Lodz"
    assert gz._ascii_name("São Paulo") == "Sao Paulo"
    assert gz._ascii_name("Zürich") == "Zurich"
    assert munich.ascii_name == "Munich"


# --- find_city ----------------------------------------------------------------------------------------------


def test_find_city_paris_top_is_france() -> None:
    found = gz.find_city("Paris")
    assert found[0].country_code == "FR" and found[0].name == "Paris"
    assert found[0].timezone == "Europe/Paris"
    assert any(c.country_code == "US" for c in found)
    pops = [c.population for c in found]
    assert pops == sorted(pops, reverse=True)


@pytest.mark.parametrize("query", ["München", "Muenchen", "munchen", "MÜNCHEN", "Monaco di Baviera"])
def test_find_city_by_alternate_names(query: str) -> None:
    found = gz.find_city(query)
    assert found and found[0].name == "Munich" and found[0].country_code == "DE"


@pytest.mark.parametrize(("query", "name", "cc"), [("sao paulo", "São Paulo", "BR"), ("Zurich", "Zürich", "CH"), ("LODZ", "Łódź", "PL"), ("new-york city", "New York City", "US"), ("Xi'an", "Xi’an", "CN"), ("xian", "Xi’an", "CN")])
def test_find_city_ignores_case_accents_punctuation(query: str, name: str, cc: str) -> None:
    found = gz.find_city(query)
    assert found and (found[0].name, found[0].country_code) == (name, cc)


@pytest.mark.parametrize("country", ["US", "us", "USA", "United States", "United States of America"])
def test_find_city_country_filter(country: str) -> None:
    found = gz.find_city("Paris", country=country)
    assert found and all(c.country_code == "US" for c in found)


def test_find_city_no_match_and_bad_input() -> None:
    assert gz.find_city("Qwxzplorkville") == []
    with pytest.raises(ValueError, match="name"):
        gz.find_city("  ")
    with pytest.raises(ValueError, match="country"):
        gz.find_city("Paris", country="Atlantis")


def test_find_city_is_whole_name_not_substring() -> None:
    assert all(c.name != "Parisot" for c in gz.find_city("Paris"))


# --- countries & continents ---------------------------------------------------------------------------------


def test_continents() -> None:
    assert gz.CONTINENTS == {
        "AF": "Africa",
        "AS": "Asia",
        "EU": "Europe",
        "NA": "North America",
        "SA": "South America",
        "OC": "Oceania",
        "AN": "Antarctica",
    }


@pytest.mark.parametrize(("cc", "cont"), [("BR", "SA"), ("FR", "EU"), ("fr", "EU"), ("JP", "AS"), ("NG", "AF"), ("AU", "OC"), ("US", "NA"), ("AQ", "AN")])
def test_continent_of_country(cc: str, cont: str) -> None:
    assert gz.continent_of_country(cc) == cont


def test_country_name_and_code() -> None:
    assert gz.country_name("DE") == "Germany"
    assert gz.country_name("bq") == "Bonaire, Saint Eustatius and Saba"  # trailing space in the data
    assert gz.country_code("France") == "FR"
    assert gz.country_code("FRA") == "FR"
    assert gz.country_code("uk") == "GB"
    assert gz.country_code("Côte d'Ivoire") == "CI"
    assert gz.country_code("Kosovo") == "XK"


@pytest.mark.parametrize(("name", "cc"), [("Palestine", "PS"), ("State of Palestine", "PS"), ("Macau", "MO"),
                                          ("Vatican City", "VA"), ("The Gambia", "GM"), ("the Bahamas", "BS"),
                                          ("The Netherlands", "NL"), ("St. Lucia", "LC"), ("St Kitts and Nevis", "KN"),
                                          ("Saint Lucia", "LC")])
def test_common_country_names(name: str, cc: str) -> None:
    assert gz.country_code(name) == cc


@pytest.mark.parametrize("bad", ["The", "St.", "the moon", "Korea"])  # "Korea" is two countries
def test_unknown_or_ambiguous_country_names_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="is not a known country code or name"):
        gz.country_code(bad)


@pytest.mark.parametrize("bad", ["ZZ", "", "FRA", None, 33])
def test_country_functions_reject_unknown_codes(bad: object) -> None:
    with pytest.raises(ValueError, match="cc"):
        gz.country_name(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cc"):
        gz.continent_of_country(bad)  # type: ignore[arg-type]


# --- nearest_cities ---------------------------------------------------------------------------------------


def test_nearest_cities_paris() -> None:
    got = gz.nearest_cities(48.8566, 2.3522)
    assert len(got) == 5
    assert got[0][0].name == "Paris" and got[0][0].country_code == "FR"
    assert got[0][1] < 1.0
    dists = [d for _, d in got]
    assert dists == sorted(dists)


def test_nearest_cities_distances_match_independent_formula() -> None:
    rng = random.Random(11)
    cs = gz.cities()
    for _ in range(50):
        lat, lon = rng.uniform(-60, 70), rng.uniform(-180, 180)
        got = gz.nearest_cities(lat, lon, k=3)
        for city, d in got:
            assert d == pytest.approx(_sphere_km(lat, lon, city.lat, city.lon), abs=1e-6, rel=1e-9)
        # brute force: nothing is nearer than the first answer
        best = min(_sphere_km(lat, lon, c.lat, c.lon) for c in cs[::97])
        assert got[0][1] <= best + 1e-9


def test_nearest_cities_k_and_antimeridian() -> None:
    got = gz.nearest_cities(-17.7134, 178.065, k=1)  # Fiji, close to 180°
    assert len(got) == 1 and got[0][0].country_code == "FJ"
    assert len(gz.nearest_cities(0, 0, k=10**6)) == len(gz.cities())


@pytest.mark.parametrize("k", [0, -1, 2.5, "3", True])
def test_nearest_cities_bad_k(k: object) -> None:
    with pytest.raises(ValueError, match="k"):
        gz.nearest_cities(0, 0, k=k)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "func", [gz.nearest_cities, gz.country_at, gz.continent_at, gz.is_land], ids=lambda f: f.__name__
)
@pytest.mark.parametrize(("lat", "lon", "name"), [(91, 0, "lat"), (-91, 0, "lat"), (float("nan"), 0, "lat"), ("north", 0, "lat"), (0, 180.5, "lon"), (0, float("inf"), "lon")])
def test_bad_coordinates_raise_naming_argument(func: Callable[..., object], lat: object, lon: object, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        func(lat, lon)


# --- country_at / continent_at ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lat", "lon", "cc"),
    [
        (48.8566, 2.3522, "FR"),  # "-99" in the data
        (45.7640, 4.8357, "FR"),
        (59.9139, 10.7522, "NO"),  # "-99" in the data
        (60.3913, 5.3221, "NO"),
        (52.5200, 13.4050, "DE"),
        (40.7128, -74.0060, "US"),
        (35.6762, 139.6503, "JP"),
        (-33.8688, 151.2093, "AU"),
        (-23.5505, -46.6333, "BR"),
        (42.6629, 21.1655, "XK"),  # Kosovo, "-99"
        (25.0330, 121.5654, "TW"),  # "CN-TW" in the data
        (35.1856, 33.3823, "CY"),  # Nicosia
        (35.3400, 33.3200, "CY"),  # Northern Cyprus unit
        (9.5600, 44.0650, "SO"),  # Hargeisa, Somaliland unit
        (43.7384, 7.4246, "MC"),
        (41.9029, 12.4534, "VA"),
        (-29.3100, 27.4800, "LS"),  # enclave: inside South Africa's hole
        (-21.1151, 55.5364, "RE"),  # Réunion inside the France unit
        (4.9224, -52.3135, "GF"),
        (78.6, 17.0, "SJ"),  # Svalbard inside the Norway unit
        (12.15, -68.27, "BQ"),
        (-80.0, 0.0, "AQ"),
    ],
)
def test_country_at(lat: float, lon: float, cc: str) -> None:
    got = gz.country_at(lat, lon)
    assert got is not None and got[0] == cc, got
    assert got[1] == gz.country_name(cc)


def test_country_at_names() -> None:
    assert gz.country_at(48.8566, 2.3522) == ("FR", "France")
    assert gz.country_at(59.9139, 10.7522) == ("NO", "Norway")


@pytest.mark.parametrize(("lat", "lon"), [(30.0, -40.0), (0.0, -150.0), (-40.0, 80.0), (10.0, 60.0), (45.5, -20.0)])
def test_country_at_sea_is_none(lat: float, lon: float) -> None:
    assert gz.country_at(lat, lon) is None
    assert gz.continent_at(lat, lon) is None


def test_country_at_never_returns_placeholder_codes() -> None:
    rng = random.Random(5)
    for _ in range(300):
        got = gz.country_at(rng.uniform(-60, 80), rng.uniform(-180, 180))
        if got is not None:
            assert len(got[0]) == 2 and got[0].isalpha(), got


@pytest.mark.parametrize(("lat", "lon", "cont"), [(48.8566, 2.3522, "EU"), (-23.5505, -46.6333, "SA"), (-1.2921, 36.8219, "AF"), (35.6762, 139.6503, "AS"), (40.7128, -74.0060, "NA"), (-33.8688, 151.2093, "OC"), (-80.0, 0.0, "AN")])
def test_continent_at(lat: float, lon: float, cont: str) -> None:
    assert gz.continent_at(lat, lon) == cont


# --- is_land ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("lat", "lon", "land"), [(48.8566, 2.3522, True), (30.0, -40.0, False), (0.0, -150.0, False), (-25.0, 134.0, True), (40.7128, -74.0060, True)])
def test_is_land(lat: float, lon: float, land: bool) -> None:
    got = gz.is_land(lat, lon)
    assert got is land and type(got) is bool


# --- admin1_name --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cc", "code", "name"),
    [("US", "CA", "California"), ("us", "ny", "New York"), ("CH", "ZH", "Zürich"), ("GB", "ENG", "England"), ("GB", "WLS", "Wales"), ("BE", "BRU", "Brussels-Capital Region"), ("ME", "16", "Podgorica")],
)
def test_admin1_name(cc: str, code: str, name: str) -> None:
    assert gz.admin1_name(cc, code) == name


def test_admin1_name_of_cities() -> None:
    (la,) = [c for c in gz.find_city("Los Angeles") if c.country_code == "US"][:1]
    assert gz.admin1_name(la.country_code, la.admin1_code) == "California"
    (munich,) = gz.find_city("Munich")
    assert gz.admin1_name(munich.country_code, munich.admin1_code) is None  # FIPS-style code: not named


def test_admin1_name_unknown() -> None:
    assert gz.admin1_name("US", "ZZ") is None
    assert gz.admin1_name("US", "") is None
    with pytest.raises(ValueError, match="country_code"):
        gz.admin1_name("ZZ", "01")
    with pytest.raises(ValueError, match="admin1_code"):
        gz.admin1_name("US", 6)  # type: ignore[arg-type]
