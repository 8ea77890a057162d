"""Benchmarks of the simulator (nvlearn.sim) on the 256-GPU NVLink Switch System pod.

Run from the repository root::

    python benchmarks/run.py            # all cases, best of 3
    python benchmarks/run.py --repeat 1 --skip-compile

Cases
-----
* ring all-reduce of 1 GiB on ``nvlink_pod(32)`` with 1, 8 and 32 pipeline chunks
  (130 k, 1.04 M and 4.2 M ops);
* direct all-to-all of 1 GiB per rank on the same pod: 65,280 concurrent flows, each a
  multipath route over the second switch tier;
* the same all-to-all with uneven blocks (each block 0.5-1.5x the mean, seeded) on pods of
  32 ... 256 GPUs (``--uneven``): every flow ends at its own time, so every end is a
  re-solve; the growth exponent of the engine time in p is fitted (log t vs log p);
* SimGrid side by side (``--simgrid``): a 256-flow random permutation on the pod and the
  uneven all-to-all, with static routes (one path per flow, what SimGrid routes) and the
  wire model, in nvlearn and in SimGrid 3.32 (Debian's ``python3-simgrid``, run by the
  system ``/usr/bin/python3``: ``benchmarks/simgrid_flows.py``); agreement is the largest
  relative difference of the flows' end times. Skipped, with a note, without SimGrid;
* fixed cost of one ``simulate`` call on a small schedule (ring all-reduce on one DGX box,
  112 ops): everything but the event loop, best of 30;
* numba compile time of the engine: cold (an empty ``NUMBA_CACHE_DIR``, in a fresh process)
  and cached (a second process loading that cache);
* big collectives (``--scale``, issue 13): the hierarchical and the ring all-reduce of 1 GiB
  in their compact form (:mod:`nvlearn.collectives.compact`) and NCCL's tree as its full op
  list on ``ib_cluster(1024)`` (8,192 GPUs, three switch tiers), each in a fresh process
  (``benchmarks/scale.py``): CPU time of topology, schedule and simulation, peak memory
  (``ru_maxrss``), the load average; then, per collective, the largest power-of-two node
  count whose whole run takes at most 10 s of CPU. ``--scale-only`` skips the pod cases.

Columns: build = schedule construction, routes = ``Topology.routes`` for the distinct
(src, dst) pairs plus validation, engine = the event loop (wall clock, and the CPU time of
the process during it: on a busy machine the CPU time is the steadier figure); events =
transfer starts and ends; batches = distinct event times at which rates were recomputed.
Times are seconds, best of ``--repeat`` runs, after one small warm-up run that loads the
compiled kernels.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GIB = 2**30
#: The interpreter that has Debian's python3-simgrid (not the project's environment).
SYSTEM_PYTHON = "/usr/bin/python3"

_COMPILE_PROBE = """
import time
from nvlearn.topology import single_switch
from nvlearn.collectives import allreduce
topo = single_switch(4, 100e9)
sched = allreduce(4, 1e6)
topo.routes([0], [1])               # the routing kernel is not the engine: load it first
t = time.perf_counter()
from nvlearn.sim import simulate
simulate(topo, sched)
print(time.perf_counter() - t)
"""


def _best(fn, repeat: int):
    """Run ``fn`` ``repeat`` times; return the result with the shortest total wall time."""
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        total = time.perf_counter() - t
        if best is None or total < best[0]:
            best = (total, out)
    return best[1]


def _case(label: str, build, topo, repeat: int) -> dict:
    from nvlearn.sim import simulate

    def once():
        t = time.perf_counter()
        sched = build()
        t_build = time.perf_counter() - t
        res = simulate(topo, sched)
        return t_build, res

    t_build, res = _best(once, repeat)
    engine = res.timings["engine"]
    return {
        "case": label,
        "build": t_build,
        "routes": res.timings["routes"],
        "engine": engine,
        "cpu": res.timings["engine_cpu"],
        "ops": res.n_ops,
        "events": res.n_events,
        "batches": res.n_batches,
        "events/s": res.n_events / engine if engine > 0 else float("nan"),
        "time": res.time,
        "busbw": res.busbw,
    }


def _uneven_blocks(p: int, seed: int = 0):
    """Per-pair bytes of an all-to-all of 1 GiB per rank, each block 0.5-1.5x the mean."""
    import numpy as np

    blocks = np.round(GIB / p * np.random.default_rng(seed).uniform(0.5, 1.5, (p, p)))
    np.fill_diagonal(blocks, 0.0)
    return blocks


def _growth(rows: list[dict], key: str = "engine") -> float:
    """Exponent k of t ~ p^k, least squares on log t vs log p."""
    import numpy as np

    p = np.array([r["p"] for r in rows], dtype=float)
    t = np.array([r[key] for r in rows])
    return float(np.polyfit(np.log(p), np.log(t), 1)[0]) if p.size > 1 else float("nan")


def _simgrid_spec(topo, sched) -> dict:
    """The flows of ``sched`` on ``topo`` (static routes) as simgrid_flows.py reads them."""
    import numpy as np

    from nvlearn.sim import op_routes, participant_nodes

    nodes = participant_nodes(topo, sched)
    op_path, indptr, link, frac, _ = op_routes(topo, sched, nodes)
    if not np.all(frac == 1.0):
        raise ValueError("SimGrid takes one path per flow: use static routing")
    first = np.zeros(indptr.size - 1, dtype=np.int64)
    first[op_path[::-1]] = np.arange(op_path.size - 1, -1, -1)
    return {"capacity": np.asarray(topo.link_capacity).tolist(),
            "routes": [link[indptr[q]:indptr[q + 1]].tolist() for q in range(indptr.size - 1)],
            "pairs": [[int(nodes[sched.op_src[i]]), int(nodes[sched.op_dst[i]])] for i in first],
            "flows": [[int(op_path[i]), int(sched.op_bytes[i])] for i in range(op_path.size)]}


def _simgrid(topo, sched) -> dict | None:
    """SimGrid's wall time and end times for the same flows, or None without SimGrid."""
    import json

    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "simgrid_flows.py")
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import simgrid"], capture_output=True)
    if probe.returncode != 0:
        return None
    out = subprocess.run([SYSTEM_PYTHON, script], input=json.dumps(_simgrid_spec(topo, sched)),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _compile_times() -> tuple[float, float]:
    """Seconds for the first simulate() in a fresh process: empty cache, then cached."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        runs = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", _COMPILE_PROBE], env=env, check=True,
                                 capture_output=True, text=True)
            runs.append(float(out.stdout.strip().splitlines()[-1]))
    return runs[0], runs[1]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (best is shown)")
    parser.add_argument("--skip-compile", action="store_true", help="skip the compile timing")
    parser.add_argument("--chunks", type=int, nargs="*", default=[1, 8, 32],
                        help="pipeline chunks of the ring cases")
    parser.add_argument("--uneven", type=int, nargs="*", default=[32, 64, 96, 128, 256],
                        help="GPU counts of the uneven all-to-all (multiples of 8); cases "
                             "over 64 GPUs run once")
    parser.add_argument("--simgrid", type=int, nargs="*", default=[32, 64],
                        help="GPU counts of the uneven all-to-all compared with SimGrid")
    parser.add_argument("--scale", action="store_true",
                        help="also the 8,192-GPU cases and the largest size in 10 s")
    parser.add_argument("--scale-only", action="store_true", help="only those")
    parser.add_argument("--scale-nodes", type=int, default=1024,
                        help="nodes of the big cases (8 GPUs each)")
    parser.add_argument("--scale-budget", type=float, default=10.0,
                        help="CPU seconds of the largest-size search")
    args = parser.parse_args(argv)
    if args.scale or args.scale_only:
        _print_scale(args)
        if args.scale_only:
            return

    import numpy as np

    from nvlearn.collectives import allreduce, alltoall
    from nvlearn.sim import simulate
    from nvlearn.topology import nvlink_pod
    from nvlearn.units import format_rate, format_time

    pod = nvlink_pod(32)
    simulate(pod, allreduce(pod, 1e6))  # warm-up: load the kernels

    rows = [
        _case(f"ring all-reduce 1 GiB, {c} chunk{'s' * (c > 1)}",
              lambda c=c: allreduce(pod, GIB, chunks=c), pod, args.repeat)
        for c in args.chunks
    ]
    rows.append(_case(f"all-to-all 1 GiB/rank, {pod.n_gpus * (pod.n_gpus - 1):,} flows",
                      lambda: alltoall(pod, GIB), pod, args.repeat))
    uneven = []
    for p in args.uneven:
        topo = nvlink_pod(p // 8)
        row = _case(f"uneven all-to-all, {p} GPUs", lambda p=p, topo=topo: alltoall(
            topo, GIB, block_bytes=_uneven_blocks(p)), topo, args.repeat if p <= 64 else 1)
        uneven.append(dict(row, p=p))

    print(f"nvlearn.sim benchmarks on {pod.name}: {pod.n_gpus} GPUs, {pod.n_links} links; "
          "simulator model: achievable (the default: NCCL's rates, protocol and latencies)")
    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"{os.cpu_count()} CPUs, {platform.processor() or platform.machine()}; "
          f"seconds, best of {args.repeat}\n")
    head = (f"{'case':<38} {'build':>6} {'routes':>7} {'engine':>7} {'(cpu)':>6} {'ops':>10} "
            f"{'events':>10} {'batches':>8} {'events/s':>9}   {'simulated':>9} {'busbw':>10}")
    print(head)
    print("-" * len(head))
    for r in rows + uneven:
        print(f"{r['case']:<38} {r['build']:>6.2f} {r['routes']:>7.2f} {r['engine']:>7.2f} "
              f"{r['cpu']:>6.2f} "
              f"{r['ops']:>10,} {r['events']:>10,} {r['batches']:>8,} "
              f"{r['events/s'] / 1e6:>7.2f} M   {format_time(r['time']):>9} "
              f"{format_rate(r['busbw']):>10}")
    if len(uneven) > 1:
        print(f"\nuneven all-to-all: engine time grows as p^{_growth(uneven):.2f} "
              f"(CPU time: p^{_growth(uneven, 'cpu'):.2f}) over p = "
              f"{', '.join(str(r['p']) for r in uneven)}")
    _print_simgrid(args)
    _print_fixed_cost()
    if not args.skip_compile:
        cold, cached = _compile_times()
        print(f"\nengine compile, first simulate() in a fresh process: cold cache "
              f"{cold:.1f} s, cached {cached:.2f} s")


_SCALE = Path(__file__).resolve().parent / "scale.py"


def _scale_case(case: str, nodes: int, model: str = "achievable") -> dict:
    """One ``benchmarks/scale.py`` run in a fresh process (its own peak memory)."""
    run = subprocess.run([sys.executable, str(_SCALE), case, str(nodes), model],
                         capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def _scale_row(r: dict) -> str:
    label = f"{r['case']} {r['gpus']:,} GPUs {r['model']}"
    if "refused" in r:
        return f"{label:<44} refused: {r['refused'][:120]}"
    return (f"{label:<44} {r['cpu_topology']:>5.2f} {r['cpu_build']:>6.2f} "
            f"{r['cpu_simulate']:>7.2f} {r['cpu_total']:>6.2f} {r['wall']:>6.1f} "
            f"{r['peak_gb']:>5.2f} {r['ops']:>11,} {r['full_ops']:>14,} "
            f"{r['time'] * 1e3:>9.3f} {r['busbw'] / 1e9:>6.1f} "
            f"{r['load_before']:>4.1f}-{r['load_after']:<4.1f}")


def _print_scale(args) -> None:
    """The big cases of issue 13 and the largest size each collective reaches in 10 s."""
    n = args.scale_nodes
    print(f"big collectives on ib_cluster({n}) ({8 * n:,} GPUs), all-reduce of 1 GiB per rank, "
          "each in a fresh process; CPU seconds (process time: topology, build, simulate, "
          "total), wall seconds, peak resident GB, load average before-after")
    head = (f"{'case':<44} {'topo':>5} {'build':>6} {'sim':>7} {'cpu':>6} {'wall':>6} "
            f"{'GB':>5} {'ops run':>11} {'ops in full':>14} {'time ms':>9} {'busbw':>6} load")
    print(head)
    print("-" * len(head))
    for case in ("compact-hierarchical", "compact-ring", "full-nccl_tree"):
        for model in ("achievable", "wire"):
            print(_scale_row(_scale_case(case, n, model)), flush=True)
    print(f"\nlargest power-of-two node count within {args.scale_budget:g} CPU seconds "
          "(achievable model; the first row over the budget, or refused, ends the search)")
    print(head)
    print("-" * len(head))
    for case in ("compact-hierarchical", "compact-ring", "full-nccl_tree", "full-hierarchical",
                 "full-ring"):
        nodes, best = 4, None
        while nodes <= 8192:
            r = _scale_case(case, nodes)
            print(_scale_row(r), flush=True)
            if "refused" in r or r["cpu_total"] > args.scale_budget:
                break
            best, nodes = r, 2 * nodes
        print(f"  -> {case}: {best['gpus']:,} GPUs in {best['cpu_total']:.1f} s" if best
              else f"  -> {case}: none", flush=True)


def _print_simgrid(args) -> None:
    """nvlearn and SimGrid on the same flows and static routes (wire model)."""
    import numpy as np

    from nvlearn.collectives import alltoall
    from nvlearn.sim import simulate
    from nvlearn.topology import nvlink_pod, with_routing

    cases = []
    pod = with_routing(nvlink_pod(32), "static")
    perm = np.random.default_rng(0).permutation(pod.n_gpus)
    cases.append(("permutation, 256 flows", pod, _permutation(pod.n_gpus, perm)))
    for p in args.simgrid:
        topo = with_routing(nvlink_pod(p // 8), "static")
        cases.append((f"uneven all-to-all, {p} GPUs", topo,
                      alltoall(topo, GIB, block_bytes=_uneven_blocks(p))))
    print(f"\nside by side with SimGrid (static routes, wire model, the same flows; "
          f"nvlearn best of {args.repeat}, SimGrid once)")
    head = (f"{'case':<30} {'flows':>7} {'nvlearn total':>14} {'engine':>8} "
            f"{'SimGrid':>8} {'agreement':>10}")
    print(head)
    print("-" * len(head))
    for label, topo, sched in cases:
        simulate(topo, sched, model="wire")  # routes cached, as a second call finds them
        best = None
        for _ in range(args.repeat):
            t = time.perf_counter()
            res = simulate(topo, sched, model="wire")
            total = time.perf_counter() - t
            best = min(best or (total, res), (total, res), key=lambda x: x[0])
        total, res = best
        sg = _simgrid(topo, sched)
        if sg is None:
            print(f"{label:<30} {sched.n_ops:>7,} {total:>14.4f} {res.timings['engine']:>8.4f} "
                  "   (SimGrid not installed: apt-get install python3-simgrid)")
            continue
        agree = np.max(np.abs(np.array(sg["finish"]) - res.op_sent) / res.op_sent)
        print(f"{label:<30} {sched.n_ops:>7,} {total:>14.4f} {res.timings['engine']:>8.4f} "
              f"{sg['wall']:>8.4f} {agree:>10.1e}")


def _permutation(n: int, perm):
    """A direct all-to-all's schedule reduced to one block per rank: rank i sends 1 MB to
    ``perm[i]`` (fixed points send nothing)."""
    from nvlearn.collectives import alltoall

    blocks = [[0.0] * n for _ in range(n)]
    for i, j in enumerate(perm):
        if i != j:
            blocks[i][int(j)] = 1e6
    return alltoall(n, 1e6, block_bytes=blocks)


def _print_fixed_cost() -> None:
    """Seconds of one simulate() call outside the event loop, on a 112-op schedule."""
    from nvlearn.collectives import allreduce
    from nvlearn.sim import simulate
    from nvlearn.topology import nvlink_pod

    box, sched = nvlink_pod(1), allreduce(8, 1e6)
    print("\nfixed cost of a simulate() call (ring all-reduce, 8 GPUs, 112 ops), best of 30:")
    for model in ("wire", "achievable"):
        simulate(box, sched, model=model)
        best = None
        for _ in range(30):
            t = time.perf_counter()
            res = simulate(box, sched, model=model)
            total = time.perf_counter() - t
            best = min(best or (total, res), (total, res), key=lambda x: x[0])
        total, res = best
        print(f"  {model:<10} total {total * 1e3:.3f} ms, of which set-up (everything but the "
              f"event loop) {(total - res.timings['engine']) * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
