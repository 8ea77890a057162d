"""The 256-GPU pod as the course describes it: which DGX H100, announced vs shipped.

* The pod's nodes are the NVLink-network variant of the DGX H100 (OSFP cages to the second
  tier); the standard DGX H100 has no external NVLink ports in use.
* The H100 NVLink Switch System was announced (GTC 2022) but not generally shipped; the
  256-GPU NVLink 4 system that shipped is the DGX GH200 — every figure sourced.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
import pytest

from nvlearn import specs
from nvlearn.overview.audit import article_claims
from nvlearn.topology import nvlink_pod

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def test_network_port_fields_belong_to_the_nvlink_network_variant() -> None:
    dgx = specs.system("dgx_h100")
    assert "NVLink-network variant" in dgx.name
    for field in ("network_ports_per_switch", "external_nvlink_ports", "osfp_cages"):
        note = dgx.provenance[field].note
        assert "NVLink-network variant" in note, field
    # the standard box's rear OSFP ports are its NICs', with a source for that
    note = dgx.provenance["network_ports_per_switch"].note
    assert "ConnectX-7" in note and "dgx_basepod_ra" in note
    assert dgx.provenance["nic_osfp_ports"].source == "dgx_basepod_ra"
    assert dgx.nics == 2 * dgx.nic_osfp_ports            # twin-port OSFP cages of NICs
    # the variant's ports are the node's half of the 2:1 taper
    assert sum(dgx.network_ports_per_switch) == dgx.external_nvlink_ports
    assert dgx.external_nvlink_ports == dgx.osfp_cages * dgx.nvlinks_per_osfp


def test_pod_builder_names_the_variant_and_what_shipped() -> None:
    doc = nvlink_pod.__doc__
    assert "NVLink-network variant" in doc and "dgx_gh200" in doc


def test_switch_system_was_announced_and_points_at_what_shipped() -> None:
    pod = specs.system("nvlink_switch_system")
    q = pod.provenance["announced"]
    assert pod.announced == 2022 and q.source == "wp_h100"
    assert "not available with H100 systems now" in q.where
    assert "not generally shipped" in q.note and "not generally shipped" in pod.name
    shipped = specs.system(pod.shipped_as)
    assert isinstance(shipped, specs.DGXGH200)
    assert shipped.announced > pod.announced


def test_dgx_gh200_is_a_256_gpu_nvlink4_system_with_sources() -> None:
    pod, gh = specs.system("nvlink_switch_system"), specs.system("dgx_gh200")
    assert gh.gpus == gh.superchips == pod.gpus
    assert gh.nvlink_generation == specs.gpu(specs.system(pod.node).gpu).nvlink_generation
    assert gh.all_to_all_bw == pytest.approx(57.6e12)          # NVIDIA's figure
    assert gh.all_to_all_bw == pod.all_to_all_bw               # the same wording and number
    assert gh.gpu_addressable_memory == pytest.approx(144e12)
    # more than the GPUs' own HBM: the Grace CPUs' memory is reachable over NVLink too
    assert gh.gpu_addressable_memory > gh.gpus * gh.gpu_hbm_capacity
    sources = specs.load().sources
    assert "developer.nvidia.com" in sources[gh.provenance["superchips"].source].url
    assert "nvidia.com" in sources[gh.provenance["all_to_all_bw"].source].url
    assert "COMPUTEX 2023" in gh.provenance["announced"].where


def test_unknown_shipped_as_is_rejected(tmp_path) -> None:
    doc = json.loads(specs.default_path().read_text(encoding="utf-8"))
    broken = copy.deepcopy(doc)
    broken["systems"]["nvlink_switch_system"]["shipped_as"] = "dgx_h200"
    path = tmp_path / "hardware.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(ValueError, match=r"nvlink_switch_system'\]\.shipped_as.*dgx_h200"):
        specs.load(path)


def test_audit_row_for_the_compute_plane_says_announced_and_shipped() -> None:
    row = next(c for c in article_claims() if "Compute Plane" in c.quote)
    pod, gh = specs.system("nvlink_switch_system"), specs.system("dgx_gh200")
    assert row.verdict == "right with caveat"
    assert f"announced {pod.announced}" in row.computed
    assert gh.name in row.computed and f"announced {gh.announced}" in row.computed
    assert "not generally shipped" in row.reason and "NVLink-network variant" in row.reason


@pytest.mark.parametrize("name", ["00_start_here.ipynb", "03_switch_topology.ipynb"])
def test_notebooks_state_it_with_sources(name) -> None:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    text = "\n".join(c.source for c in nb.cells)
    assert "not generally shipped" in text or "did not ship it generally" in text
    assert "NVLink-network variant" in text
    assert "DGX GH200" in text
    assert "source('announced')" in text and "gh200.source(" in text
