"""Bad input raises the right exception, never crashes."""

import shutil

import numpy as np
import pytest

import qibase
from conftest import WEIMING_DIR


@pytest.fixture
def tb():
    with qibase.open_tablebase(WEIMING_DIR) as t:
        yield t


def test_exception_hierarchy():
    assert issubclass(qibase.ParseError, qibase.Error)
    assert issubclass(qibase.ParseError, ValueError)
    assert issubclass(qibase.IllegalPosition, qibase.Error)
    assert issubclass(qibase.MissingTableError, qibase.Error)
    assert issubclass(qibase.MissingTableError, KeyError)
    assert issubclass(qibase.CorruptTableError, qibase.Error)
    assert issubclass(qibase.UnknownGame, qibase.Error)


@pytest.mark.parametrize("pos", ["", "XXX/S../OOO", "XXX/S../OOO Q -", "nonsense", "XXXX/S../OOO X -"])
def test_malformed_positions(tb, pos):
    g = qibase.Game("weiming")
    for call in (lambda: g.parse(pos), lambda: tb.probe(g, pos), lambda: g.moves(pos),
                 lambda: tb.probe_many(g, [g.start, pos]), lambda: tb.slot_of(g, pos)):
        with pytest.raises(qibase.ParseError):
            call()


def test_illegal_position():
    # Well formed, impossible material: 7 X on the 4x4 board.
    g = qibase.Game("cannon-chess-4x4")
    with pytest.raises(qibase.IllegalPosition):
        g.parse("XXXX/XXX./..../OOOO X")
    # The start, with its 6 X, is fine.
    assert g.parse(g.start) == g.start


def test_illegal_and_malformed_moves():
    g = qibase.Game("weiming")
    with pytest.raises(qibase.ParseError):
        g.apply(g.start, "tl-br")
    with pytest.raises(qibase.ParseError):
        g.apply(g.start, "zz")
    with pytest.raises(qibase.ParseError):
        g.parse_move(g.start, "")


@pytest.mark.parametrize("variant", ["chess", "weiming:board=4x4", "cannon-chess:board=99x99", "cannon-chess:nokey=1"])
def test_unknown_games(variant):
    with pytest.raises(qibase.UnknownGame):
        qibase.Game(variant)
    with qibase.open_tablebase(WEIMING_DIR) as tb, pytest.raises(qibase.UnknownGame):
        tb.probe(variant, "x")
    with pytest.raises(qibase.UnknownGame):
        qibase.solve(variant, "/nonexistent")


def test_missing_directory_and_missing_tier(tmp_path):
    with pytest.raises(qibase.TablebaseNotFound) as e:
        qibase.open_tablebase(tmp_path / "nowhere")
    assert isinstance(e.value, FileNotFoundError) and isinstance(e.value, qibase.Error)
    g = qibase.Game("weiming")
    with qibase.open_tablebase(tmp_path) as tb:
        with pytest.raises(qibase.MissingTableError) as e:
            tb.probe(g, g.start)
        assert "qibase solve weiming" in str(e.value)
        with pytest.raises(KeyError):
            tb.probe_wdl(g, g.start)
        with pytest.raises(qibase.MissingTableError):
            tb.probe_array(g, [g.start])
        with pytest.raises(qibase.MissingTableError):
            tb.tier_values(g, "all")
        assert tb.get(g, g.start) is None and tb.get_wdl(g, g.start) is None
        assert [t.solved for t in tb.tiers(g)] == [False]
    with qibase.open_tablebase(WEIMING_DIR) as tb:
        assert str(tb.get(g, g.start)) == "draw"
        assert tb.get_wdl(g, g.start) == 0


def damaged_copy(tmp_path, how):
    d = tmp_path / how
    shutil.copytree(WEIMING_DIR, d)
    f = d / "weiming" / "all.qtb"
    data = bytearray(f.read_bytes())
    if how == "truncated":
        data = data[: len(data) // 2]
    elif how == "flipped":
        for i in range(len(data) // 2, len(data) // 2 + 64):
            data[i] ^= 0xFF
    elif how == "header":
        data[20] ^= 0x55
    f.write_bytes(bytes(data))
    return d, f


@pytest.mark.parametrize("how", ["truncated", "flipped", "header"])
def test_damaged_tier_file(tmp_path, how):
    d, f = damaged_copy(tmp_path, how)
    g = qibase.Game("weiming")
    with qibase.open_tablebase(d) as tb:
        with pytest.raises(qibase.CorruptTableError) as e:
            tb.tier_values(g, "all")
        assert e.value.path == str(f)
        # Lookups: some may land in undamaged blocks, at least one fails,
        # none crashes.
        (tier,) = qibase.open_tablebase(WEIMING_DIR).tiers(g)
        positions = [qibase.open_tablebase(WEIMING_DIR).position_of(g, 0, s) for s in range(0, tier.slots, 7)]
        failures = 0
        for p in positions:
            try:
                tb.probe(g, p)
            except qibase.CorruptTableError as e:
                assert e.path == str(f)
                failures += 1
        assert failures > 0
        with pytest.raises(qibase.CorruptTableError):
            tb.probe_array(g, positions)


def test_wrong_types(tb):
    g = qibase.Game("weiming")
    with pytest.raises(TypeError):
        qibase.Game(5)
    with pytest.raises(TypeError):
        tb.probe(g, 123)
    with pytest.raises(TypeError):
        tb.probe(3.5, g.start)
    with pytest.raises(TypeError):
        tb.probe_many(g, g.start)  # one string, not a list
    with pytest.raises(TypeError):
        tb.probe_many(g, [g.start, 7])
    with pytest.raises(TypeError):
        tb.probe_wdl_array(g, (g.start, b"bytes are not positions"))
    with pytest.raises(TypeError):
        tb.probe_array(g, 7)  # not iterable
    with pytest.raises(TypeError):
        g.perft(g.start, "3")
    with pytest.raises(TypeError):
        tb.probe_slots(g, 0, np.array([1.5]))
    with pytest.raises(TypeError):
        qibase.solve("weiming", "/tmp", progress=5)
    with pytest.raises(TypeError):
        qibase.open_tablebase(None)
    with pytest.raises(ValueError):
        tb.tier_values(g, "nosuchtier")
    with pytest.raises(ValueError):
        tb.best_move(g, g.start, difficulty="godlike")
    with pytest.raises(IndexError):
        tb.probe_slots(g, 0, np.array([10**9], dtype=np.uint64))


def test_closed_tablebase_refuses_lookups():
    g = qibase.Game("weiming")
    with qibase.open_tablebase(WEIMING_DIR) as tb:
        assert str(tb.probe(g, g.start)) == "draw"
    with pytest.raises(ValueError):
        tb.probe(g, g.start)


@pytest.mark.parametrize("released", [False, True])
def test_a_rust_panic_becomes_a_python_exception(released):
    from qibase import _qibase

    with pytest.raises(qibase.InternalError) as e:
        _qibase._panic_for_tests(released)
    assert "test panic" in str(e.value)
    # The module still works afterwards.
    g = qibase.Game("weiming")
    assert g.perft(g.start, 2) == 6
