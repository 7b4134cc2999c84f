//! `qibase.solve`: a solve with its progress reported to a Python callback.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{guarded, panic_message, released, Failure, Res};
use crate::game::game_arg;
use qibase::games::AnyGame;
use qibase::solver::{SolveObserver, SolveOptions, TierReport};
use qibase::{with_game, Tiers};

/// Tells the Python callback about each tier, and stops the solve when
/// Python asks (Ctrl-C, or an exception raised by the callback).
pub(crate) struct PyObserver {
    pub(crate) progress: Option<Py<PyAny>>,
    pub(crate) tiers: usize,
    pub(crate) started: AtomicUsize,
    pub(crate) stop: AtomicBool,
    pub(crate) error: Mutex<Option<PyErr>>,
}

impl PyObserver {
    fn fail(&self, e: PyErr) {
        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        self.stop.store(true, Ordering::Release);
    }

    fn call(&self, make: impl FnOnce(Python<'_>) -> PyResult<Bound<'_, PyDict>>) {
        let Some(cb) = &self.progress else { return };
        if self.stop.load(Ordering::Acquire) {
            return;
        }
        Python::attach(|py| {
            if let Err(e) = make(py).and_then(|d| cb.call1(py, (d,))) {
                self.fail(e);
            }
        });
    }
}

impl SolveObserver for PyObserver {
    fn tier_started(&self, name: &str, slots: u64) {
        let index = self.started.fetch_add(1, Ordering::AcqRel);
        self.call(|py| {
            let d = PyDict::new(py);
            d.set_item("event", "started")?;
            d.set_item("tier", name)?;
            d.set_item("slots", slots)?;
            d.set_item("index", index)?;
            d.set_item("tiers", self.tiers)?;
            Ok(d)
        });
    }

    fn tier_solved(&self, r: &TierReport) {
        let index = self.started.load(Ordering::Acquire).saturating_sub(1);
        self.call(|py| {
            let d = PyDict::new(py);
            d.set_item("event", "solved")?;
            d.set_item("tier", &r.name)?;
            d.set_item("slots", r.slots)?;
            d.set_item("index", index)?;
            d.set_item("tiers", self.tiers)?;
            d.set_item("seconds", r.stats.seconds)?;
            d.set_item("wins", r.stats.wins)?;
            d.set_item("losses", r.stats.losses)?;
            d.set_item("draws", r.stats.draws)?;
            Ok(d)
        });
    }

    fn should_stop(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }
}

pub(crate) fn report_dict<'py>(py: Python<'py>, r: &TierReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("tier", &r.name)?;
    d.set_item("key", r.tier)?;
    d.set_item("slots", r.slots)?;
    d.set_item("positions", r.positions)?;
    d.set_item("skipped", r.skipped)?;
    d.set_item("seconds", r.stats.seconds)?;
    d.set_item("wins", r.stats.wins)?;
    d.set_item("losses", r.stats.losses)?;
    d.set_item("draws", r.stats.draws)?;
    d.set_item("max_win", r.stats.max_win)?;
    d.set_item("max_loss", r.stats.max_loss)?;
    d.set_item("windows", r.windows)?;
    Ok(d)
}

pub(crate) fn solve_any(game: &'static AnyGame, opts: &SolveOptions) -> Res<Vec<TierReport>> {
    game.solve(opts).map_err(Failure::Solve)
}

/// Solve `variant` into `directory` (as `qibase solve`): one file per
/// tier, finished tiers skipped, so an interrupted solve resumes. Runs
/// without the GIL (other Python threads go on). `max_pieces` solves the
/// closed subset with at most that many pieces a side; `threads` the
/// number of solver threads (default: all cores). `progress(event)` is
/// called with a dict per tier (`event` `"started"` or `"solved"`,
/// `tier`, `slots`, `index`, `tiers`, and for `"solved"` `seconds`,
/// `wins`, `losses`, `draws`). Ctrl-C (`KeyboardInterrupt`) or an
/// exception from the callback stops the solve within moments: the tier
/// being solved is given up, the finished ones stay on disk, and a later
/// solve resumes. `memory` bounds the bytes the solve holds: tiers that
/// do not fit are solved out of core, to the same tables. Returns one
/// dict per tier.
#[pyfunction]
#[pyo3(signature = (variant, directory, max_pieces=None, threads=None, progress=None, memory=None))]
pub(crate) fn solve<'py>(
    py: Python<'py>,
    variant: &Bound<'py, PyAny>,
    directory: PathBuf,
    max_pieces: Option<u32>,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
    memory: Option<u64>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let game = game_arg(variant)?;
    if let Some(cb) = &progress {
        if !cb.bind(py).is_callable() {
            return Err(PyTypeError::new_err("progress must be callable"));
        }
    }
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    if memory == Some(0) {
        return Err(PyValueError::new_err("memory must be at least 1 byte"));
    }
    let tiers = with_game!(game, |g| g.tiers(max_pieces).len());
    let obs = PyObserver {
        progress,
        tiers,
        started: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        error: Mutex::new(None),
    };
    let opts = SolveOptions {
        max_pieces,
        memory,
        observer: &obs,
        ..SolveOptions::new(&directory)
    };
    let result = released(py, || {
        let pool = match threads {
            Some(n) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| Failure::Other(e.to_string()))?,
            ),
            None => None,
        };
        // The solve runs on its own thread; this one waits, checking for
        // Ctrl-C (Python runs signal handlers on the main thread only).
        std::thread::scope(|s| {
            let worker = s.spawn(|| {
                guarded(|| match &pool {
                    Some(p) => p.install(|| solve_any(game, &opts)),
                    None => solve_any(game, &opts),
                })
            });
            while !worker.is_finished() {
                std::thread::sleep(Duration::from_millis(20));
                if !obs.stop.load(Ordering::Acquire) {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        obs.fail(e);
                    }
                }
            }
            worker
                .join()
                .unwrap_or_else(|p| Err(Failure::Panic(panic_message(p))))
        })
    });
    // A callback's exception or Ctrl-C wins over the `Stopped` it caused.
    if let Some(e) = obs.error.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(e);
    }
    let reports = result?;
    reports.iter().map(|r| report_dict(py, r)).collect()
}
