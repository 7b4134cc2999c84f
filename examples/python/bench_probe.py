"""Lookups per second from Python, to set beside `qibase-dev bench-probe`.

    python examples/python/bench_probe.py GAME DIR [N]

Positions are drawn uniformly from the used slots of the tiers present (as
bench-probe draws them), then probed: one `probe` call each, and in one
batch of N (default 100,000) with `probe_array` (full values) and
`probe_wdl_array` (WDL only) into numpy arrays, each batch on a fresh
sample (cold lookups). Set QIBASE_CACHE_MB=16 for bench-probe's default
cache, and RAYON_NUM_THREADS=1 to compare with its one thread.
"""

import random
import sys
import time

import qibase


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


def main():
    game, directory = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 100_000
    g = qibase.Game(game)
    with qibase.open_tablebase(directory) as tb:
        sets = [sample(tb, g, n, seed) for seed in (1, 2, 3, 4)]
        for p in sets[3][:100]:  # open every file first, as bench-probe does
            tb.probe(g, p)
        for t in tb.tiers(g):
            if t.solved:
                tb.position_of(g, t.key, 0)
        # In bench-probe's order: cold WDL, then cold full values (each on
        # a fresh sample), then single calls on a third sample.
        for name, batch, data in (
            ("batch probe_wdl_array", tb.probe_wdl_array, sets[0]),
            ("batch probe_array", tb.probe_array, sets[1]),
        ):
            t0 = time.perf_counter()
            batch(g, data)
            dt = time.perf_counter() - t0
            print(f"{name:<23} {len(data) / dt / 1e6:7.3f} M/s ({dt * 1e9 / len(data):7.0f} ns each, batch of {len(data)})")
        for name, call in (("single probe_wdl calls", tb.probe_wdl), ("single probe calls", tb.probe)):
            single = sets[2][: n // 5] if name.endswith("wdl calls") else sets[2][n // 5 : 2 * n // 5]
            t0 = time.perf_counter()
            for p in single:
                call(g, p)
            dt = time.perf_counter() - t0
            print(f"{name:<23} {len(single) / dt / 1e6:7.3f} M/s ({dt * 1e9 / len(single):7.0f} ns each)")
        # The parse alone: what a batch costs beyond the lookups.
        t0 = time.perf_counter()
        keys = [tb.slot_of(g, p) for p in sets[1][:20000]]
        dt = time.perf_counter() - t0
        print(f"(slot_of single calls   {20000 / dt / 1e6:7.3f} M/s: the per-call overhead of the binding)")
        assert len(keys) == 20000


if __name__ == "__main__":
    main()
