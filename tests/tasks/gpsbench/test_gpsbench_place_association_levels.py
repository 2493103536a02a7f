"""Place association scored at country and admin-1 level: same items, coarser scorers (paper Table 8)."""

from tasks import get_task


def test_level_tasks_share_the_items_and_score_coarser() -> None:
    base = get_task("gpsbench.place_association", size=60)
    country = get_task("gpsbench.place_association.country", size=60)
    admin1 = get_task("gpsbench.place_association.admin1", size=60)
    b, c, a = base.samples(), country.samples(), admin1.samples()
    assert [s.prompt for s in b] == [s.prompt for s in c] == [s.prompt for s in a]
    assert [s.target for s in b] == [s.target for s in c]
    s = c[0]
    wrong_city_right_country = f"FINAL ANSWER: Nowhereville, {s.target['country']}"
    assert country.score(country.parse(wrong_city_right_country, s), s).correct
    assert not base.score(base.parse(wrong_city_right_country, s), s).correct
    right = f"FINAL ANSWER: {s.target['name']}, {s.target['country']}"
    assert all(t.score(t.parse(right, s), s).correct for t in (base, country, admin1))
    wrong_country = "FINAL ANSWER: Nowhereville, Atlantis"
    assert not country.score(country.parse(wrong_country, s), s).correct
