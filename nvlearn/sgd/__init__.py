"""Data-parallel SGD on real data, and the step-time model that shows where the wall is.

* :mod:`~nvlearn.sgd.data` — the UCI 8x8 digits shipped in ``data/`` (:func:`load_digits`).
* :mod:`~nvlearn.sgd.models` — softmax regression and a small MLP with analytic gradients.
* :mod:`~nvlearn.sgd.parallel` — ``N`` simulated workers whose gradient sum goes through
  :func:`nvlearn.dataplane.run` of a real all-reduce schedule (:func:`train`,
  :func:`dp_equivalence`).
* :mod:`~nvlearn.sgd.comm` — all-reduce time on a fabric (:func:`allreduce_time`): NCCL's
  choice of algorithm and protocol for each size and its predicted time (``"achievable"``,
  the default), or a ring at link rate (``"wire"``, simulated or composed from stages).
* :mod:`~nvlearn.sgd.steptime` — compute from FLOPs, communication, DDP bucketing overlap,
  scaling efficiency (:func:`step_time`, :func:`scaling`).
* :mod:`~nvlearn.sgd.cost` — GPU-hours and energy idle in communication (:func:`idle_cost`).
"""

from nvlearn.sgd.comm import (
    FABRICS,
    MODELS,
    CommEstimate,
    NCCLEstimate,
    Stage,
    WireEstimate,
    allreduce_time,
    nccl_fabric,
)
from nvlearn.sgd.cost import IdleCost, board_power_source, idle_cost
from nvlearn.sgd.data import Dataset, load_digits
from nvlearn.sgd.models import MLP, SoftmaxRegression, accuracy
from nvlearn.sgd.parallel import Equivalence, History, dp_equivalence, train
from nvlearn.sgd.steptime import (
    DDP_BUCKET_BYTES,
    MODEL_SIZES,
    SCALING_GPUS,
    StepTime,
    compute_time,
    scaling,
    step_time,
)

__all__ = [
    "DDP_BUCKET_BYTES",
    "FABRICS",
    "MLP",
    "MODELS",
    "MODEL_SIZES",
    "SCALING_GPUS",
    "CommEstimate",
    "Dataset",
    "Equivalence",
    "History",
    "IdleCost",
    "NCCLEstimate",
    "SoftmaxRegression",
    "Stage",
    "StepTime",
    "WireEstimate",
    "accuracy",
    "allreduce_time",
    "board_power_source",
    "compute_time",
    "dp_equivalence",
    "idle_cost",
    "load_digits",
    "nccl_fabric",
    "scaling",
    "step_time",
    "train",
]
