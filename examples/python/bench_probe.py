"""Lookups per second from Python, to set beside `qibase-dev bench-probe`.

    python examples/python/bench_probe.py GAME DIR [N]

Positions are drawn uniformly from the used slots of the tiers present (as
bench-probe draws them), then probed: one `probe` call each, and in one
batch of N (default 100,000) with `probe_array` (full values) and
`probe_wdl_array` (WDL only) into numpy arrays, each batch on a fresh
sample (cold lookups). Set QIBASE_CACHE_MB=16 for bench-probe's default
cache, and RAYON_NUM_THREADS=1 to compare with its one thread.
"""

import os
import random
import sys
import time

# numpy's BLAS starts a thread per core that spins for a while after each
# call and bills its CPU time to the process: keep it out of the figures.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import qibase  # noqa: E402


def sample(tb, game, n, seed):
    rng = random.Random(seed)
    tiers = [t for t in tb.tiers(game) if t.solved]
    total = sum(t.slots for t in tiers)
    out = []
    while len(out) < n:
        k = rng.randrange(total)
        for t in tiers:
            if k < t.slots:
                break
            k -= t.slots
        p = tb.position_of(game, t.key, k)
        if p is not None:
            out.append(p)
    return out


def report(name, n, wall, cpu):
    # CPU time of the process (all its threads): on a shared machine wall
    # time mostly measures the others. With RAYON_NUM_THREADS=1 it is one
    # thread's work, as bench-probe's figure.
    print(f"{name:<23} {n / cpu / 1e6:7.3f} M/s of CPU time ({cpu * 1e9 / n:6.0f} ns each); "
          f"wall {n / wall / 1e6:7.3f} M/s ({n} lookups)")


def main():
    game, directory = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 100_000
    g = qibase.Game(game)
    with qibase.open_tablebase(directory) as tb:
        sets = [sample(tb, g, n, seed) for seed in (1, 2, 3, 4)]
        tb.tiers(g)  # opens every tier file first, as bench-probe does
        # In bench-probe's order: cold WDL, then cold full values (each on
        # a fresh sample), then single calls on a third sample.
        for name, batch, data in (
            ("batch probe_wdl_array", tb.probe_wdl_array, sets[0]),
            ("batch probe_array", tb.probe_array, sets[1]),
        ):
            c0, t0 = time.process_time(), time.perf_counter()
            batch(g, data)
            dt, cpu = time.perf_counter() - t0, time.process_time() - c0
            report(name, len(data), dt, cpu)
        for name, call in (("single probe_wdl calls", tb.probe_wdl), ("single probe calls", tb.probe)):
            single = sets[2][: n // 5] if name.endswith("wdl calls") else sets[2][n // 5 : 2 * n // 5]
            c0, t0 = time.process_time(), time.perf_counter()
            for p in single:
                call(g, p)
            dt, cpu = time.perf_counter() - t0, time.process_time() - c0
            report(name, len(single), dt, cpu)
        # The same lookups without parsing: slots of a fresh sample, one
        # probe_slots batch per tier.
        by_tier = {}
        for p in sets[3]:
            key, slot = tb.slot_of(g, p)
            by_tier.setdefault(key, []).append(slot)
        arrays = {k: np.array(v, dtype=np.uint64) for k, v in by_tier.items()}
        c0, t0 = time.process_time(), time.perf_counter()
        for k, a in arrays.items():
            tb.probe_slots(g, k, a)
        report("batch probe_slots", len(sets[3]), time.perf_counter() - t0, time.process_time() - c0)


if __name__ == "__main__":
    main()
