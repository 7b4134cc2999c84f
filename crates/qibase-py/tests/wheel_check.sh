#!/usr/bin/env bash
# The Python package as a user without Rust gets it: maturin builds the
# abi3 wheel, a fresh virtual environment installs it (with numpy and
# pytest from PyPI), and the package's tests run against the installed
# wheel on a PATH with no cargo and no rustc.
#
# Usage: crates/qibase-py/tests/wheel_check.sh [QIBASE_CLI]
#   QIBASE_CLI  the `qibase` binary the tests compare the package with
#               (default: <target>/debug/qibase, as `cargo test` builds it)
# Needs python3 (3.10 or later) and Rust to build the wheel; maturin comes
# from PyPI into <target>/pyenv when missing. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../../.."
repo="$PWD"

target="${CARGO_TARGET_DIR:-$PWD/target}"
cli="${1:-$target/debug/qibase}"
[ -x "$cli" ] || { echo "wheel_check: no qibase binary at $cli (cargo build -p qibase-cli)" >&2; exit 1; }

# Build: maturin from the build environment (the one .ci/run keeps).
build_env="$target/pyenv"
[ -x "$build_env/bin/python" ] || python3 -m venv "$build_env"
"$build_env/bin/python" -c "import maturin" >/dev/null 2>&1 ||
    "$build_env/bin/python" -m pip install -q maturin
wheels="$target/wheels"
rm -rf "$wheels"
# The profile is pyproject.toml's (`python`); `--release` would take the
# workspace's fat-LTO release profile, several times slower to build.
PATH="$(cd "$build_env/bin" && pwd):$PATH" "$build_env/bin/maturin" build --quiet \
    -m crates/qibase-py/Cargo.toml --out "$wheels"
wheel=$(ls "$wheels"/qibase-*.whl)
case "$wheel" in
*-abi3-*) ;;
*) echo "wheel_check: $wheel is not an abi3 wheel" >&2; exit 1 ;;
esac

# Install into a fresh environment, then run with no Rust toolchain on PATH.
env_dir="$target/wheelenv"
rm -rf "$env_dir"
python3 -m venv "$env_dir"
"$env_dir/bin/python" -m pip install -q "$wheel" pytest
no_rust=""
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    [ -e "$d/cargo" ] || [ -e "$d/rustc" ] || no_rust="$no_rust${no_rust:+:}$d"
done
venv_bin="$(cd "$env_dir/bin" && pwd)"
cli="$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")"
# From outside the checkout, so that `import qibase` can only find the
# installed wheel.
cd "$env_dir"
PATH="$venv_bin:$no_rust" QIBASE_CLI="$cli" python - <<'EOF'
import shutil, qibase
assert shutil.which("cargo") is None and shutil.which("rustc") is None, "Rust on PATH"
assert "site-packages" in qibase.__file__, qibase.__file__
print("installed wheel:", qibase.__file__)
EOF
PATH="$venv_bin:$no_rust" QIBASE_CLI="$cli" python -m pytest -q -p no:cacheprovider \
    "$repo/crates/qibase-py/tests"
