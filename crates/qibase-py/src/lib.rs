//! `qibase._qibase`: the Python extension module of the `qibase` package
//! (the pure-Python part, `python/qibase/`, re-exports it and defines the
//! exception classes). Everything goes through the `qibase` library; this
//! crate only converts: strings to positions, values to Python objects and
//! numpy arrays, library errors to the package's exceptions.
//!
//! Rules of the boundary:
//! * positions and moves are strings in the notation of `docs/rules.md`;
//! * long work (batch probes, whole tiers, solving, perft) runs with the
//!   GIL released, batch probes on the library's rayon threads;
//! * no Rust panic crosses into Python: every entry point catches panics
//!   and raises `qibase.InternalError`.

mod errors;
mod game;
mod solve;
mod tablebase;
mod value;

use errors::{held, released, Res};
use game::Game;
use pyo3::prelude::*;
use tablebase::Tablebase;
use value::{GameEnd, MoveValue, TierInfo, Value};

/// Raises a Rust panic inside the library's boundary, for the tests of
/// panic handling (it must come out as `qibase.InternalError`).
#[pyfunction]
fn _panic_for_tests(py: Python<'_>, released_gil: bool) -> PyResult<()> {
    if released_gil {
        released(py, || -> Res<()> { panic!("a test panic without the GIL") })
    } else {
        held(|| -> Res<()> { panic!("a test panic") })
    }
}

/// The extension module.
#[pymodule]
fn _qibase(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tablebase::games, m)?)?;
    m.add_function(wrap_pyfunction!(tablebase::open_tablebase, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_class::<Game>()?;
    m.add_class::<Value>()?;
    m.add_class::<GameEnd>()?;
    m.add_class::<MoveValue>()?;
    m.add_class::<TierInfo>()?;
    m.add_class::<Tablebase>()?;
    Ok(())
}
