"""nvlearn: the helper package of a course on why the interconnect limits distributed training.

A collective is a *schedule*, and the same schedule is run twice: once on real numbers
(:mod:`nvlearn.dataplane`: is the sum right?) and once on a timed model of the fabric
(:mod:`nvlearn.sim`: how long, and where did the bytes go?).

Submodules are imported on first use (``nvlearn.topology``, ``nvlearn.sim`` ...), so
``import nvlearn`` is quick and numba is loaded only by the modules that need it. The verbs
of a first session are at the top, loaded the same way::

    import nvlearn as nv
    box = nv.dgx_h100()
    result = nv.simulate(box, nv.allreduce(box, 2**30))      # what NCCL achieves
    print(result.busbw / 1e9, "GB/s", result.model_label)
    nv.choose("allreduce", 2**30, box)                        # NCCL's cost table
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

_SUBMODULES = (
    # foundations
    "units",
    "specs",
    "check",
    "warmup",
    "progress",
    # the fabric and the collectives: one schedule, run twice
    "topology",
    "schedule",
    "dataplane",
    "collectives",
    "sim",
    "numerics",
    "tuner",
    "measurements",
    # one module (or package) per notebook topic
    "overview",
    "sgd",
    "serdes",
    "switching",
    "moe",
    "parallelism",
    "straggle",
    "nextgen",
    "puzzles",
    # presentation
    "plots",
    "widgets",
)

#: The verbs a learner needs, importable from the top (``nvlearn.allreduce(...)``), each
#: loaded from its layer on first use: name -> module that defines it.
_VERBS = {
    # fabrics
    "dgx_h100": "topology", "nvlink_pod": "topology", "ib_cluster": "topology",
    "gb200_nvl72": "topology", "single_switch": "topology",
    # collectives as schedules
    "allreduce": "collectives", "reduce_scatter": "collectives", "allgather": "collectives",
    "broadcast": "collectives", "alltoall": "collectives",
    # running them: on numbers, on a fabric, as NCCL would choose
    "run": "dataplane", "simulate": "sim", "choose": "tuner",
    # the catalogue
    "gpu": "specs", "nvlink": "specs",
}

__all__ = ["__version__", *_SUBMODULES, *_VERBS]

if TYPE_CHECKING:  # pragma: no cover
    from . import (  # noqa: F401
        check,
        collectives,
        dataplane,
        measurements,
        moe,
        nextgen,
        numerics,
        overview,
        parallelism,
        plots,
        progress,
        puzzles,
        schedule,
        serdes,
        sgd,
        sim,
        specs,
        straggle,
        switching,
        topology,
        tuner,
        units,
        warmup,
        widgets,
    )


def __getattr__(name: str):
    if name in _SUBMODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    if name in _VERBS:
        value = getattr(importlib.import_module(f".{_VERBS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'nvlearn' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
