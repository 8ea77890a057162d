"""One big-collective case in this process, printed as one JSON line (for ``run.py --scale``).

    python benchmarks/scale.py CASE NODES [MODEL] [--chunks C]

CASE is ``compact-hierarchical`` or ``compact-ring`` (the compact form,
:mod:`nvlearn.collectives.compact`, one op per class of symmetric ops),
``full-hierarchical``, ``full-ring`` or ``full-nccl_tree`` (the full op list); NODES the
DGX H100 nodes of ``ib_cluster`` (8 GPUs each; three switch tiers past 256); MODEL
``achievable`` (default) or ``wire``. All-reduce of 1 GiB per rank. The line holds the CPU
seconds of the process (``time.process_time``: topology, schedule, simulation, total), the
wall clock, the peak resident memory (``ru_maxrss``), the load average before and after,
the op counts and the simulated time; or ``"refused"`` with the ValueError's message when
a budget check refused the request before building it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

GIB = 2**30
CASES = ("compact-hierarchical", "compact-ring", "full-hierarchical", "full-ring",
         "full-nccl_tree")


def probe(case: str, nodes: int, model: str = "achievable", chunks: int = 1) -> dict:
    """Build and simulate one case; CPU seconds per stage, peak memory, the result."""
    from nvlearn.collectives import allreduce
    from nvlearn.collectives.compact import compact_allreduce
    from nvlearn.sim import simulate
    from nvlearn.topology import ib_cluster

    out = {"case": case, "nodes": nodes, "gpus": 8 * nodes, "model": model, "chunks": chunks,
           "load_before": os.getloadavg()[0]}
    kind, algorithm = case.split("-", 1)
    wall, c0 = time.perf_counter(), time.process_time()
    topo = ib_cluster(nodes)
    c1 = time.process_time()
    try:
        build = compact_allreduce if kind == "compact" else allreduce
        sched = build(topo, GIB, algorithm, chunks=chunks)
        c2 = time.process_time()
        res = simulate(topo, sched, model=model)
    except ValueError as err:
        return dict(out, refused=str(err), load_after=os.getloadavg()[0])
    c3 = time.process_time()
    out.update(
        cpu_topology=c1 - c0, cpu_build=c2 - c1, cpu_simulate=c3 - c2, cpu_total=c3 - c0,
        wall=time.perf_counter() - wall,
        peak_gb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9,
        ops=res.n_ops, full_ops=getattr(res, "n_full_ops", res.n_ops),
        classes=getattr(res, "n_classes", topo.n_links), links=topo.n_links,
        events=res.n_events, batches=res.n_batches, time=res.time, busbw=res.busbw,
        engine_cpu=res.timings.get("engine_cpu", float("nan")),
        symmetry=getattr(sched, "meta", {}).get("symmetry", ""),
        load_after=os.getloadavg()[0])
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("case", choices=CASES)
    parser.add_argument("nodes", type=int)
    parser.add_argument("model", nargs="?", default="achievable", choices=("achievable", "wire"))
    parser.add_argument("--chunks", type=int, default=1)
    args = parser.parse_args(argv)
    print(json.dumps(probe(args.case, args.nodes, args.model, args.chunks)))


if __name__ == "__main__":
    main()
