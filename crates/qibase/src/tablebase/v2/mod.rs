//! Reading format 2 tier files (zstd blocks of frequency-ranked symbols,
//! qhash64 checksums), only so that `qibase convert` can rewrite them in
//! the current format without solving again. Nothing else reads them: an
//! old file is refused with a message naming `qibase convert`.

pub mod codec;
pub mod header;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::error::{err, TbError};
use super::{TierMeta, TierStats};
use crate::game::TierKey;
use crate::value::Packed;
use std::path::Path;

/// Format 2's solve statistics (postcard is positional: the exact old layout).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct TierStatsV2 {
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    pub unused: u64,
    pub max_win: u16,
    pub max_loss: u16,
    pub seconds: f64,
    pub threads: usize,
    pub peak_rss: u64,
}

/// Format 2's header metadata.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TierMeta2 {
    pub game: String,
    pub rules_hash: u64,
    pub tier: TierKey,
    pub tier_name: String,
    pub positions: u64,
    pub stats: TierStatsV2,
}

impl TierMeta2 {
    /// The current metadata (variant = the game id: format 2 knew no
    /// variants; the phase timings are unknown).
    pub fn upgrade(&self) -> TierMeta {
        let s = &self.stats;
        TierMeta {
            game: self.game.clone(),
            variant: self.game.clone(),
            rules_hash: self.rules_hash,
            tier: self.tier,
            tier_name: self.tier_name.clone(),
            positions: self.positions,
            stats: TierStats {
                wins: s.wins,
                losses: s.losses,
                draws: s.draws,
                unused: s.unused,
                max_win: s.max_win,
                max_loss: s.max_loss,
                seconds: s.seconds,
                threads: s.threads,
                peak_rss: s.peak_rss,
                ..Default::default()
            },
        }
    }
}

/// Decode a whole format 2 file (its bytes), checking every checksum.
pub fn read_all(path: &Path, bytes: &[u8]) -> Result<(TierMeta2, Vec<Packed>), TbError> {
    let layout = header::parse_layout(path, bytes)?;
    let h = &layout.header;
    let n = h.meta.positions as usize;
    let bs = h.block_size as usize;
    let mut out = vec![0 as Packed; n];
    out.par_chunks_mut(bs).enumerate().try_for_each_init(
        || codec::Coder::new(0),
        |c, (b, chunk)| {
            let data = &bytes[layout.block_range(b)];
            if header::qhash64(data) != layout.index[b].checksum {
                return Err(err(
                    path,
                    format!("corrupt block {b} (block checksum mismatch)"),
                ));
            }
            c.decode(h.encoding, data, &h.symbols, chunk)
                .map_err(|e| err(path, format!("corrupt block {b} ({e})")))
        },
    )?;
    Ok((h.meta.clone(), out))
}
