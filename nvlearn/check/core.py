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
>>> verify(700, 450, unit="GB/s", hint="links x per-link rate, per direction")
not yet — links x per-link rate, per direction
>>> verify(900, 450, unit="GB/s", hint="links x per-link rate")      # a known slip
not yet — that is twice the answer: both directions added? The question asks per direction
>>> verify(25, 18, unit="GB/s", hint="links x per-link rate",
...        slips=((25, "that is one link's rate: how many links?"),))    # the exercise's own
not yet — that is one link's rate: how many links?
"""

from __future__ import annotations

import contextlib
import math
import re
from dataclasses import dataclass
from numbers import Real

from nvlearn import units

__all__ = [
    "UNIT_ALIASES", "CheckResult", "parse_answer", "recording_references", "verify",
    "verify_choice", "verify_prediction"
]

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


#: Spellings learners use for units of :data:`nvlearn.units.UNITS`.
UNIT_ALIASES: dict[str, str] = {
    "Gbps": "Gb/s", "Gbit/s": "Gb/s", "Mbps": "Mb/s", "Tbps": "Tb/s", "GBps": "GB/s",
    "TBps": "TB/s", "MBps": "MB/s", "µs": "us", "μs": "us", "usec": "us", "msec": "ms",
    "sec": "s", "secs": "s", "×": "x", "X": "x", "Gbaud": "GBd", "GiByte": "GiB",
    "percent": "%", "db": "dB",
}


def _unit_name(unit: str) -> str:
    return "a plain number (no unit)" if unit == "1" else f"a number in {unit}"


# Slips a learner makes, by the dimension of the answer: (factor answer/reference, hint).
_GIB_PER_GB = 2.0**30 / 1e9
_SLIPS: dict[str, tuple[tuple[float, str], ...]] = {
    "bytes/s": ((2.0, "that is twice the answer: both directions added? The question asks "
                 "per direction"),
                (0.5, "that is half the answer: one direction where both are asked, or a "
                 "per-direction figure halved twice?"),
                (8.0, "off by a factor 8: bits where bytes are asked? (8 bits per byte)"),
                (1 / 8, "off by a factor 8: bytes where bits are asked?"),
                (1 / _GIB_PER_GB, "off by 7.4 %: GiB (2**30) where GB (10**9) is meant, or "
                 "the reverse?"),
                (_GIB_PER_GB, "off by 7.4 %: GB (10**9) where GiB (2**30) is meant, or the "
                 "reverse?")),
    "bytes": ((8.0, "off by a factor 8: bits where bytes are asked?"),
              (1 / 8, "off by a factor 8: bytes where bits are asked?"),
              (1 / _GIB_PER_GB, "off by 7.4 %: GiB (2**30) vs GB (10**9)?"),
              (_GIB_PER_GB, "off by 7.4 %: GB (10**9) vs GiB (2**30)?")),
    "dimensionless": ((100.0, "off by 100: a percentage where a fraction is asked?"),
                      (0.01, "off by 100: a fraction where a percentage is asked?")),
}


def _slip(value: float, reference: float, dimension: str, rtol: float,
          n_ranks: int | None) -> str | None:
    """The hint for a recognised slip, or None."""
    slips = list(_SLIPS.get(dimension, ()))
    if n_ranks is not None and n_ranks > 1:
        q = (n_ranks - 1) / n_ranks
        slips += [(q, f"off by (p-1)/p = {n_ranks - 1}/{n_ranks}: only p-1 of the p "
                      "segments move, or is that factor in the wrong place?"),
                  (1 / q, f"off by p/(p-1) = {n_ranks}/{n_ranks - 1}: a factor (p-1)/p "
                          "missing?")]
    tol = max(rtol, 1e-3)
    for factor, hint in slips:
        if reference != 0 and math.isclose(value, reference * factor, rel_tol=tol):
            return hint
    return None


#: While :func:`recording_references` is active: (reference, unit) of each verify call.
_RECORDED: list[tuple[float, str]] | None = None


@contextlib.contextmanager
def recording_references():
    """Collect the references :func:`verify` compares answers with (for the course's tests
    that hold every exercise's premise to the physical bounds; learners never need it).

    Examples
    --------
    >>> with recording_references() as refs:
    ...     _ = verify(None, 450.0, unit="GB/s", hint="h")
    >>> refs
    [(450.0, 'GB/s')]
    """
    global _RECORDED
    _RECORDED, saved = [], _RECORDED
    try:
        yield _RECORDED
    finally:
        _RECORDED = saved


#: Wrong attempts so far, per exercise (its hint tiers), for :func:`verify`'s tiered hints.
_ATTEMPTS: dict[tuple[str, ...], int] = {}


def _tiered(hint: str | tuple[str, ...] | list[str]) -> str:
    """The hint tiers shown after this many wrong attempts: one more tier each time."""
    tiers = (hint,) if isinstance(hint, str) else tuple(hint)
    n = _ATTEMPTS.get(tiers, 0)
    _ATTEMPTS[tiers] = n + 1
    shown = tiers[: n + 1]
    more = " (try again for another hint)" if n + 1 < len(tiers) else ""
    return " / ".join(shown) + more


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
        given = UNIT_ALIASES.get(given, given)
        if given not in units.UNITS:
            raise ValueError(f"unknown unit {given!r} in {answer!r}")
        if units.dimension(given) != units.dimension(unit):
            want = "no unit" if unit == "1" else f"a unit of {units.dimension(unit)}"
            raise ValueError(f"{given!r} measures {units.dimension(given)}, but the question "
                             f"asks for {want}")
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
    hint: str | tuple[str, ...],
    rtol: float = 0.01,
    atol: float = 0.0,
    n_ranks: int | None = None,
    slips: tuple[tuple[float, str], ...] = (),
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
    hint : str or tuple of str
        What to think about when the answer is off. Must not contain the answer. A tuple
        gives tiers: each wrong attempt shows one more.
    rtol, atol : float
        Relative and absolute tolerance (default 1 %); keep it below the effect the exercise
        is about.
    n_ranks : int, optional
        The exercise's rank count, to recognise an answer off by (p-1)/p.
    slips : tuple of (float, str)
        The exercise's own known wrong answers, each ``(value in unit, hint)``: an answer
        within the tolerance of one gets that hint (which must not contain the answer).

    A wrong answer that matches a common slip — per direction vs both directions, bits vs
    bytes, GB vs GiB, percent vs fraction, (p-1)/p — or one of the exercise's ``slips`` gets
    a hint aimed at that slip first.

    Returns
    -------
    CheckResult
        Displays as "right" or "not yet — <hint>".
    """
    units.dimension(unit)  # unknown unit: ValueError for the exercise author
    if not math.isfinite(reference):
        raise ValueError("the reference must be a finite number")
    if _RECORDED is not None:
        _RECORDED.append((float(reference), unit))
    try:
        value = parse_answer(answer, unit)
    except ValueError as err:
        example = "" if unit == "1" else f", or a string such as '12 {unit}'"
        return _not_yet(f"{err}. Give {_unit_name(unit)}{example}.")
    if not math.isfinite(value):
        return _not_yet("the answer is not a finite number")
    if math.isclose(value, reference, rel_tol=rtol, abs_tol=atol):
        return _right()
    for wrong, why in slips:
        if math.isclose(value, wrong, rel_tol=max(rtol, 1e-3), abs_tol=atol):
            return _not_yet(why)
    slip = _slip(value, reference, units.dimension(unit), rtol, n_ranks)
    return _not_yet(slip if slip else _tiered(hint))


def verify_prediction(answer: object, choices: tuple[str, ...]) -> CheckResult:
    """Record a prediction made before running an experiment: any of ``choices`` is accepted
    (a prediction is marked by the explanation that follows it, not by being right).

    Examples
    --------
    >>> verify_prediction("Up", ("up", "down"))
    prediction recorded — now run the experiment and compare
    >>> verify_prediction(None, ("up", "down"))
    not yet — write your prediction first: one of up, down
    """
    given = "" if answer is None else str(answer).strip().lower()
    if given in (c.lower() for c in choices):
        return CheckResult(True, "prediction recorded — now run the experiment and compare")
    return _not_yet("write your prediction first: one of " + ", ".join(choices))


def verify_choice(answer: object, correct: str, *, choices: tuple[str, ...], hint: str):
    """Check a multiple-choice answer (case-insensitive, surrounding spaces ignored).

    Parameters
    ----------
    answer : object
        The learner's choice, read as ``str(answer)``; one not among ``choices`` (``None``
        included) is "not yet" with the list of choices.
    correct : str
        The right choice; must be one of ``choices`` (as spelt there).
    choices : tuple of str
        Every choice offered.
    hint : str
        Shown for a wrong choice among ``choices``. Must not contain the answer.

    Returns
    -------
    CheckResult
        Displays as "right" or "not yet — <hint>".

    Raises
    ------
    ValueError
        ``correct`` is not among ``choices`` (an exercise author's error).

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
