"""GPSBench's ten sub-regions (Table 7) and continent quotas (Appendix A.1)."""

from __future__ import annotations

CONTINENT_QUOTAS: dict[str, float] = {"AF": 0.20, "AS": 0.25, "EU": 0.20, "NA": 0.15, "SA": 0.15, "OC": 0.05}

SUBREGIONS: tuple[str, ...] = (
    "N.Am", "S.Am", "W.Eur", "E.Eur", "E.Asia", "S.Asia", "SE.Asia", "M.East", "Africa", "Oceania",
)

_E_EUR = set("PL CZ SK HU RO BG UA BY MD RU EE LV LT RS HR SI BA ME MK AL XK".split())
_E_ASIA = set("CN JP KR KP MN TW HK MO".split())
_SE_ASIA = set("ID MY PH TH VN MM KH LA SG BN TL".split())
_M_EAST = set("SA AE IR IQ IL PS JO LB SY TR YE OM KW QA BH CY GE AM AZ EG".split())
# Central Asia is grouped with South Asia: the paper's table has no column for it.
_S_ASIA = set("IN PK BD LK NP BT MV AF KZ UZ TM KG TJ".split())


def subregion(country_code: str, continent: str) -> str:
    """The paper's sub-region of a country (Egypt counts as Middle East, the Caucasus too)."""
    cc = country_code.upper()
    if cc in _M_EAST:
        return "M.East"
    if continent == "NA":
        return "N.Am"
    if continent == "SA":
        return "S.Am"
    if continent == "AF":
        return "Africa"
    if continent == "OC":
        return "Oceania"
    if continent == "EU":
        return "E.Eur" if cc in _E_EUR else "W.Eur"
    if cc in _E_ASIA:
        return "E.Asia"
    if cc in _SE_ASIA:
        return "SE.Asia"
    if cc in _S_ASIA:
        return "S.Asia"
    return "M.East" if continent == "AS" else continent
