"""Self-checks for the exercises: ``nvlearn.check.nbNN.<exercise>(answer)``.

Each checker computes its reference with the package and answers "right" or "not yet" with
a hint — never the answer. The machinery is in :mod:`nvlearn.check.core`.
"""

from nvlearn.check.core import (
    CheckResult,
    parse_answer,
    verify,
    verify_choice,
    verify_prediction,
)

__all__ = ["CheckResult", "parse_answer", "verify", "verify_choice", "verify_prediction"]
