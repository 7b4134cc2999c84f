//! One cache of decoded blocks for the whole process, shared by every open
//! tier file and every thread, sized by the machine's memory.
//!
//! It is split into shards (one mutex each), each a small 4-way
//! set-associative table of block-sized slots. All of it lives in one
//! anonymous memory mapping, so memory the process never touches costs
//! nothing, and touched memory arrives zeroed from the kernel: a short
//! `query` pays for the few sets it uses, not for the budget. (Allocating
//! each shard's tables from the heap on first use, as before, zeroed
//! 50 KiB per shard touched at the default budget: 2,300 of the 3,400
//! page faults of a two-cannons query, more than half its time.)
//!
//! Admission: a block is decoded whole and cached only on its
//! [`ADMIT_ON_MISS`]th miss while it is remembered as seen; the misses
//! before only decode up to the wanted slot (an eighth of a block's WDL
//! symbols on average, and one slot's Rice code). A whole block costs
//! about ten such lookups, so it is only worth caching once
//! it has shown it is hot: uniform random probes over a table much larger
//! than the cache pay almost no whole-block decodes, while repeated
//! probes (a principal variation, a search, a server) soon hit. (On the
//! second miss, as before, a 248 MiB cache over the 72 MB cannon-chess
//! table decoded so many whole blocks that cold lookups took twice as
//! long as with a 4 MiB cache.)

use std::sync::{Mutex, OnceLock};

use memmap2::{MmapOptions, MmapRaw};

use crate::value::Packed;

/// Slots of one block in the cache (larger blocks are never cached).
pub const SLOT_VALUES: usize = super::file::writer::DEFAULT_BLOCK_SIZE as usize;
const SHARDS: usize = 1024;

static GLOBAL: OnceLock<BlockCache> = OnceLock::new();

/// Blocks per set: a block may sit in any way of its set, so a few hot
/// blocks that hash alike do not evict each other (with one way, two hot
/// blocks in one slot missed on every lookup).
const WAYS: usize = 4;

/// The miss on which a block is admitted (see the module comment).
pub const ADMIT_ON_MISS: u8 = 3;

/// The bookkeeping of one set, next to its neighbours in the mapping.
/// All zero is a valid empty set.
#[repr(C)]
struct SetMeta {
    /// Block key held by each way (0: empty).
    tags: [u64; WAYS],
    /// Keys that missed in the set, not yet admitted.
    seen: [u64; WAYS],
    /// How often each `seen` key has missed.
    misses: [u8; WAYS],
    /// The way the next admission replaces (round robin).
    next: u8,
}

/// The cache of decoded blocks (see the module comment): shards of 4-way
/// sets of whole blocks' packed values, in one anonymous mapping, keyed by
/// (tier file, block). One for the process ([`BlockCache::global`]).
pub struct BlockCache {
    /// Each shard's mutex guards its sets' metadata and values.
    shards: Vec<Mutex<()>>,
    sets_per_shard: usize,
    /// `SHARDS * sets_per_shard` [`SetMeta`] entries, then the values of
    /// every set (`WAYS * SLOT_VALUES` each); `None` if nothing could be
    /// mapped (then every lookup passes).
    mem: Option<MmapRaw>,
    /// Byte offset of the values in `mem`.
    values_at: usize,
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
    let total = crate::sys::memory::meminfo().map_or(8 << 30, |m| m.total as usize);
    (total / 8).max(64 << 20)
}

impl BlockCache {
    /// A cache of about `bytes` of blocks (at least one set a shard); if
    /// no memory can be mapped, a cache that caches nothing.
    pub fn new(bytes: usize) -> BlockCache {
        let per_slot = SLOT_VALUES * std::mem::size_of::<Packed>() + 18;
        let slots = (bytes / per_slot).max(SHARDS * WAYS);
        let mut sets_per_shard = slots / (SHARDS * WAYS);
        // Reserve address space only (no swap reservation): pages are
        // committed when first touched. If even that fails, try smaller.
        loop {
            let sets = SHARDS * sets_per_shard;
            let values_at = (sets * std::mem::size_of::<SetMeta>()).next_multiple_of(64);
            let len = values_at + sets * WAYS * SLOT_VALUES * std::mem::size_of::<Packed>();
            if let Ok(m) = MmapOptions::new().len(len).no_reserve_swap().map_anon() {
                return BlockCache {
                    shards: (0..SHARDS).map(|_| Mutex::new(())).collect(),
                    sets_per_shard,
                    mem: Some(MmapRaw::from(m)),
                    values_at,
                };
            }
            if sets_per_shard == 1 {
                return BlockCache {
                    shards: (0..SHARDS).map(|_| Mutex::new(())).collect(),
                    sets_per_shard,
                    mem: None,
                    values_at: 0,
                };
            }
            sets_per_shard /= 2;
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

    /// Bytes of block values the cache can hold (0 if it caches nothing).
    pub fn capacity_bytes(&self) -> usize {
        if self.mem.is_none() {
            return 0;
        }
        SHARDS * self.sets_per_shard * WAYS * SLOT_VALUES * std::mem::size_of::<Packed>()
    }

    /// The set of block `key`.
    #[inline]
    fn set_of(&self, key: u64) -> (usize, usize) {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let shard = (h >> 54) as usize % SHARDS;
        let set = shard * self.sets_per_shard + (h >> 20) as usize % self.sets_per_shard;
        (shard, set)
    }

    /// Start loading the bookkeeping of block `key`'s set, so that a
    /// lookup's other memory accesses can overlap with it.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        if let Some(mem) = &self.mem {
            let (shard, set) = self.set_of(key);
            let base = mem.as_mut_ptr();
            // Only an address inside the mapping (which holds every set's
            // metadata) is computed; nothing is read through it here.
            crate::prefetch::prefetch(base.wrapping_add(set * std::mem::size_of::<SetMeta>()));
            crate::prefetch::prefetch(&self.shards[shard]);
        }
    }

    /// Look up slot `off` of block `key` (never 0);
    /// `decode` fills the block's `len` values when the block is admitted.
    ///
    /// # Errors
    ///
    /// `decode`'s error, when it fails (nothing is cached then).
    #[inline]
    pub fn get<E>(
        &self,
        key: u64,
        off: usize,
        len: usize,
        decode: impl FnOnce(&mut [Packed]) -> Result<(), E>,
    ) -> Result<Lookup, E> {
        self.get_admitting(key, off, len, ADMIT_ON_MISS, decode)
    }

    /// [`get`](Self::get), admitting the block on its `admit_on`th miss
    /// instead: for blocks whose whole decode costs more lookups' worth
    /// than a fast-format block's.
    ///
    /// # Errors
    ///
    /// `decode`'s error, when it fails (nothing is cached then).
    #[inline]
    // The set is reached through the shared mapping under its shard's
    // lock: an audited exception to the workspace's `unsafe` rule.
    #[allow(unsafe_code)]
    pub fn get_admitting<E>(
        &self,
        key: u64,
        off: usize,
        len: usize,
        admit_on: u8,
        decode: impl FnOnce(&mut [Packed]) -> Result<(), E>,
    ) -> Result<Lookup, E> {
        if len > SLOT_VALUES {
            return Ok(Lookup::Pass);
        }
        let Some(mem) = &self.mem else {
            return Ok(Lookup::Pass);
        };
        let (shard, set) = self.set_of(key);
        let _guard = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        let base = mem.as_mut_ptr();
        // SAFETY: `set` belongs to `shard`, whose mutex we hold, so no
        // other reference to its metadata or values exists; both lie
        // inside the mapping (sized for every set in `new`), which lives
        // as long as `self`; the mapping is page aligned and `values_at`
        // a multiple of 64, so both are aligned; all-zero bytes (a fresh
        // mapping) are a valid `SetMeta` and valid values.
        let (s, values) = unsafe {
            let meta = &mut *(base as *mut SetMeta).add(set);
            let values = std::slice::from_raw_parts_mut(
                (base.add(self.values_at) as *mut Packed).add(set * WAYS * SLOT_VALUES),
                WAYS * SLOT_VALUES,
            );
            (meta, values)
        };
        if let Some(w) = s.tags.iter().position(|&t| t == key) {
            return Ok(Lookup::Hit(values[w * SLOT_VALUES + off]));
        }
        let Some(k) = s.seen.iter().position(|&t| t == key) else {
            // First miss: remember it in the set's oldest seen entry.
            s.seen.rotate_right(1);
            s.seen[0] = key;
            s.misses.rotate_right(1);
            s.misses[0] = 1;
            return Ok(Lookup::Pass);
        };
        s.misses[k] = s.misses[k].saturating_add(1);
        if s.misses[k] < admit_on {
            return Ok(Lookup::Pass);
        }
        let w = s.next as usize % WAYS;
        s.next = ((w + 1) % WAYS) as u8;
        s.tags[w] = 0;
        let vals = &mut values[w * SLOT_VALUES..w * SLOT_VALUES + len];
        // A failed decode leaves the key seen (the next miss tries again)
        // and the way empty.
        decode(vals)?;
        let v = vals[off];
        s.tags[w] = key;
        s.seen[k] = 0;
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
                *x = Packed::from_bits(i as u16 + 1);
            }
            Ok(())
        };
        let never = |_: &mut [Packed]| -> Result<(), ()> { panic!("decoded a block too early") };
        for _ in 1..ADMIT_ON_MISS {
            assert!(matches!(c.get(7, 3, 10, never), Ok(Lookup::Pass)));
        }
        assert!(matches!(c.get(7, 3, 10, fill), Ok(Lookup::Hit(v)) if v == Packed::from_bits(4)));
        let never = |_: &mut [Packed]| -> Result<(), ()> { panic!("decoded a cached block") };
        assert!(matches!(c.get(7, 9, 10, never), Ok(Lookup::Hit(v)) if v == Packed::from_bits(10)));
        // A failed decode leaves nothing cached, and the next miss tries again.
        let fail = |_: &mut [Packed]| -> Result<(), ()> { Err(()) };
        for _ in 1..ADMIT_ON_MISS {
            assert!(matches!(c.get(8, 0, 10, fail), Ok(Lookup::Pass)));
        }
        assert!(c.get(8, 0, 10, fail).is_err());
        assert!(matches!(c.get(8, 0, 10, fill), Ok(Lookup::Hit(v)) if v == Packed::from_bits(1)));
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
            v.fill(Packed::from_bits(9));
            Ok(())
        };
        for _ in 1..ADMIT_ON_MISS {
            for &k in &keys {
                assert!(matches!(c.get(k, 0, 10, fill), Ok(Lookup::Pass)));
            }
        }
        for &k in &keys {
            assert!(
                matches!(c.get(k, 0, 10, fill), Ok(Lookup::Hit(v)) if v == Packed::from_bits(9))
            );
        }
        let never = |_: &mut [Packed]| -> Result<(), ()> { panic!("decoded a cached block") };
        for &k in &keys {
            assert!(
                matches!(c.get(k, 1, 10, never), Ok(Lookup::Hit(v)) if v == Packed::from_bits(9))
            );
        }
    }
}
