"""Run a set of flows in SimGrid (its pure max-min flow model); the reference of run.py.

Run by the *system* Python, where Debian's ``python3-simgrid`` is installed (not the
project's environment): ``/usr/bin/python3 benchmarks/simgrid_flows.py < flows.json``.

Input (JSON on stdin): ``capacity`` (bytes/s per directed link), ``routes`` (link ids per
route, one path each: static routing), ``pairs`` (the (src, dst) endpoint of each route)
and ``flows`` (``[route, bytes]``, all starting at 0). Output (JSON on stdout): ``wall``
(seconds from the first flow start to the end of ``Engine.run``, platform building
excluded) and ``finish`` (each flow's simulated end, seconds).

SimGrid is configured as the fluid max-min model nvlearn's ``wire`` model is: CM02 with
no latency or bandwidth factor, no RTT weighting (``weight-S`` 0), no TCP window bound,
no cross traffic, links of zero latency, and a solver precision well below the agreement
the benchmark reports.

Reference: H. Casanova, A. Legrand and M. Quinson, "SimGrid: a Generic Framework for
Large-Scale Distributed Experiments", UKSim 2008.
"""

from __future__ import annotations

import json
import sys
import time

import simgrid

CONFIG = ["network/model:CM02", "network/latency-factor:1", "network/bandwidth-factor:1",
          "network/weight-S:0", "network/TCP-gamma:0", "network/crosstraffic:0",
          "maxmin/precision:1e-13", "surf/precision:1e-13"]


def main() -> None:
    spec = json.load(sys.stdin)
    e = simgrid.Engine(["simgrid_flows", "--log=root.thres:critical"]
                       + [f"--cfg={c}" for c in CONFIG])
    zone = simgrid.NetZone.create_full_zone("fabric")
    endpoints = sorted({n for pair in spec["pairs"] for n in pair})
    hosts = {n: zone.create_host(f"n{n}", 1e9) for n in endpoints}
    links = [zone.create_link(f"l{i}", c).set_latency(0).seal()
             for i, c in enumerate(spec["capacity"])]
    for (s, d), route in zip(spec["pairs"], spec["routes"], strict=True):
        zone.add_route(hosts[s].netpoint, hosts[d].netpoint, None, None,
                       [simgrid.LinkInRoute(links[k]) for k in route], False)
    zone.seal()
    out = {}

    def sender():
        t = time.perf_counter()
        comms = [simgrid.Comm.sendto_async(hosts[spec["pairs"][r][0]],
                                           hosts[spec["pairs"][r][1]], int(b))
                 for r, b in spec["flows"]]
        simgrid.Comm.wait_all(comms)
        out["finish"] = [c.finish_time for c in comms]
        out["wall"] = time.perf_counter() - t

    simgrid.Actor.create("sender", hosts[endpoints[0]], sender)
    e.run()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
