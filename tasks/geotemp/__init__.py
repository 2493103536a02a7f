"""GeoTemp: joint reasoning over time and place through time zones (Holtermann et al., 2024).

Tasks: ``geotemp.verification``, ``geotemp.time_time``, ``geotemp.time_place``, ``geotemp.time_time_place``
(the four templates of Table 1, each item in one of three instruction styles, ``meta["style"]``), the
knowledge-injection variants ``geotemp.time_time_place.inject_tz`` and ``.replace_city`` (§7), the paper's
protocol ``geotemp.<template>.styles`` (each item in all three styles, :mod:`tasks.geotemp.styles`), and the
time-zone probe ``geotemp.tz_probe`` (§6.4). All use the ``timezone`` tool set. Answers are read by
:mod:`tasks.geotemp.extract` and judged by :mod:`tasks.geotemp.judge`; ``python -m tasks.geotemp.agreement``
measures both against the labelled replies in ``data/labelled_answers.jsonl``.
"""

from tasks.geotemp import probe, timetasks  # noqa: F401  (register the tasks)
