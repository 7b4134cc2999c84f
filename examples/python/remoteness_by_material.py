"""The distribution of remoteness by material in two-cannons.

    python examples/python/remoteness_by_material.py DIR [OUT.png]

Reads every tier of the two-cannons tablebase in DIR whole (`tier_values`:
numpy arrays, one entry per index slot, i.e. per position up to the board's
symmetries) and prints, per number of soldiers, the share of wins, draws
and losses for the side to move and the quartiles of the remoteness of
decided positions. With matplotlib installed it also plots them: the share
of decided positions at each remoteness (a heat map, one row per soldier
count) and the win/draw/loss shares.
"""

import sys

import numpy as np

import qibase


def main():
    directory = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "two-cannons-remoteness.png"
    game = qibase.Game("two-cannons")
    rows = []
    with qibase.open_tablebase(directory) as tb:
        for tier in tb.tiers(game):
            if not tier.solved:
                continue
            wdl, rem, used = tb.tier_values(game, tier.key)
            decided = used & (wdl != 0)
            hist = np.bincount(rem[decided], minlength=1).astype(np.float64)
            shares = [int((used & (wdl == w)).sum()) / int(used.sum()) for w in (1, 0, -1)]
            q = np.percentile(rem[decided], [25, 50, 75]) if decided.any() else [0, 0, 0]
            rows.append((tier.max_pieces, hist, shares))
            print(
                f"{tier.max_pieces:2d} soldiers: {int(used.sum()):>11,} slots, "
                f"win {shares[0]:6.1%} draw {shares[1]:6.1%} loss {shares[2]:6.1%}, "
                f"remoteness quartiles {q[0]:.0f} / {q[1]:.0f} / {q[2]:.0f}, max {len(hist) - 1}"
            )
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return
    width = max(len(h) for _, h, _ in rows)
    grid = np.full((len(rows), width), np.nan)
    for i, (_, h, _) in enumerate(rows):
        if h.sum() > 0:
            grid[i, : len(h)] = np.where(h > 0, h / h.sum(), np.nan)
    fig, (ax, bx) = plt.subplots(
        1, 2, figsize=(10, 4.2), gridspec_kw={"width_ratios": [3, 1]}, constrained_layout=True
    )
    im = ax.imshow(
        grid, aspect="auto", origin="lower", cmap="viridis", interpolation="nearest",
        norm=matplotlib.colors.LogNorm(vmin=1e-6, vmax=1),
    )
    ax.set_yticks(range(len(rows)), [str(k) for k, _, _ in rows])
    ax.set_xlabel("remoteness (plies) of won and lost positions")
    ax.set_ylabel("soldiers on the board")
    ax.set_title("two-cannons: share of decided positions by remoteness")
    fig.colorbar(im, ax=ax, label="share of the row's decided positions")
    y = np.arange(len(rows))
    left = np.zeros(len(rows))
    for j, (name, colour) in enumerate((("win", "#2a9d8f"), ("draw", "#bbbbbb"), ("loss", "#e76f51"))):
        s = np.array([r[2][j] for r in rows])
        bx.barh(y, s, left=left, color=colour, label=name)
        left += s
    bx.set_yticks(y, [str(k) for k, _, _ in rows])
    bx.set_xlim(0, 1)
    bx.set_title("side to move")
    bx.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=3, fontsize=8, frameon=False)
    fig.savefig(out, dpi=80)
    print(f"plot written to {out}")


if __name__ == "__main__":
    main()
