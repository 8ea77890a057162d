"""Self-checks for notebook 00 (units and the bandwidth ladder).

Every reference is computed from the catalogue; hints never contain the answer. The
exercises are re-parameterised so that none is printed above them: the primer converts one
NIC and one message, the exercises ask for a whole node both ways, a 13B gradient, B200
against XDR, and a function that converts any data-sheet figure.
"""

from __future__ import annotations

from collections.abc import Callable

from nvlearn import specs, units
from nvlearn.check.core import CheckResult, verify
from nvlearn.overview.ladder import bandwidth_ladder

__all__ = [
    "CONVERSIONS", "b200_vs_xdr", "gradient_size_gib", "node_network_bw",
    "per_direction_function", "pod_cross_node_bw_per_gpu",
]

#: Data-sheet figures the self-check of exercise 3 converts: (value, unit, bidirectional).
CONVERSIONS = ((1.8, "TB/s", True), (800, "Gb/s", False), (128, "GB/s", True))


def node_network_bw(answer) -> CheckResult:
    """Exercise 1: a DGX H100's total NIC bandwidth, both directions, in Gb/s."""
    dgx = specs.system("dgx_h100")
    ref = units.from_si(units.per_dir_to_bidir(dgx.nics * specs.nic(dgx.nic).port_bw_per_dir),
                        "Gb/s")
    return verify(answer, ref, unit="Gb/s", hint=(
        "one NIC's rate per direction, times the NICs, times two directions",
        "the answer is in bits per second: a NIC's rate is usually quoted that way"))


def gradient_size_gib(answer) -> CheckResult:
    """Exercise 2: size of a 13e9-parameter bf16 gradient in GiB."""
    ref = 13e9 * 2 / 2**30
    return verify(answer, ref, unit="GiB", rtol=0.005, hint=(
        "bytes = parameters x 2 (bf16)", "a GiB is 2**30 bytes, not 10**9"))


def per_direction_function(fn: Callable) -> CheckResult:
    """Exercise 3: ``fn(value, unit, bidirectional)`` turns a data-sheet figure into GB/s
    per direction; checked on :data:`CONVERSIONS`."""
    if not callable(fn):
        return CheckResult(False, "not yet — pass the function itself (its name, no brackets)")
    for value, unit, bidir in CONVERSIONS:
        si = units.to_si(value, unit)
        ref = units.from_si(units.bidir_to_per_dir(si) if bidir else si, "GB/s")
        try:
            got = fn(value, unit, bidir)
        except Exception as err:  # the learner's code: report, never raise
            return CheckResult(False, f"not yet — your function raised {type(err).__name__}: "
                                      f"{err}")
        if got is None:
            return CheckResult(False, "not yet — the function returns None: write its body")
        result = verify(got, ref, unit="GB/s", rtol=1e-6, hint=(
            f"{value} {unit} ({'both directions' if bidir else 'per direction'}) comes out "
            "wrong: bits -> bytes is /8, bidirectional -> per direction is /2, T = 1000 G"))
        if not result:
            return result
    return CheckResult(True, "right")


def b200_vs_xdr(answer) -> CheckResult:
    """Exercise 4: how many times one B200's NVLink 5 (per GPU) moves what one InfiniBand
    XDR port does, per direction — read off the ladder explorer."""
    rows = {r.label: r.bw for r in bandwidth_ladder(direction="per_direction")}
    ref = rows["NVLink 5 (B200), per GPU"] / rows["InfiniBand XDR port"]
    return verify(answer, ref, unit="1", rtol=0.005, hint=(
        "the explorer compares H100's NVLink with the rung you pick: pick XDR, then NVLink 5, "
        "and combine the two ratios", "B200/XDR = (H100/XDR) / (H100/B200)"))


def pod_cross_node_bw_per_gpu(answer) -> CheckResult:
    """Exercise 6: cross-node bandwidth per GPU in the NVLink Switch System, GB/s per dir."""
    dgx = specs.system("dgx_h100")
    box = specs.system("nvlink_switch_1u")
    ref = dgx.external_nvlink_ports * box.port_bw_per_dir / dgx.gpus / 1e9
    return verify(
        answer, ref, unit="GB/s", hint="all the node's external ports, shared by all its GPUs"
    )
