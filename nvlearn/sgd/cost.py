"""The cost of waiting: GPU-hours and energy spent idle in communication.

Every second of *exposed* communication (:attr:`~nvlearn.sgd.steptime.StepTime.exposed_comm`)
is a second in which all ``N`` GPUs of the job wait. Per step that is ``N x exposed`` GPU-
seconds; over a training run of ``token_budget`` tokens there are
``token_budget / global_batch_tokens`` steps.

Energy uses the GPU's board power from the catalogue (``specs.gpu(...).board_power``, the
H100 SXM's 700 W TDP, with its source in :func:`board_power_source`). A waiting GPU draws
less than its TDP, so the energy is an *upper bound* on the GPUs' share; it leaves out
CPUs, NICs, switches and cooling, which also keep running while the GPUs wait.

Examples
--------
>>> from nvlearn.sgd.steptime import step_time
>>> c = idle_cost(step_time(7e9, 8192, "ib_cluster"), token_budget=1e12)
>>> c.idle_fraction > 0.5
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nvlearn import specs

__all__ = [
    "DEFAULT_TOKEN_BUDGET", "SECONDS_PER_HOUR", "JOULES_PER_KWH", "board_power_source", "IdleCost",
    "idle_cost",
]

#: Default training budget: 1e12 tokens (a stated assumption; Llama 2 used 2e12).
DEFAULT_TOKEN_BUDGET = 1e12
SECONDS_PER_HOUR = 3600.0
JOULES_PER_KWH = 3.6e6


def board_power_source(gpu: str = "h100") -> str:
    """Citation for the board power used (catalogue provenance).

    Examples
    --------
    >>> "700" in board_power_source()
    True
    """
    return specs.gpu(gpu).source("board_power")


@dataclass(frozen=True)
class IdleCost:
    """Idle time and energy of one configuration (SI units: s, J; hours and kWh as named).

    Attributes
    ----------
    n_gpus : int
    steps : float
        Steps in the run (``token_budget / global_batch_tokens``).
    idle_gpu_seconds_per_step : float
        ``n_gpus x exposed communication``.
    idle_energy_per_step : float
        Joules, at board power.
    idle_gpu_hours : float
        Over the whole run.
    idle_energy_kwh : float
        Over the whole run, at board power.
    run_hours : float
        Wall-clock length of the run.
    idle_fraction : float
        Share of the run the GPUs wait: ``exposed / step``.
    board_power : float
        Watts per GPU.
    """

    n_gpus: int
    steps: float
    idle_gpu_seconds_per_step: float
    idle_energy_per_step: float
    idle_gpu_hours: float
    idle_energy_kwh: float
    run_hours: float
    idle_fraction: float
    board_power: float


def idle_cost(step, token_budget: float = DEFAULT_TOKEN_BUDGET, gpu: str = "h100") -> IdleCost:
    """GPU-hours and energy spent waiting for the all-reduce, per step and per run.

    Parameters
    ----------
    step : StepTime
        From :func:`nvlearn.sgd.steptime.step_time`.
    token_budget : float
        Tokens in the whole training run.
    gpu : str
        Catalogue GPU key for the board power.

    Returns
    -------
    IdleCost
        Idle GPU-seconds and energy (J) per step, and over the run GPU-hours and kWh.

    Examples
    --------
    >>> from nvlearn.sgd.steptime import step_time
    >>> c = idle_cost(step_time(7e9, 8, "nvlink_pod"))
    >>> c.board_power
    700.0
    """
    if isinstance(token_budget, bool) or not np.isfinite(token_budget) or token_budget <= 0:
        raise ValueError(f"token_budget must be a positive number of tokens, got {token_budget!r}")
    power = specs.gpu(gpu).board_power
    steps = token_budget / step.global_batch_tokens
    per_step = step.n_gpus * step.exposed_comm
    return IdleCost(
        n_gpus=step.n_gpus,
        steps=steps,
        idle_gpu_seconds_per_step=per_step,
        idle_energy_per_step=per_step * power,
        idle_gpu_hours=steps * per_step / SECONDS_PER_HOUR,
        idle_energy_kwh=steps * per_step * power / JOULES_PER_KWH,
        run_hours=steps * step.step / SECONDS_PER_HOUR,
        idle_fraction=step.exposed_comm / step.step,
        board_power=power,
    )
