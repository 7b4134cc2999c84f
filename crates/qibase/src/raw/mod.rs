//! Raw scratch files of values, and the answering of batches of random
//! lookups in them block by block: what the out-of-core solve and the
//! out-of-core check of a tablebase both read lower tiers through.

mod array;
mod grouping;

pub(crate) use array::{create, RawArray};
pub(crate) use grouping::{answer_requests, Request};
