"""The GIL is released during long calls; solving is interruptible and
resumable."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import qibase
from conftest import WEIMING_DIR


class Ticker:
    """A Python thread that records the time of each of its steps."""

    def __init__(self):
        self.times = []
        self.done = False
        self.thread = threading.Thread(target=self.run)

    def run(self):
        while not self.done:
            self.times.append(time.monotonic())
            sum(range(200))

    def __enter__(self):
        self.thread.start()
        time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self.done = True
        self.thread.join()

    def steps_between(self, t0, t1):
        return sum(1 for t in self.times if t0 < t < t1)


def during(call):
    """Run `call` while the ticker runs; how many ticker steps fell well
    inside the call, and how long it took."""
    with Ticker() as ticker:
        t0 = time.monotonic()
        call()
        t1 = time.monotonic()
    margin = 0.02
    return ticker.steps_between(t0 + margin, t1 - margin), t1 - t0


def test_batch_probes_release_the_gil():
    g = qibase.Game("weiming")
    with qibase.open_tablebase(WEIMING_DIR) as tb:
        (tier,) = tb.tiers(g)
        positions = [tb.position_of(g, tier.key, s) for s in range(tier.slots)] * 50
        steps, seconds = during(lambda: tb.probe_array(g, positions))
        assert seconds > 0.1, "make the batch longer"
        assert steps > 0


def test_solve_releases_the_gil(tmp_path):
    steps, seconds = during(lambda: qibase.solve("cannon-chess", tmp_path, max_pieces=4))
    assert seconds > 0.1
    assert steps > 0


def test_a_solve_into_a_directory_another_writer_holds_is_refused(tmp_path):
    import fcntl

    game_dir = tmp_path / "weiming"
    game_dir.mkdir()
    with open(game_dir / ".qibase.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(qibase.DirectoryLocked) as e:
            qibase.solve("weiming", tmp_path)
        assert "another process is writing there" in str(e.value)
        assert e.value.path == str(game_dir)
        assert not list(game_dir.glob("*.qtb"))
    # Released: the solve goes ahead.
    qibase.solve("weiming", tmp_path)
    assert list(game_dir.glob("*.qtb"))


def test_keyboard_interrupt_stops_and_a_later_solve_resumes(tmp_path):
    variant = "cannon-chess-4x4"
    g = qibase.Game(variant)
    names = [n for _, n in g.tier_names(4)]
    solved = []

    def progress(e):
        if e["event"] == "solved":
            solved.append(e["tier"])
            if len(solved) == 3:
                os.kill(os.getpid(), signal.SIGINT)
                # Hold the solver here (it waits for its callback) until
                # the main thread has seen the signal: the rest of this
                # small solve takes less than the binding's polling
                # interval, and could otherwise finish first.
                time.sleep(0.2)

    # Python ignores SIGINT when it started with SIGINT ignored (as a
    # background job of a script does): install the usual handler.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            qibase.solve(variant, tmp_path, max_pieces=4, progress=progress)
    finally:
        signal.signal(signal.SIGINT, previous)
    on_disk = sorted(p.stem for p in (tmp_path / variant).glob("*.qtb"))
    # Ctrl-C is noticed within milliseconds; the tier being solved then is
    # given up (between levels), and the one before it is written.
    assert 3 <= len(on_disk) < len(names), on_disk
    assert set(solved) <= set(on_disk) and len(on_disk) <= len(solved) + 1
    assert on_disk == sorted(names[: len(on_disk)])
    # The second solve skips what is on disk and finishes the rest.
    reports = qibase.solve(variant, tmp_path, max_pieces=4)
    assert sorted(r["tier"] for r in reports if r["skipped"]) == on_disk
    assert [r["tier"] for r in reports] == names
    # The same tables as a solve in one go.
    fresh = tmp_path / "fresh"
    qibase.solve(variant, fresh, max_pieces=4)
    with qibase.open_tablebase(tmp_path) as a, qibase.open_tablebase(fresh) as b:
        for key, name in g.tier_names(4):
            for x, y in zip(a.tier_values(g, key), b.tier_values(g, key)):
                assert np.array_equal(x, y), name


def test_an_exception_in_the_progress_callback_stops_the_solve(tmp_path):
    class Stop(Exception):
        pass

    def progress(e):
        if e["event"] == "solved":
            raise Stop()

    with pytest.raises(Stop):
        qibase.solve("cannon-chess-4x4", tmp_path, max_pieces=4, progress=progress)
    assert len(list((tmp_path / "cannon-chess-4x4").glob("*.qtb"))) == 1


def test_values_and_games():
    assert qibase.games()[0] == "weiming" and "two-cannons" in qibase.games()
    v = qibase.Value("win 7")
    assert (v.wdl, v.remoteness, v.category, str(v)) == (1, 7, "win", "win 7")
    assert qibase.Value("draw").remoteness is None
    assert qibase.Value("win 1") > qibase.Value("win 3") > qibase.Value("draw") > qibase.Value("loss 2") > qibase.Value("loss 0")
    assert qibase.Value("loss 4") == qibase.Value("loss 4") and len({qibase.Value("draw"), qibase.Value("draw")}) == 1
    with pytest.raises(qibase.ParseError):
        qibase.Value("victory")
    g = qibase.Game("cannon-chess:board=4x4,tiao=any")
    assert g.id == g.variant == "cannon-chess:board=4x4,tiao=any"
    assert qibase.Game("cannon-chess").id == "cannon-chess"
    w = qibase.Game("weiming")
    with qibase.open_tablebase(WEIMING_DIR) as tb:
        wdl, rem, _ = tb.tier_values(w, "all")
        slot = int(np.flatnonzero((wdl == -1) & (rem == 0))[0])
        pos = tb.position_of(w, "all", slot)
    end = w.result(pos)
    assert end is not None and str(end.value) == "loss 0" and end.reason
    assert w.moves(pos) == [] and w.result(w.start) is None


def test_a_solve_under_a_memory_budget_gives_the_same_tables(tmp_path):
    variant = "cannon-chess-4x4"
    g = qibase.Game(variant)
    plain, budget = tmp_path / "plain", tmp_path / "budget"
    qibase.solve(variant, plain, max_pieces=3)
    reports = qibase.solve(variant, budget, max_pieces=3, memory=32 * 1024)
    assert [r["tier"] for r in reports] == [n for _, n in g.tier_names(3)]
    assert max(r["windows"] for r in reports) > 1 and min(r["windows"] for r in reports) == 0
    with qibase.open_tablebase(plain) as a, qibase.open_tablebase(budget) as b:
        for key, name in g.tier_names(3):
            for x, y in zip(a.tier_values(g, key), b.tier_values(g, key)):
                assert np.array_equal(x, y), name
    # A budget that cannot hold one region, and a zero budget, are refused
    # before anything is solved.
    with pytest.raises(qibase.Error, match="too small for tier"):
        qibase.solve(variant, tmp_path / "none", max_pieces=3, memory=1000)
    with pytest.raises(ValueError, match="memory"):
        qibase.solve(variant, tmp_path / "none", max_pieces=3, memory=0)
    assert not (tmp_path / "none").exists()
