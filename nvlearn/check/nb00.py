"""Self-checks for notebook 00 (units and the bandwidth ladder)."""

from __future__ import annotations

from nvlearn import specs
from nvlearn.check.core import CheckResult, verify


def node_network_bw(answer) -> CheckResult:
    """Exercise 1: a DGX H100's total NIC bandwidth, GB/s per direction."""
    dgx = specs.system("dgx_h100")
    ref = dgx.nics * specs.nic(dgx.nic).port_bw_per_dir / 1e9
    return verify(
        answer,
        ref,
        unit="GB/s",
        hint="one NIC's rate is quoted in bits per second; convert, then count NICs",
    )


def gradient_size_gib(answer) -> CheckResult:
    """Exercise 2: size of a 7e9-parameter bf16 gradient in GiB."""
    ref = 7e9 * 2 / 2**30
    return verify(
        answer, ref, unit="GiB", hint="bytes = parameters x 2; a GiB is 2**30 bytes, not 10**9"
    )


def nvlink_vs_pcie_ratio(answer) -> CheckResult:
    """Exercise 3: H100 NVLink / PCIe Gen5 x16, payload per direction."""
    pcie = specs.pcie(5)
    ref = specs.nvlink(4).gpu_bw_per_dir / pcie.x16_bw_per_dir
    hint = (
        f"per direction on both sides; a Gen5 x16 slot is {pcie.lanes} lanes x "
        f"{pcie.transfer_rate / 1e9:g} GT/s x {pcie.encoding} encoding, in bytes"
    )
    return verify(answer, ref, unit="1", rtol=0.005, hint=hint)


def pod_cross_node_bw_per_gpu(answer) -> CheckResult:
    """Exercise 4: cross-node bandwidth per GPU in the NVLink Switch System, GB/s per dir."""
    dgx = specs.system("dgx_h100")
    box = specs.system("nvlink_switch_1u")
    ref = dgx.external_nvlink_ports * box.port_bw_per_dir / dgx.gpus / 1e9
    return verify(
        answer, ref, unit="GB/s", hint="all the node's external ports, shared by all its GPUs"
    )
