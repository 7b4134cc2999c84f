"""The package against the `qibase` binary of the same checkout."""

import json
import random

import numpy as np
import pytest

import qibase
from conftest import WEIMING_DIR, cli_info, cli_query_lines


def all_weiming_positions(tb, g):
    (tier,) = tb.tiers(g)
    return [tb.position_of(g, tier.key, s) for s in range(tier.slots)]


def test_every_weiming_position_probes_as_the_cli_queries(cli):
    g = qibase.Game("weiming")
    with qibase.open_tablebase(WEIMING_DIR) as tb:
        positions = all_weiming_positions(tb, g)
        assert None not in positions and len(positions) == 20160
        answers = cli_query_lines(cli, "weiming", WEIMING_DIR, positions)
        many = tb.probe_many(g, positions)
        wdl, rem = tb.probe_array(g, positions)
        wdl_only = tb.probe_wdl_array(g, positions)
        # Any sequence or iterable of strings gives the list's answers.
        assert np.array_equal(tb.probe_wdl_array(g, tuple(positions)), wdl_only)
        assert np.array_equal(tb.probe_wdl_array(g, (p for p in positions)), wdl_only)
        assert tb.probe_many(g, positions[::-1]) == many[::-1]
        kinds = set()
        for i, (pos, a) in enumerate(zip(positions, answers)):
            assert "error" not in a, a
            v = tb.probe(g, pos)
            assert str(v) == a["value"], pos
            assert v.category == a["category"] and v.remoteness == a["remoteness"]
            assert many[i] == v
            assert wdl[i] == v.wdl == wdl_only[i] == tb.probe_wdl(g, pos)
            assert rem[i] == (-1 if v.remoteness is None else v.remoteness)
            kinds.add(v.category)
            # Every move with its value, best first, in the CLI's order.
            moves = tb.moves(g, pos)
            assert [(m.move, str(m.value), m.position) for m in moves] == [
                (m["move"], m["value"], m["position"]) for m in a["moves"]
            ], pos
            assert (moves[0].move if moves else None) == a["best"]
            assert (g.result(pos) is None) == (a["end"] is None)
            if a["pass"] is not None:
                assert g.pass_turn(pos) == a["pass"]
        assert kinds == {"win", "draw", "loss"}


def test_pv_and_best_move_equal_the_cli(cli):
    g = qibase.Game("weiming")
    rng = random.Random(7)
    with qibase.open_tablebase(WEIMING_DIR) as tb:
        positions = rng.sample(all_weiming_positions(tb, g), 25)
        for pos in positions + [g.start]:
            q = json.loads(cli("query", "weiming", pos, "--dir", WEIMING_DIR, "--json"))
            assert [(m.move, str(m.value)) for m in tb.pv(g, pos)] == [
                (m["move"], m["value"]) for m in q["pv"]
            ]
            b = json.loads(cli("bestmove", "weiming", pos, "--dir", WEIMING_DIR, "--json"))
            want = b["move"]["move"] if b.get("move") else None
            assert tb.best_move(g, pos, difficulty="perfect") == want
            for level in ("hard", "medium", "easy"):
                for seed in (1, 2):
                    b = json.loads(
                        cli("bestmove", "weiming", pos, "--dir", WEIMING_DIR,
                            "--difficulty", level, "--seed", seed, "--json")
                    )
                    want = b["move"]["move"] if b.get("move") else None
                    assert tb.best_move(g, pos, difficulty=level, seed=seed) == want


def check_tier_values_against_info(cli, game, directory):
    rows = cli_info(cli, game, directory)
    assert rows
    with qibase.open_tablebase(directory) as tb:
        tiers = {t.name: t for t in tb.tiers(game)}
        for name, row in rows.items():
            t = tiers[name]
            assert t.solved and t.slots == row["slots"] and t.used == row["used"]
            wdl, rem, used = tb.tier_values(game, t.key)
            assert wdl.dtype == np.int8 and rem.dtype == np.int16 and used.dtype == np.bool_
            assert len(wdl) == len(rem) == len(used) == row["slots"]
            assert int(used.sum()) == row["used"], name
            assert int(((wdl == 1) & used).sum()) == row["wins"], name
            assert int(((wdl == -1) & used).sum()) == row["losses"], name
            assert int(((wdl == 0) & used).sum()) == row["draws"], name
            assert np.all(rem[~used] == -1) and np.all(wdl[~used] == 0)
            assert np.all((rem == -1) == ((wdl == 0) | ~used))
            assert int(rem[wdl == 1].max(initial=0)) == row["max_win"], name
            assert int(rem[wdl == -1].max(initial=0)) == row["max_loss"], name
            # The same arrays by name as by key.
            assert np.array_equal(tb.tier_values(game, name)[1], rem)
    return rows


def test_tier_values_counts_equal_cli_info_weiming(cli):
    check_tier_values_against_info(cli, "weiming", WEIMING_DIR)


def test_tier_values_counts_equal_cli_info_cannon_chess_4(cli, cc4_dir):
    rows = check_tier_values_against_info(cli, "cannon-chess", cc4_dir)
    assert "4v4" in rows


def test_slot_position_round_trip_every_weiming_slot():
    g = qibase.Game("weiming")
    with qibase.open_tablebase(WEIMING_DIR) as tb:
        (tier,) = tb.tiers(g)
        _, _, used = tb.tier_values(g, tier.key)
        for s in range(tier.slots):
            pos = tb.position_of(g, tier.key, s)
            assert (pos is not None) == bool(used[s])
            assert tb.slot_of(g, pos) == (tier.key, s)
            assert g.parse(pos) == pos
        with pytest.raises(IndexError):
            tb.position_of(g, tier.key, tier.slots)


def test_slot_position_round_trip_cannon_chess_4_samples(cli, cc4_dir):
    g = qibase.Game("cannon-chess")
    rng = random.Random(11)
    with qibase.open_tablebase(cc4_dir) as tb:
        for t in tb.tiers(g):
            if not t.solved:
                continue
            wdl, rem, used = tb.tier_values(g, t.key)
            slots = sorted(rng.sample(range(t.slots), min(t.slots, 400)))
            positions = []
            for s in slots:
                pos = tb.position_of(g, t.key, s)
                assert (pos is not None) == bool(used[s]), (t.name, s)
                if pos is None:
                    continue
                assert tb.slot_of(g, pos) == (t.key, s)
                assert g.tier_of(pos) == t.key
                positions.append((s, pos))
            if not positions:
                continue
            # The arrays hold what a probe (and the CLI) say of the position.
            answers = cli_query_lines(cli, "cannon-chess", cc4_dir, [p for _, p in positions])
            w2, r2 = tb.probe_slots(g, t.key, np.array([s for s, _ in positions], dtype=np.uint64))
            for (s, pos), a, sw, sr in zip(positions, answers, w2, r2):
                v = tb.probe(g, pos)
                assert str(v) == a["value"]
                assert (wdl[s], rem[s]) == (v.wdl, -1 if v.remoteness is None else v.remoteness)
                assert (sw, sr) == (wdl[s], rem[s])


def test_game_rules_equal_the_cli(cli):
    for game, depth in (("weiming", 7), ("cannon-chess", 4), ("two-cannons", 4)):
        g = qibase.Game(game)
        out = cli("perft", game, depth)
        counts = {int(a): int(b) for a, b in (l.split() for l in out.splitlines() if l[:1].isdigit())}
        for d in range(1, depth + 1):
            assert g.perft(g.start, d) == counts[d], (game, d)
        m = json.loads(cli("moves", game, g.start, "--json"))
        assert g.moves(g.start) == [(x["move"], x["position"]) for x in m["moves"]]
        for mv, after in g.moves(g.start):
            assert g.apply(g.start, mv) == after
        shown = cli("show", game, g.start)
        assert g.diagram(g.start).strip() in shown


def test_solve_from_python_equals_the_cli(cli, tmp_path):
    variant = "cannon-chess:board=4x4,tiao=any"
    py_dir, cli_dir = tmp_path / "py", tmp_path / "cli"
    events = []
    reports = qibase.solve(variant, py_dir, max_pieces=4, threads=2, progress=events.append)
    cli("solve", variant, "--max-pieces", 4, "--dir", cli_dir, "--quiet")
    g = qibase.Game(variant)
    names = [n for _, n in g.tier_names(4)]
    assert [r["tier"] for r in reports] == names and not any(r["skipped"] for r in reports)
    assert [e["tier"] for e in events if e["event"] == "solved"] == names
    assert [e["tier"] for e in events if e["event"] == "started"] == names
    with qibase.open_tablebase(py_dir) as a, qibase.open_tablebase(cli_dir) as b:
        for key, name in g.tier_names(4):
            for x, y in zip(a.tier_values(g, key), b.tier_values(g, key)):
                assert np.array_equal(x, y), name
        # Probes of the Python-made table equal the CLI's queries of its own.
        rng = random.Random(3)
        positions = []
        for key, _ in g.tier_names(4):
            t = [t for t in a.tiers(g) if t.key == key][0]
            for s in rng.sample(range(t.slots), min(t.slots, 50)):
                p = a.position_of(g, key, s)
                if p is not None:
                    positions.append(p)
        answers = cli_query_lines(cli, variant, cli_dir, positions)
        assert [str(v) for v in a.probe_many(g, positions)] == [x["value"] for x in answers]
