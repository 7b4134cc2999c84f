"""Shared fixtures: the repository, the `qibase` command-line binary built
from the same checkout (the tests compare the package with it), and
tablebases solved once per session."""

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
WEIMING_DIR = REPO / "tablebases"


def _cli_path() -> Path:
    """`QIBASE_CLI` if set; otherwise build the binary with cargo (the
    test profile, as `cargo test` builds it: a no-op when it is fresh)."""
    env = os.environ.get("QIBASE_CLI")
    if env:
        return Path(env)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    subprocess.run(
        ["cargo", "build", "--quiet", "--profile", "test", "-p", "qibase-cli"],
        cwd=REPO,
        check=True,
    )
    return target / "debug" / "qibase"


@pytest.fixture(scope="session")
def cli():
    """Run the CLI: `cli(args..., input=None)` returns its stdout."""
    path = _cli_path()
    assert path.exists(), path

    def run(*args, input=None, check=True):
        r = subprocess.run(
            [str(path), *map(str, args)],
            input=input,
            capture_output=True,
            text=True,
            cwd=REPO,
        )
        if check and r.returncode != 0:
            raise AssertionError(f"qibase {args} failed ({r.returncode}): {r.stderr}")
        return r.stdout

    return run


def cli_query_lines(cli, game, directory, positions):
    """`qibase query GAME -`: one JSON answer per position."""
    out = cli("query", game, "-", "--dir", directory, input="\n".join(positions) + "\n")
    answers = [json.loads(line) for line in out.splitlines()]
    assert len(answers) == len(positions)
    return answers


def cli_info(cli, game, directory):
    """The per-tier rows of `qibase info`: name -> dict of the columns."""
    out = cli("info", game, "--dir", directory)
    rows = {}
    for line in out.splitlines()[2:]:
        f = line.split()
        if len(f) == 14 and f[1].isdigit():
            rows[f[0]] = {
                "slots": int(f[1]),
                "used": int(f[2]),
                "wins": int(f[7]),
                "losses": int(f[8]),
                "draws": int(f[9]),
                "max_win": int(f[10]),
                "max_loss": int(f[11]),
            }
    return rows


@pytest.fixture(scope="session")
def cc4_dir(tmp_path_factory):
    """cannon-chess with at most 4 pieces a side, solved from Python."""
    import qibase

    d = tmp_path_factory.mktemp("cc4")
    qibase.solve("cannon-chess", d, max_pieces=4)
    return d
