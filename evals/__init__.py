"""Evaluation: conditions, runner, run store, statistics, reports and the compare CLI.

Importing it first checks that ``agents``, ``tools``, ``tasks`` and ``geocore`` are this project's
(:mod:`geocore.packages`): a distribution that installs a package of the same name is named in one line.
"""

import sys

from geocore.packages import shadowed

if (_clash := shadowed()) is not None:
    if sys.argv[:1] == ["-m"]:  # python -m evals.<command>: one line and exit code 1, no traceback
        sys.stderr.write(f"error: {_clash}\n")
        raise SystemExit(1)
    raise ImportError(_clash)
