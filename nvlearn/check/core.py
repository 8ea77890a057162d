"""The self-check machinery behind every exercise.

A checker compares a learner's answer with a reference *computed by the package* and says
"right" or "not yet" with a hint. It never shows the reference: the point of an exercise is
the working, and a printed answer ends it.

Answers may be plain numbers in the unit the exercise names, or strings carrying their own
unit ("450 GB/s", "3.6e12 B/s", "400 Gb/s"); a string is converted with
:mod:`nvlearn.units`, so "400 Gb/s" is accepted where the exercise asks for GB/s. A unit of
the wrong kind (bytes where a rate was asked for) is "not yet", with a hint saying so.

Examples
--------
>>> verify(450, 450e9 / 1e9, unit="GB/s", hint="links x per-link rate")
right
>>> verify("3600 Gb/s", 450, unit="GB/s", hint="links x per-link rate")
right
>>> verify(900, 450, unit="GB/s", hint="per direction, not both ways")
not yet — per direction, not both ways
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from numbers import Real

from nvlearn import units

# Linear time, even when the match fails: the number is an atomic group (Python 3.11+), so a
# long run of digits is never re-split between the number and the unit (the old pattern took
# seconds for a thousand digits followed by junk, and grew as the square).
_ANSWER_RE = re.compile(r"^\s*((?>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?))\s*(\S+)?\s*$")


@dataclass(frozen=True)
class CheckResult:
    """Outcome of a self-check: ``ok`` and the message shown to the learner."""

    ok: bool
    message: str

    def __repr__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        colour = "#1b7f1b" if self.ok else "#b35c00"
        mark = "&#10004;" if self.ok else "&#10008;"
        return f'<span style="color:{colour};font-weight:bold">{mark} {self.message}</span>'

    def __bool__(self) -> bool:
        return self.ok


def _right() -> CheckResult:
    return CheckResult(True, "right")


def _not_yet(hint: str) -> CheckResult:
    return CheckResult(False, f"not yet — {hint}")


def parse_answer(answer: object, unit: str) -> float:
    """Turn an answer (number in ``unit``, or "value unit" string) into a number in ``unit``.

    Raises ``ValueError`` when the answer is not a number, its unit is unknown, or its unit
    measures something else than ``unit`` does.

    Examples
    --------
    >>> parse_answer("400 Gb/s", "GB/s")
    50.0
    >>> parse_answer(7, "1")
    7.0
    """
    if isinstance(answer, bool):
        raise ValueError("the answer is True/False; give a number")
    if isinstance(answer, Real):
        return float(answer)
    if isinstance(answer, str):
        match = _ANSWER_RE.match(answer)
        if not match:
            raise ValueError(f"could not read {answer!r} as a number with an optional unit")
        value = float(match.group(1))
        given = match.group(2)
        if given is None:
            return value
        if given not in units.UNITS:
            raise ValueError(f"unknown unit {given!r} in {answer!r}")
        return units.convert(value, given, unit)
    try:
        return float(answer)  # numpy scalars and 0-d arrays
    except (TypeError, ValueError):
        raise ValueError(f"expected a number, got {type(answer).__name__}") from None


def verify(
    answer: object,
    reference: float,
    *,
    unit: str,
    hint: str,
    rtol: float = 0.01,
    atol: float = 0.0,
) -> CheckResult:
    """Check a numeric answer against a computed reference.

    Parameters
    ----------
    answer : float or str
        The learner's answer: a number in ``unit``, or a string like ``"450 GB/s"``.
    reference : float
        The package's value, in ``unit``.
    unit : str
        A unit from :data:`nvlearn.units.UNITS` ("GB/s", "s", "1" ...).
    hint : str
        What to think about when the answer is off. Must not contain the answer.
    rtol, atol : float
        Relative and absolute tolerance (default 1 %).

    Returns
    -------
    CheckResult
        Displays as "right" or "not yet — <hint>".
    """
    units.dimension(unit)  # unknown unit: ValueError for the exercise author
    if not math.isfinite(reference):
        raise ValueError("the reference must be a finite number")
    try:
        value = parse_answer(answer, unit)
    except ValueError as err:
        return _not_yet(f"{err}. Give a number in {unit}, or a string such as '12 {unit}'.")
    if not math.isfinite(value):
        return _not_yet("the answer is not a finite number")
    if math.isclose(value, reference, rel_tol=rtol, abs_tol=atol):
        return _right()
    return _not_yet(hint)


def verify_choice(answer: object, correct: str, *, choices: tuple[str, ...], hint: str):
    """Check a multiple-choice answer (case-insensitive, surrounding spaces ignored).

    Examples
    --------
    >>> verify_choice("Ring", "ring", choices=("ring", "tree"), hint="count the steps")
    right
    >>> verify_choice("mesh", "ring", choices=("ring", "tree"), hint="count the steps")
    not yet — choose one of: ring, tree
    """
    if correct not in choices:
        raise ValueError(f"correct answer {correct!r} is not among the choices {choices}")
    given = str(answer).strip().lower()
    lowered = {c.lower(): c for c in choices}
    if given not in lowered:
        return _not_yet("choose one of: " + ", ".join(choices))
    if lowered[given] == correct:
        return _right()
    return _not_yet(hint)
