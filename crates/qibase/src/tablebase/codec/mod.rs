//! The block codec of format 5: how one block's values become its two
//! streams and back. Nothing here touches a file; the file layer
//! ([`super::file`]) hands it a block's bytes.
//!
//! * [`bits`] — bit-level reading and writing (the Rice codes' cursor);
//! * [`rans`] — the static-model rANS entropy coder (two lanes);
//! * [`rice`] — the remoteness stream of a part: Rice codes in segments;
//! * [`model`] — the tier's WDL context model (quads, nine contexts);
//! * [`block`] — a block cut in parts: encoding, whole and partial decoding.
//!
//! Every decoding failure is a [`CodecError`]; the file layer reports it as
//! a corrupt block of the file it read.

pub mod bits;
pub mod block;
pub mod model;
pub mod rans;
pub mod rice;

use std::fmt;

pub use block::PART;
pub use model::{ModelSpec, TierModel};

/// What is wrong with a block's streams or a tier's model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodecProblem {
    /// A stream ends before its symbols do.
    StreamShort,
    /// An rANS stream starts with a state no encoder makes.
    ImpossibleState,
    /// A complete decode did not end where the stream ends (bytes or bits
    /// left, a state not back at its start, padding bits not zero).
    StreamLong,
    /// A table of part ends is short or out of order.
    PartTable,
    /// A part stored as one WDL symbol holds no WDL symbol.
    ConstantSymbol,
    /// A Rice code's unary part is longer than [`rice::Q_MAX`].
    CodeTooLong,
    /// A remoteness larger than any value can have.
    RemotenessTooLarge,
    /// Wins or losses but no remoteness stream.
    MissingRemoteness,
    /// A remoteness stream for slots that are all draws.
    NeedlessRemoteness,
    /// The header's model has the wrong number of contexts or symbols.
    ModelShape,
    /// A model's frequencies do not sum to [`rans::PROB_SCALE`].
    ModelSum,
}

impl CodecProblem {
    fn describe(self) -> &'static str {
        match self {
            CodecProblem::StreamShort => "coded stream ends early",
            CodecProblem::ImpossibleState => "coded stream starts with an impossible state",
            CodecProblem::StreamLong => "coded stream does not end where its block ends",
            CodecProblem::PartTable => "table of part ends out of order or short",
            CodecProblem::ConstantSymbol => "constant part of an unknown WDL symbol",
            CodecProblem::CodeTooLong => "remoteness code too long",
            CodecProblem::RemotenessTooLarge => "remoteness too large",
            CodecProblem::MissingRemoteness => "win or loss without a remoteness stream",
            CodecProblem::NeedlessRemoteness => {
                "remoteness stream for slots without wins or losses"
            }
            CodecProblem::ModelShape => "model with the wrong number of contexts or symbols",
            CodecProblem::ModelSum => "model frequencies do not sum to 4096",
        }
    }
}

/// A decoding failure: what is wrong, and in which part of the block
/// (when it is known). The file layer turns it into a corrupt-file error
/// naming the file and the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodecError {
    /// What is wrong.
    pub problem: CodecProblem,
    /// The part of the block whose streams are wrong, if known.
    pub part: Option<usize>,
}

impl CodecError {
    /// The same problem, located in part `k` of its block.
    pub(crate) fn in_part(self, k: usize) -> CodecError {
        CodecError {
            part: Some(k),
            ..self
        }
    }
}

impl From<CodecProblem> for CodecError {
    fn from(problem: CodecProblem) -> Self {
        CodecError {
            problem,
            part: None,
        }
    }
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(k) = self.part {
            write!(f, "part {k}: ")?;
        }
        f.write_str(self.problem.describe())
    }
}

impl std::error::Error for CodecError {}
