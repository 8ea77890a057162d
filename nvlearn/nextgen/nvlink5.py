"""NVLink 5 from the SerDes up, next to NVLink 4: the same chain, each figure with its kind.

The chain is :func:`nvlearn.serdes.chain.nvlink_chain` (notebook 02's): symbol rate x bits per
symbol = raw lane rate, x code efficiencies = lane payload, x lanes per direction = link per
direction, x links = GPU per direction, x 2 = the bidirectional "1.8 TB/s" figure. What
differs between generations is *which* of these numbers NVIDIA publishes: for NVLink 5 the
per-link rate (50 GB/s per direction), the lanes per direction (2) and the per-GPU total
(1.8 TB/s, both directions) are published; the per-lane payload rate is derived from them
(50 GB/s / 2 lanes), and the raw lane rate and baud are a model (the catalogue assumes
NVLink 4's 17/16 coding overhead at twice the rate).

References
----------
NVIDIA, "NVIDIA Blackwell Architecture Technical Brief", 2024 (NVLink 5: 18 links, 1.8 TB/s
per GPU); NVIDIA, "NVIDIA H100 Tensor Core GPU Architecture" white paper, 2022 (NVLink 4).
The catalogue (``data/hardware.json``) marks each figure published, derived or modelled,
with its source.

Examples
--------
>>> rows = {r.quantity: r for r in lane_provenance(5)}
>>> rows["lane payload rate"].kind, rows["lane payload rate"].value * 8 / 1e9
('derived', 200.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from nvlearn import specs
from nvlearn.serdes.chain import nvlink_chain

__all__ = [
    "Provenance", "lane_provenance", "GenerationStep", "compare_generations",
    "chain_matches_published",
]


@dataclass(frozen=True)
class Provenance:
    """One figure of a generation's chain: value (SI), direction, kind and where it is from.

    ``kind`` is the catalogue's (spec / derived / model), or ``"derived"`` for a figure this
    module computes from catalogue figures (``how`` says from which).
    """

    quantity: str
    value: float
    unit: str
    direction: str
    kind: str
    how: str


def _q(gen: specs.NVLinkGen, name: str, quantity: str, unit: str) -> Provenance:
    q = gen.provenance[name]
    value = getattr(gen, name)
    direction = (q.direction or "").replace("_", " ")
    return Provenance(quantity, float(value), unit, direction, q.kind,
                      f"catalogue nvlink['{gen.key}'].{name}: {q.where}")


def lane_provenance(generation: int) -> list[Provenance]:
    """The chain's figures for one NVLink generation, saying which are published.

    Parameters
    ----------
    generation : int
        NVLink generation in the catalogue (4 or 5 have PAM4 lanes and a coding model).

    Returns
    -------
    list of Provenance
        symbol rate, raw lane rate (catalogue), lane payload rate (derived here: link rate
        per direction / lanes per direction), lanes, link per direction, links, GPU per
        direction (derived: links x link), GPU bidirectional (catalogue, published).

    Examples
    --------
    >>> [r.kind for r in lane_provenance(4)][:3]
    ['derived', 'spec', 'derived']
    """
    gen = specs.nvlink(generation)
    return [
        _q(gen, "symbol_rate", "symbol rate", "Bd"),
        _q(gen, "lane_rate_raw", "raw lane rate", "bytes/s"),
        Provenance("lane payload rate", gen.link_bw_per_dir / gen.lanes_per_direction,
                   "bytes/s", "per direction", "derived",
                   "link_bw_per_dir / lanes_per_direction (both from the catalogue)"),
        _q(gen, "lanes_per_direction", "lanes per direction per link", "1"),
        _q(gen, "link_bw_per_dir", "link rate", "bytes/s"),
        _q(gen, "links_per_gpu", "links per GPU", "1"),
        Provenance("GPU rate", gen.gpu_bw_per_dir, "bytes/s", "per direction", "derived",
                   "links_per_gpu x link_bw_per_dir"),
        _q(gen, "gpu_bw_bidir_published", "GPU rate (published)", "bytes/s"),
    ]


@dataclass(frozen=True)
class GenerationStep:
    """One row of the generation comparison: a chain step's rate in each generation."""

    label: str
    scope: str
    direction: str
    rates: tuple[float, ...]

    @property
    def ratio(self) -> float:
        """Last generation's rate / first's."""
        return self.rates[-1] / self.rates[0]


def compare_generations(generations: tuple[int, ...] = (4, 5)) -> list[GenerationStep]:
    """Step-by-step rates of the NVLink chains of ``generations``, side by side.

    Every generation must have the same steps (same codes), which holds for NVLink 4 and 5.

    Examples
    --------
    >>> steps = compare_generations()
    >>> [round(s.ratio, 3) for s in steps]
    [2.0, 2.0, 2.0, 2.0, 2.0, 2.0]
    >>> steps[-1].direction, steps[-1].rates[-1] / 1e12
    ('bidirectional', 1.8)
    """
    if len(generations) < 2:
        raise ValueError(f"compare at least two generations, got {generations!r}")
    chains = [nvlink_chain(g) for g in generations]
    n = {len(c.steps) for c in chains}
    if len(n) != 1:
        raise ValueError(f"generations {generations} have different chain steps (codes); "
                         "compare NVLink 4 and 5, which share them")
    rows = []
    for i, step in enumerate(chains[0].steps):
        label = step.label.split(" = ")[-1] if " = " in step.label else step.label
        rows.append(GenerationStep(label, step.scope, step.direction,
                                   tuple(c.steps[i].rate for c in chains)))
    return rows


def chain_matches_published(generation: int) -> dict[str, tuple[float, float]]:
    """(chain, published) pairs for the link rate per direction and the GPU's bidirectional
    total: the chain must land on NVIDIA's figures.

    Examples
    --------
    >>> {k: a == b for k, (a, b) in chain_matches_published(5).items()}
    {'link per direction': True, 'GPU bidirectional': True}
    """
    c = nvlink_chain(generation)
    g = specs.nvlink(generation)
    return {"link per direction": (c.link_bw_per_dir, g.link_bw_per_dir),
            "GPU bidirectional": (c.gpu_bw_bidir, g.gpu_bw_bidir_published)}
