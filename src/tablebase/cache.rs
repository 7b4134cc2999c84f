//! One cache of decoded blocks for the whole process, shared by every open
//! tier file and every thread, sized by the machine's memory.
//!
//! It is split into shards (one mutex each), each a small 4-way
//! set-associative table of block-sized slots; a shard's memory is
//! allocated when it is first used, so a short `query` pays nothing for a
//! large cache.
//!
//! Admission: a block is decoded whole and cached only on its
//! [`ADMIT_ON_MISS`]th miss while it is remembered as seen; the misses
//! before only decode up to the wanted slot (an eighth of a block's WDL
//! symbols and a quarter of its remoteness on average, format 4). A whole
//! block costs about ten such lookups, so it is only worth caching once
//! it has shown it is hot: uniform random probes over a table much larger
//! than the cache pay almost no whole-block decodes, while repeated
//! probes (a principal variation, a search, a server) soon hit. (On the
//! second miss, as before, a 248 MiB cache over the 72 MB cannon-chess
//! table decoded so many whole blocks that cold lookups took twice as
//! long as with a 4 MiB cache.)

use std::sync::{Mutex, OnceLock};

use crate::value::Packed;

/// Slots of one block in the cache (larger blocks are never cached).
pub const SLOT_VALUES: usize = super::writer::DEFAULT_BLOCK_SIZE as usize;
const SHARDS: usize = 1024;

static GLOBAL: OnceLock<BlockCache> = OnceLock::new();

/// Blocks per set: a block may sit in any way of its set, so a few hot
/// blocks that hash alike do not evict each other (with one way, two hot
/// blocks in one slot missed on every lookup).
const WAYS: usize = 4;

/// The miss on which a block is admitted (see the module comment).
pub const ADMIT_ON_MISS: u8 = 3;

struct Shard {
    /// Block key held by each slot (0: empty), set by set.
    tags: Vec<u64>,
    /// Keys that missed in each set, not yet admitted.
    seen: Vec<u64>,
    /// How often each `seen` key has missed.
    misses: Vec<u8>,
    /// Per set: the way the next admission replaces (round robin).
    next: Vec<u8>,
    values: Vec<Packed>,
}

pub struct BlockCache {
    shards: Vec<Mutex<Option<Shard>>>,
    sets_per_shard: usize,
}

/// What a lookup found.
pub enum Lookup {
    /// The value in the cached block.
    Hit(Packed),
    /// Not cached and not worth caching yet: decode only up to the slot.
    Pass,
}

/// Cache budget: `QIBASE_CACHE_MB` if set, otherwise an eighth of the
/// machine's memory (at least 64 MiB).
pub fn budget_bytes() -> usize {
    if let Some(mb) = std::env::var("QIBASE_CACHE_MB")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
    {
        return mb << 20;
    }
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<usize>().ok())
        })
        .map(|kb| kb << 10)
        .unwrap_or(8 << 30);
    (total / 8).max(64 << 20)
}

impl BlockCache {
    pub fn new(bytes: usize) -> BlockCache {
        let per_slot = SLOT_VALUES * std::mem::size_of::<Packed>() + 18;
        let slots = (bytes / per_slot).max(SHARDS * WAYS);
        BlockCache {
            shards: (0..SHARDS).map(|_| Mutex::new(None)).collect(),
            sets_per_shard: slots / (SHARDS * WAYS),
        }
    }

    /// The process-wide cache.
    pub fn global() -> &'static BlockCache {
        GLOBAL.get_or_init(|| BlockCache::new(budget_bytes()))
    }

    /// Size the process-wide cache before its first use (a benchmark's
    /// choice); `false` if it is already in use.
    pub fn configure(bytes: usize) -> bool {
        GLOBAL.set(BlockCache::new(bytes)).is_ok()
    }

    pub fn capacity_bytes(&self) -> usize {
        SHARDS * self.sets_per_shard * WAYS * SLOT_VALUES * std::mem::size_of::<Packed>()
    }

    /// Look up slot `off` of block `key` (never 0);
    /// `decode` fills the block's `len` values when the block is admitted.
    #[inline]
    pub fn get<E>(
        &self,
        key: u64,
        off: usize,
        len: usize,
        decode: impl FnOnce(&mut [Packed]) -> Result<(), E>,
    ) -> Result<Lookup, E> {
        if len > SLOT_VALUES {
            return Ok(Lookup::Pass);
        }
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let shard = &self.shards[(h >> 54) as usize % SHARDS];
        let set = (h >> 20) as usize % self.sets_per_shard;
        let ways = set * WAYS..(set + 1) * WAYS;
        let mut g = shard.lock().unwrap_or_else(|e| e.into_inner());
        let s = g.get_or_insert_with(|| Shard {
            tags: vec![0; self.sets_per_shard * WAYS],
            seen: vec![0; self.sets_per_shard * WAYS],
            misses: vec![0; self.sets_per_shard * WAYS],
            next: vec![0; self.sets_per_shard],
            values: vec![0; self.sets_per_shard * WAYS * SLOT_VALUES],
        });
        if let Some(w) = s.tags[ways.clone()].iter().position(|&t| t == key) {
            let slot = set * WAYS + w;
            return Ok(Lookup::Hit(s.values[slot * SLOT_VALUES + off]));
        }
        let seen = &mut s.seen[ways.clone()];
        let Some(k) = seen.iter().position(|&t| t == key) else {
            // First miss: remember it in the set's oldest seen entry.
            seen.rotate_right(1);
            seen[0] = key;
            let misses = &mut s.misses[ways.clone()];
            misses.rotate_right(1);
            misses[0] = 1;
            return Ok(Lookup::Pass);
        };
        let misses = &mut s.misses[set * WAYS + k];
        *misses = misses.saturating_add(1);
        if *misses < ADMIT_ON_MISS {
            return Ok(Lookup::Pass);
        }
        let w = s.next[set] as usize % WAYS;
        s.next[set] = ((w + 1) % WAYS) as u8;
        let slot = set * WAYS + w;
        s.tags[slot] = 0;
        let vals = &mut s.values[slot * SLOT_VALUES..slot * SLOT_VALUES + len];
        // A failed decode leaves the key seen (the next miss tries again)
        // and the slot empty.
        decode(vals)?;
        let v = vals[off];
        s.tags[slot] = key;
        s.seen[set * WAYS + k] = 0;
        Ok(Lookup::Hit(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn third_miss_admits_and_hits_follow() {
        let c = BlockCache::new(1 << 20);
        let fill = |v: &mut [Packed]| -> Result<(), ()> {
            for (i, x) in v.iter_mut().enumerate() {
                *x = i as Packed + 1;
            }
            Ok(())
        };
        let never = |_: &mut [Packed]| -> Result<(), ()> { panic!("decoded a block too early") };
        for _ in 1..ADMIT_ON_MISS {
            assert!(matches!(c.get(7, 3, 10, never), Ok(Lookup::Pass)));
        }
        assert!(matches!(c.get(7, 3, 10, fill), Ok(Lookup::Hit(4))));
        let never = |_: &mut [Packed]| -> Result<(), ()> { panic!("decoded a cached block") };
        assert!(matches!(c.get(7, 9, 10, never), Ok(Lookup::Hit(10))));
        // A failed decode leaves nothing cached, and the next miss tries again.
        let fail = |_: &mut [Packed]| -> Result<(), ()> { Err(()) };
        for _ in 1..ADMIT_ON_MISS {
            assert!(matches!(c.get(8, 0, 10, fail), Ok(Lookup::Pass)));
        }
        assert!(c.get(8, 0, 10, fail).is_err());
        assert!(matches!(c.get(8, 0, 10, fill), Ok(Lookup::Hit(1))));
        assert!(matches!(
            c.get(8, 0, SLOT_VALUES + 1, fill),
            Ok(Lookup::Pass)
        ));
    }

    #[test]
    fn blocks_of_one_set_do_not_evict_each_other() {
        // The smallest cache has one set per shard: keys that land in the
        // same shard share it. Up to WAYS of them stay cached together.
        let c = BlockCache::new(0);
        assert_eq!(c.sets_per_shard, 1);
        let shard_of = |k: u64| (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize % SHARDS;
        let keys: Vec<u64> = (1u64..)
            .filter(|&k| shard_of(k) == shard_of(1))
            .take(WAYS)
            .collect();
        let fill = |v: &mut [Packed]| -> Result<(), ()> {
            v.fill(9);
            Ok(())
        };
        for _ in 1..ADMIT_ON_MISS {
            for &k in &keys {
                assert!(matches!(c.get(k, 0, 10, fill), Ok(Lookup::Pass)));
            }
        }
        for &k in &keys {
            assert!(matches!(c.get(k, 0, 10, fill), Ok(Lookup::Hit(9))));
        }
        let never = |_: &mut [Packed]| -> Result<(), ()> { panic!("decoded a cached block") };
        for &k in &keys {
            assert!(matches!(c.get(k, 1, 10, never), Ok(Lookup::Hit(9))));
        }
    }
}
