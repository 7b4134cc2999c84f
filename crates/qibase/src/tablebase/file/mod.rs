//! The file layer: a tier file's bytes on disk, not what the blocks mean
//! (that is [`super::codec`]).
//!
//! * [`header`] — the layout: preamble, header, block index, sections;
//! * [`checksum`] — the xxh3 checksums of the header, the index chunks
//!   and the blocks;
//! * [`writer`] — encoding a tier and writing it atomically;
//! * [`reader`] — [`TierFile`](reader::TierFile): positional reads of the
//!   header, the index chunks and the blocks, whole-tier decoding, probes.

pub mod checksum;
pub mod header;
pub mod reader;
pub mod writer;
