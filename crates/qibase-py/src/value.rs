//! Values, game ends, move values and tier summaries as Python objects.

use pyo3::basic::CompareOp;
use pyo3::prelude::*;

use crate::errors::exception;
use qibase::analysis::MoveInfo;
use qibase::{Game as RsGame, TierKey, Value as RsValue};

/// An exact value for the side to move: `wdl` is 1 (win), 0 (draw) or -1
/// (loss); `remoteness` the plies to the end with perfect play, `None` for
/// a draw. `str(v)` is `"win 7"`, `"draw"` or `"loss 12"`.
#[pyclass(frozen, module = "qibase")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Value {
    pub(crate) v: RsValue,
}

impl Value {
    pub(crate) fn of(v: RsValue) -> Value {
        Value { v }
    }
}

pub(crate) fn wdl_int(v: RsValue) -> i8 {
    match v {
        RsValue::Win(_) => 1,
        RsValue::Draw => 0,
        RsValue::Loss(_) => -1,
    }
}

#[pymethods]
impl Value {
    /// The value from its text (`"win 7"`, `"draw"`, `"loss 0"`).
    #[new]
    fn new(text: &str) -> PyResult<Value> {
        text.parse::<RsValue>()
            .map(Value::of)
            .map_err(|e| exception("ParseError", e.to_string(), None))
    }

    /// 1 for a win, 0 for a draw, -1 for a loss.
    #[getter]
    fn wdl(&self) -> i8 {
        wdl_int(self.v)
    }

    /// Plies to the end with perfect play; `None` for a draw.
    #[getter]
    fn remoteness(&self) -> Option<u16> {
        self.v.remoteness()
    }

    /// `"win"`, `"draw"` or `"loss"`.
    #[getter]
    fn category(&self) -> &'static str {
        match self.v {
            RsValue::Win(_) => "win",
            RsValue::Draw => "draw",
            RsValue::Loss(_) => "loss",
        }
    }

    /// Values compare as outcomes for the side to move: a faster win is
    /// better than a slower one, a draw better than any loss, a slower loss
    /// better than a faster one.
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> Py<PyAny> {
        let py = other.py();
        let Ok(other) = other.extract::<PyRef<'_, Value>>() else {
            return py.NotImplemented();
        };
        op.matches(self.v.cmp(&other.v))
            .into_pyobject(py)
            .map_or_else(|_| py.None(), |b| b.to_owned().into_any().unbind())
    }

    fn __hash__(&self) -> u64 {
        u64::from(self.v.pack().to_bits())
    }

    fn __str__(&self) -> String {
        self.v.to_string()
    }

    fn __repr__(&self) -> String {
        format!("qibase.Value({:?})", self.v.to_string())
    }
}

/// How a game ends: the value for the side to move and why.
#[pyclass(frozen, get_all, module = "qibase")]
#[derive(Clone)]
pub(crate) struct GameEnd {
    /// The value for the side to move.
    pub(crate) value: Value,
    /// Why the game is over, in words.
    pub(crate) reason: String,
}

#[pymethods]
impl GameEnd {
    fn __repr__(&self) -> String {
        format!(
            "qibase.GameEnd(value={}, reason={:?})",
            self.value.v, self.reason
        )
    }
}

/// One legal move with its exact value.
#[pyclass(frozen, get_all, module = "qibase")]
#[derive(Clone)]
pub(crate) struct MoveValue {
    /// The move in the game's notation.
    r#move: String,
    /// The position after the move.
    pub(crate) position: String,
    /// The move's value from the mover's view (counting the move itself).
    pub(crate) value: Value,
}

#[pymethods]
impl MoveValue {
    fn __repr__(&self) -> String {
        format!(
            "qibase.MoveValue(move={:?}, value={}, position={:?})",
            self.r#move, self.value.v, self.position
        )
    }
}

pub(crate) fn move_value<G: RsGame>(g: &G, m: &MoveInfo<G>) -> MoveValue {
    MoveValue {
        r#move: m.text.clone(),
        position: g.format_pos(&m.after),
        value: Value::of(m.value),
    }
}

/// One tier of a game in a tablebase directory.
#[pyclass(frozen, get_all, module = "qibase")]
#[derive(Clone)]
pub(crate) struct TierInfo {
    /// The tier's key (what `tier_values` and `position_of` take).
    pub(crate) key: TierKey,
    /// The tier's name, also its file name (`3v2`).
    pub(crate) name: String,
    /// Index slots (the length of `tier_values`' arrays).
    pub(crate) slots: u64,
    /// Used slots (positions up to symmetry) as the file's header says;
    /// `None` if the tier is not solved.
    pub(crate) used: Option<u64>,
    /// Whether the tier's file is there (and readable).
    pub(crate) solved: bool,
    /// The most pieces of one side in the tier (soldiers, for the cannon games).
    pub(crate) max_pieces: u32,
}

#[pymethods]
impl TierInfo {
    fn __repr__(&self) -> String {
        format!(
            "qibase.TierInfo(key={}, name={:?}, slots={}, used={}, solved={})",
            self.key,
            self.name,
            self.slots,
            self.used.map_or("None".to_string(), |u| u.to_string()),
            if self.solved { "True" } else { "False" }
        )
    }
}
