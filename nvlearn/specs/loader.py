"""Loading ``data/hardware.json``: validation with messages that name the entry and field,
units to SI, provenance kept."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import types
import typing
from pathlib import Path
from typing import Any

from ..units import DIRECTIONAL_DIMENSIONS, UNITS, dimension, to_si
from .catalogue import _CATEGORIES, Catalogue
from .provenance import (
    _QUANTITY_KEYS,
    _SOURCE_KEYS,
    DATA_ENV_VAR,
    DATA_FILE,
    KINDS,
    RATE_DIRECTIONS,
    Quantity,
    Source,
)
from .records import (
    _SYSTEM_TYPES,
    DGXH100,
    BoardVariant,
    Latency,
    NetworkRate,
    NVSwitchGen,
    PCIeGen,
    Record,
    _LatencyEntry,
)

__all__ = ["default_path", "load"]

# --------------------------------------------------------------------------------------
# Loading and validation
# --------------------------------------------------------------------------------------


def default_path() -> Path:
    """Path of the catalogue: ``$NVLEARN_DATA_DIR/hardware.json`` if set, else the repo's.

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.default_path().name
    'hardware.json'
    """
    env = os.environ.get(DATA_ENV_VAR)
    base = Path(env) if env else Path(__file__).resolve().parents[2] / "data"
    return (base / DATA_FILE).resolve()


def load(path: str | os.PathLike[str] | None = None) -> Catalogue:
    """Read, validate and convert a catalogue file (fresh, not cached).

    Parameters
    ----------
    path : path-like, optional
        A ``hardware.json``; default :func:`default_path`.

    Returns
    -------
    Catalogue

    Raises
    ------
    ValueError
        On any schema problem; the message names the category, entry and field.

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.load().gpu("h100").hbm_capacity / 1e9
    80.0
    """
    file = Path(path) if path is not None else default_path()
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(
            f"cannot read the hardware catalogue {file}: {exc}. Set {DATA_ENV_VAR} to the "
            "directory holding hardware.json or pass its path."
        ) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{file}: not valid JSON ({exc}); fix the syntax") from None
    return _Loader(file, doc).build()


@functools.cache
def _cached(path: Path) -> Catalogue:
    return load(path)


def _default() -> Catalogue:
    return _for_env(os.environ.get(DATA_ENV_VAR))


@functools.cache
def _for_env(env: str | None) -> Catalogue:
    """The default catalogue for one value of ``$NVLEARN_DATA_DIR`` (resolving the path on
    every lookup cost the simulator a millisecond per call)."""
    return _cached(default_path())


class _Loader:
    def __init__(self, file: Path, doc: Any) -> None:
        self.file = file
        self.doc = doc
        self.sources: dict[str, Source] = {}
        self.built: dict[str, dict[str, Any]] = {}

    def fail(self, where: str, problem: str) -> typing.NoReturn:
        raise ValueError(f"{self.file.name}: {where}: {problem}")

    def build(self) -> Catalogue:
        if not isinstance(self.doc, dict):
            self.fail("top level", "must be a JSON object with 'sources' and categories")
        unknown = set(self.doc) - set(_CATEGORIES) - {"sources"}
        if unknown:
            self.fail(f"category {sorted(unknown)[0]!r}",
                      f"unknown category; known: sources, {', '.join(_CATEGORIES)}")
        self._sources()
        for category, cls in _CATEGORIES.items():
            if category not in self.doc:
                self.fail(f"category {category!r}", "missing; every category must be present")
            raw = self.doc[category]
            if not isinstance(raw, dict):
                self.fail(f"category {category!r}", "must be an object of entries")
            self.built[category] = {}
            for key, entry in raw.items():
                self.built[category][key] = self._entry(category, key, entry, cls)
        self._cross_check()
        return Catalogue(self.file, self.sources, self.built)

    def _sources(self) -> None:
        raw = self.doc.get("sources")
        if not isinstance(raw, dict):
            self.fail("sources", "missing or not an object of id -> {title, url}")
        for sid, src in raw.items():
            where = f"sources[{sid!r}]"
            if not isinstance(src, dict):
                self.fail(where, "must be an object with title and url")
            extra = set(src) - _SOURCE_KEYS
            if extra:
                self.fail(where, f"unknown field {sorted(extra)[0]!r}; allowed: "
                                 f"{', '.join(sorted(_SOURCE_KEYS))}")
            for req in ("title", "url"):
                if not isinstance(src.get(req), str) or not src[req]:
                    self.fail(f"{where}.{req}", "missing; give a non-empty string")
            for opt in ("publisher", "date"):
                if opt in src and not isinstance(src[opt], str):
                    self.fail(f"{where}.{opt}", "must be a string")
            self.sources[sid] = Source(sid, src["title"], src["url"], src.get("publisher"),
                                       src.get("date"))

    def _entry(self, category: str, key: str, entry: Any, cls: type[Record] | None) -> Any:
        where = f"{category}[{key!r}]"
        if cls is None:  # systems: one record type per key
            if key not in _SYSTEM_TYPES:
                self.fail(where, f"unknown system; known: {', '.join(_SYSTEM_TYPES)}")
            cls = _SYSTEM_TYPES[key]
        if not isinstance(entry, dict):
            self.fail(where, "must be an object of fields")
        hints = typing.get_type_hints(cls)
        stored = [f for f in dataclasses.fields(cls)
                  if f.name not in ("key", "provenance", "source_table")
                  and not f.metadata.get("computed")]
        extra = set(entry) - {f.name for f in stored}
        if extra:
            self.fail(f"{where}.{sorted(extra)[0]}",
                      f"unknown field for {cls.__name__}; known: "
                      f"{', '.join(f.name for f in stored)}")
        values: dict[str, Any] = {}
        prov: dict[str, Quantity] = {}
        for f in stored:
            fwhere = f"{where}.{f.name}"
            has_default = f.default is not dataclasses.MISSING
            if f.name not in entry:
                if has_default:
                    values[f.name] = f.default
                    continue
                self.fail(fwhere, "missing field; add it (see data/README.md)")
            hint = hints[f.name]
            if "dim" not in f.metadata:
                values[f.name] = self._string(fwhere, entry[f.name], _optional(hint))
                continue
            q = self._quantity(fwhere, f.name, entry[f.name], f.metadata["dim"])
            prov[f.name] = q
            values[f.name] = self._convert(fwhere, q, hint)
        values.update(self._derived(where, cls, values, prov))
        rec = cls(key=key, provenance=types.MappingProxyType(prov),
                  source_table=types.MappingProxyType(
                      {q.source: self.sources[q.source] for q in prov.values()}),
                  **values)
        return Latency(rec) if isinstance(rec, _LatencyEntry) else rec

    def _string(self, where: str, raw: Any, optional: bool) -> str | None:
        if raw is None and optional:
            return None
        if not isinstance(raw, str) or not raw:
            self.fail(where, "must be a non-empty plain string (not a quantity object)")
        return raw

    def _quantity(self, where: str, name: str, raw: Any, dim: str) -> Quantity:
        if not isinstance(raw, dict):
            self.fail(where, "must be a quantity object {value, unit, kind, source, where}")
        extra = set(raw) - _QUANTITY_KEYS
        if extra:
            self.fail(where, f"unknown key {sorted(extra)[0]!r} in quantity; allowed: "
                             f"{', '.join(sorted(_QUANTITY_KEYS))}")
        for req in ("value", "unit", "kind", "source", "where"):
            if req not in raw:
                self.fail(where, f"quantity is missing {req!r}")
        unit = raw["unit"]
        if unit not in UNITS:
            self.fail(where, f"unknown unit {unit!r}; use one of: {', '.join(UNITS)}")
        if dimension(unit) != dim:
            self.fail(where, f"unit {unit!r} has dimension {dimension(unit)!r} but this field "
                             f"needs {dim!r}")
        kind = raw["kind"]
        if kind not in KINDS:
            self.fail(where, f"unknown kind {kind!r}; use one of: {', '.join(KINDS)}")
        source = raw["source"]
        if source not in self.sources:
            self.fail(where, f"unknown source {source!r}; add it to 'sources' or use one of: "
                             f"{', '.join(sorted(self.sources))}")
        if not isinstance(raw["where"], str) or not raw["where"]:
            self.fail(where, "'where' must be a non-empty string (section, table or quote)")
        note = raw.get("note")
        if note is not None and not isinstance(note, str):
            self.fail(where, "'note' must be a string")
        direction = raw.get("direction")
        if dim in DIRECTIONAL_DIMENSIONS:
            if direction is None:
                self.fail(where, f"a {dim} quantity needs 'direction': one of "
                                 f"{RATE_DIRECTIONS}")
            if direction not in RATE_DIRECTIONS:
                self.fail(where, f"unknown direction {direction!r}; use one of "
                                 f"{RATE_DIRECTIONS}")
            if "per_dir" in name and direction != "per_direction":
                self.fail(where, f"field name says per direction but direction is {direction!r}")
            if "bidir" in name and direction != "bidirectional":
                self.fail(where, f"field name says bidirectional but direction is {direction!r}")
        elif direction is not None:
            self.fail(where, f"'direction' is only for data rates, not for unit {unit!r}; "
                             "remove it")
        value = raw["value"]
        value_si = self._value_si(where, value, unit)
        return Quantity(value_si, value, unit, direction, kind, source, raw["where"], note)

    def _value_si(self, where: str, value: Any, unit: str) -> float | tuple[float, ...] | None:
        def number(v: Any) -> float:
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                self.fail(where, f"value {v!r} is not a finite number")
            return to_si(v, unit)

        def table(v: Any) -> Any:
            """A number, or a (nested, rectangular) list of numbers as nested tuples."""
            if not isinstance(v, list):
                return number(v)
            if not v:
                self.fail(where, "value list is empty")
            rows = tuple(table(x) for x in v)
            if len({_shape(r) for r in rows}) > 1:
                self.fail(where, "a table's rows must all have the same shape")
            return rows

        return None if value is None else table(value)

    def _convert(self, where: str, q: Quantity, hint: Any) -> Any:
        optional = _optional(hint)
        base = _base(hint)
        if q.value_si is None:
            if not optional:
                self.fail(where, "value is null but this field needs a number; use null only "
                                 "for fields that may be absent (e.g. V100 bf16)")
            return None
        return self._shaped(where, q.value_si, base)

    def _shaped(self, where: str, v: Any, typ: Any) -> Any:
        """``v`` (a number or nested tuples) as the field's type: ``float``, ``int``,
        ``tuple[float, ...]`` or a table such as ``tuple[tuple[float, ...], ...]``."""
        if typing.get_origin(typ) is tuple:
            depth = _depth(typ)
            if not isinstance(v, tuple) or len(_shape(v)) != depth:
                self.fail(where, "needs a list of numbers" if depth == 1 else
                          f"needs a table of numbers nested {depth} deep")
            elem = typing.get_args(typ)[0]
            return tuple(self._shaped(where, x, elem) for x in v)
        if isinstance(v, tuple):
            self.fail(where, "needs a single number, not a list")
        return self._scalar(where, v, typ)

    def _scalar(self, where: str, v: float, typ: Any) -> Any:
        if typ is int:
            if not float(v).is_integer():
                self.fail(where, f"needs a whole number, got {v!r}")
            return int(v)
        return float(v)

    def _derived(self, where: str, cls: type[Record], values: dict[str, Any],
                 prov: dict[str, Quantity]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, axes in getattr(cls, "TABLE_AXES", {}).items():
            want = tuple(len(axis) for axis in axes)
            if _shape(values[name]) != want:
                self.fail(f"{where}.{name}", f"needs a table of shape {want} (axes: "
                          + "; ".join(", ".join(axis) for axis in axes)
                          + f"), got {_shape(values[name])}")
        if cls is NVSwitchGen:
            out["throughput_direction"] = prov["throughput_published"].direction
        if cls in (PCIeGen, NetworkRate):
            codes = self.built["line_codes"]
            if values["encoding"] not in codes:
                self.fail(f"{where}.encoding", f"unknown line code {values['encoding']!r}; "
                                               f"use one of: {', '.join(codes)}")
            out["encoding_efficiency"] = codes[values["encoding"]].efficiency
        if cls is NetworkRate:
            fecs = self.built["fec"]
            name = values["fec"]
            if name is not None and name not in fecs:
                self.fail(f"{where}.fec", f"unknown FEC code {name!r}; use one of: "
                                          f"{', '.join(fecs)}")
            out["fec_code_rate"] = fecs[name].code_rate if name is not None else 1.0
        return out

    def _cross_check(self) -> None:
        refs = {
            ("systems", "gpu"): "gpus",
            ("systems", "nic"): "nics",
            ("systems", "node"): "systems",
            ("systems", "switch"): "systems",
            ("systems", "ib_switch"): "ib_switches",
            ("systems", "shipped_as"): "systems",
            ("systems", "base"): "systems",
            ("ib_switches", "speed"): "infiniband",
        }
        for (category, attr), target in refs.items():
            for key, rec in self.built[category].items():
                ref = getattr(rec, attr, None)
                if ref is not None and ref not in self.built[target]:
                    self.fail(f"{category}[{key!r}].{attr}",
                              f"refers to unknown {target} entry {ref!r}; use one of: "
                              f"{', '.join(self.built[target])}")
        self._check_nvlinks()

    def _check_nvlinks(self) -> None:
        """A GPU's NVLinks fit its generation; a board's split adds up to its GPU's links."""
        gens = self.built["nvlink"]
        for key, g in self.built["gpus"].items():
            gen = gens.get(str(g.nvlink_generation))
            if gen is None:
                self.fail(f"gpus[{key!r}].nvlink_generation",
                          f"no NVLink generation {g.nvlink_generation} in the catalogue; use "
                          f"one of: {', '.join(gens)}")
            if not 1 <= g.nvlink_links <= gen.links_per_gpu:
                self.fail(f"gpus[{key!r}].nvlink_links",
                          f"{g.nvlink_links} links; NVLink {gen.generation} has 1 to "
                          f"{gen.links_per_gpu} per GPU")
        for key, rec in self.built["systems"].items():
            split = getattr(rec, "links_per_gpu_per_switch", None)
            if split is None:
                continue
            where = f"systems[{key!r}].links_per_gpu_per_switch"
            if isinstance(rec, BoardVariant):
                base = self.built["systems"][rec.base]
                if not isinstance(base, DGXH100):
                    self.fail(f"systems[{key!r}].base", f"{rec.base!r} is not a baseboard "
                              "with NVSwitch chips (a DGXH100 record)")
                if len(split) != base.nvswitch_chips:
                    self.fail(where, f"{len(split)} entries; {rec.base!r} has "
                              f"{base.nvswitch_chips} NVSwitch chips, give one per chip")
            links = self.built["gpus"][rec.gpu].nvlink_links
            if sum(split) != links:
                self.fail(where, f"adds up to {sum(split)} links, but GPU {rec.gpu!r} has "
                          f"{links} (gpus[{rec.gpu!r}].nvlink_links)")


def _optional(hint: Any) -> bool:
    return type(None) in typing.get_args(hint)


def _base(hint: Any) -> Any:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 1:
        return args[0]
    return hint


def _shape(v: Any) -> tuple[int, ...]:
    """Shape of a number (``()``) or of rectangular nested tuples (``(7, 3)``)."""
    return (len(v), *_shape(v[0])) if isinstance(v, tuple) else ()


def _depth(hint: Any) -> int:
    """How deep ``tuple[...]`` hints nest: 1 for ``tuple[float, ...]``, 2 for a table."""
    return 1 + _depth(typing.get_args(hint)[0]) if typing.get_origin(hint) is tuple else 0
