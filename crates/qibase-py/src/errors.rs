//! Library failures as the package's Python exceptions, and the guards
//! that keep Rust panics from crossing into Python.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use pyo3::prelude::*;

use qibase::analysis::LookupError;
use qibase::games::SpecError;
use qibase::solver::SolveError;
use qibase::tablebase::lock::LockError;
use qibase::tablebase::{Mismatch, Missing, TbError, LAST_CONVERT_COMMIT};
use qibase::ParseError;

/// A failure on the Rust side, converted to a Python exception once the GIL
/// is held again.
pub(crate) enum Failure {
    Parse(ParseError),
    Spec(SpecError),
    Tb(TbError),
    Lookup(LookupError),
    Solve(SolveError),
    /// A Python exception already made (e.g. raised by a callback).
    Py(PyErr),
    /// `qibase.Error` with a message.
    Other(String),
    /// A Rust panic.
    Panic(String),
}

impl From<ParseError> for Failure {
    fn from(e: ParseError) -> Self {
        Failure::Parse(e)
    }
}
impl From<SpecError> for Failure {
    fn from(e: SpecError) -> Self {
        Failure::Spec(e)
    }
}
impl From<TbError> for Failure {
    fn from(e: TbError) -> Self {
        Failure::Tb(e)
    }
}
impl From<LookupError> for Failure {
    fn from(e: LookupError) -> Self {
        Failure::Lookup(e)
    }
}
impl From<PyErr> for Failure {
    fn from(e: PyErr) -> Self {
        Failure::Py(e)
    }
}

/// An instance of the exception class `name` of `qibase._errors`, made
/// with `(message, path)`.
pub(crate) fn exception(name: &str, message: String, path: Option<PathBuf>) -> PyErr {
    Python::attach(|py| {
        let class = match py.import("qibase._errors").and_then(|m| m.getattr(name)) {
            Ok(c) => c,
            Err(e) => return e,
        };
        let path = path.map(|p| p.display().to_string());
        match class.call1((message, path)) {
            Ok(obj) => PyErr::from_value(obj),
            Err(e) => e,
        }
    })
}

pub(crate) fn tb_exception(e: &TbError) -> PyErr {
    let path = Some(e.path().to_path_buf());
    let message = words(e);
    match e {
        TbError::NotSolved { .. } => exception("MissingTableError", message, path),
        TbError::Corrupt { .. } | TbError::Foreign { .. } | TbError::Version { .. } => {
            exception("CorruptTableError", message, path)
        }
        TbError::Io { .. } => exception("TablebaseIOError", message, path),
    }
}

/// A tablebase error's message: the library's line, with the way out.
/// Tables are made by the `qibase` command, so the way out names its
/// commands, in the words the command itself uses.
fn words(e: &TbError) -> String {
    match e {
        TbError::NotSolved {
            path,
            dir,
            game,
            missing,
        } => {
            let cmd = match missing {
                Missing::Tier { max_pieces, .. } => {
                    let mut cmd = format!("qibase solve {game}");
                    if let Some(n) = max_pieces {
                        cmd += &format!(" --max-pieces {n}");
                    }
                    if dir != Path::new("tablebases") {
                        cmd += &format!(" --dir {}", dir.display());
                    }
                    cmd
                }
                Missing::Compact { .. } => format!("qibase pack {game}"),
                Missing::NoTier { .. } => format!("qibase solve {game}"),
            };
            format!(
                "{}: {} is not solved (no such file; `{cmd}` makes it)",
                path.display(),
                missing.describe(game)
            )
        }
        TbError::Foreign {
            mismatch: Mismatch::Rules { .. },
            compact: false,
            ..
        } => format!("{e}: solve again"),
        TbError::Foreign {
            mismatch: Mismatch::Positions { .. },
            compact: false,
            ..
        } => format!("{e}, solve again"),
        TbError::Foreign {
            path,
            mismatch: Mismatch::CompactOnly,
            ..
        } => format!(
            "{}: tier in the compact format: `qibase unpack` it for slot access",
            path.display()
        ),
        TbError::Version {
            game,
            compact: true,
            ..
        } => format!("{e}: pack it again from the fast tables with `qibase pack {game}`"),
        TbError::Version { game, found, .. } => {
            let mut s = format!("{e}: solve it again with `qibase solve {game}`");
            if (2..5).contains(found) {
                s += &format!(
                    ", or convert it with `qibase convert {game}` as of qibase commit \
                     {LAST_CONVERT_COMMIT} (the last that reads formats 2 to 4)"
                );
            }
            s
        }
        TbError::Io { .. } | TbError::Corrupt { .. } | TbError::Foreign { .. } => e.to_string(),
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::Parse(e) => match e {
                ParseError::IllegalPosition { .. } => {
                    exception("IllegalPosition", e.to_string(), None)
                }
                _ => exception("ParseError", e.to_string(), None),
            },
            Failure::Spec(e) => exception("UnknownGame", e.to_string(), None),
            Failure::Tb(e) => tb_exception(&e),
            Failure::Lookup(LookupError::Tablebase(e)) => tb_exception(&e),
            Failure::Lookup(e @ LookupError::OutsideSubset { .. }) => {
                exception("MissingTableError", e.to_string(), None)
            }
            Failure::Lookup(e) => exception("Error", e.to_string(), None),
            Failure::Solve(SolveError::Tablebase(e)) => tb_exception(&e),
            Failure::Solve(SolveError::Locked(e)) => {
                let (class, dir) = match &e {
                    LockError::Locked { dir, .. } => ("DirectoryLocked", dir),
                    LockError::Io { dir, .. } => ("TablebaseIOError", dir),
                };
                exception(class, e.to_string(), Some(dir.clone()))
            }
            Failure::Solve(e) => exception("Error", e.to_string(), None),
            Failure::Py(e) => e,
            Failure::Other(s) => exception("Error", s, None),
            Failure::Panic(s) => exception("InternalError", format!("internal error: {s}"), None),
        }
    }
}

pub(crate) type Res<T> = Result<T, Failure>;

pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a Rust panic".to_string()
    }
}

/// Run `f`, turning a panic into [`Failure::Panic`].
pub(crate) fn guarded<T>(f: impl FnOnce() -> Res<T>) -> Res<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(Failure::Panic(panic_message(p))))
}

/// Run `f` without the GIL, panics caught; the failure becomes a Python
/// exception once the GIL is back.
pub(crate) fn released<T: Send>(py: Python<'_>, f: impl FnOnce() -> Res<T> + Send) -> PyResult<T> {
    py.detach(|| guarded(f)).map_err(PyErr::from)
}

/// Run `f` with the GIL held, panics caught.
pub(crate) fn held<T>(f: impl FnOnce() -> Res<T>) -> PyResult<T> {
    guarded(f).map_err(PyErr::from)
}
