"""Published measurements of collectives on real GPUs, and the simulator's prediction of each.

``data/measurements.json`` holds nccl-tests figures that NVIDIA engineers and users
published (issue threads, talks), each with its source and quote. They are kept apart from
the hardware catalogue on purpose: the simulator's achievable model
(:mod:`nvlearn.sim.models`) is built from NCCL's constants and first principles only, and
these are the independent check of it. A measurement marked ``independent: false`` is one
that NCCL's own constants were calibrated on, so agreeing with it proves nothing.

Examples
--------
>>> [m.id for m in load()][:2]
['h100_nvls_peak', 'h100_ring_peak']
>>> m = load()[0]
>>> round(m.busbw / 1e9), m.n_ranks, m.algorithm
(480, 8, 'nvls')

References
----------
NVIDIA nccl-tests, doc/PERFORMANCE.md (algbw and busbw, the figures quoted here); each
measurement's own source and quote are in ``data/measurements.json``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from nvlearn.units import to_si

__all__ = ["PEAK_BYTES", "Measurement", "load", "predict"]

#: Message size (bytes per GPU) at which a "peak" figure is predicted: large enough that
#: every algorithm is on its bandwidth plateau (latency < 1 % of the time).
PEAK_BYTES = 2.0**33

_FILE = Path(__file__).resolve().parents[1] / "data" / "measurements.json"


@dataclass(frozen=True)
class Measurement:
    """One published figure (SI units).

    Attributes
    ----------
    id, gpu, collective, algorithm : str
        ``gpu`` is a catalogue key; ``algorithm`` the NCCL algorithm that ran.
    n_ranks : int
    busbw : float
        nccl-tests busbw, bytes/s per GPU per direction, at the plateau.
    approximate : bool
        The source gives a rounded figure ("~480").
    independent : bool
        False where NCCL's constants were calibrated on this very observation.
    source : dict
        ``title``, ``url``, ``date``, ``where`` (the quote).
    note : str
    """

    id: str
    gpu: str
    n_ranks: int
    collective: str
    algorithm: str
    busbw: float
    approximate: bool
    independent: bool
    source: dict
    note: str = ""


@functools.lru_cache(maxsize=1)
def load() -> tuple[Measurement, ...]:
    """Every measurement in ``data/measurements.json``, checked."""
    doc = json.loads(_FILE.read_text())
    out = []
    for raw in doc["measurements"]:
        rate = raw["busbw"]
        if rate.get("direction") != "per_direction":
            raise ValueError(f"measurements.json: {raw['id']}: busbw must be per_direction")
        missing = {"title", "url", "date", "where"} - set(raw["source"])
        if missing:
            raise ValueError(f"measurements.json: {raw['id']}: source lacks {sorted(missing)}")
        out.append(Measurement(
            raw["id"], raw["gpu"], int(raw["n_ranks"]), raw["collective"], raw["algorithm"],
            to_si(rate["value"], rate["unit"]), bool(raw["approximate"]),
            bool(raw["independent"]), dict(raw["source"]), raw.get("note", "")))
    return tuple(out)


def predict(measurement: Measurement, model: str = "achievable") -> float:
    """The simulator's busbw (bytes/s) for what ``measurement`` ran, at :data:`PEAK_BYTES`.

    The all-reduce runs on a DGX/HGX box of the measurement's GPU
    (:func:`nvlearn.topology.dgx_h100` with ``gpu=``), at the pipeline depth its closed form
    picks under ``model``.

    Examples
    --------
    >>> m = load()[0]                                  # ~480 GB/s, NVLS on 8 H100s
    >>> round(predict(m) / 1e9), round(predict(m, "wire") / 1e9)
    (475, 678)
    """
    from nvlearn import tuner
    from nvlearn.topology import dgx_h100

    if measurement.collective != "allreduce":
        raise ValueError(f"only all-reduce measurements are predicted, not "
                         f"{measurement.collective!r}")
    topo = dgx_h100(gpu=measurement.gpu)
    params = tuner.link_params(topo, measurement.n_ranks)
    chunks = tuner.best_chunks(measurement.algorithm, params, PEAK_BYTES, model=model)
    res = tuner.simulate_allreduce(topo, measurement.algorithm, PEAK_BYTES, chunks,
                                   measurement.n_ranks, model=model)
    return res.busbw
