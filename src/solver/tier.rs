//! Solving one tier: counters of undecided successors, un-moves, and
//! propagation in increasing remoteness (a bucket per level).
//!
//! Per position the tier keeps a 16-bit packed value and an 8-bit counter;
//! both are atomics so that rayon threads can decide positions concurrently.
//! The *set* of positions decided at each level does not depend on the order
//! in which threads run, so the table is identical for any thread count.

use std::sync::atomic::{AtomicU16, AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::game::{Game, TierKey};
use crate::tablebase::TierStats;
use crate::value::{Packed, Value, UNDECIDED};

/// Counter value of a slot that holds no position (symmetry reduction).
const UNUSED: u8 = 0xFF;
/// Counter flag: the position has a lower-tier child that is a loss or a
/// draw, so it can never become a loss.
const NOT_A_LOSS: u8 = 0x80;
/// Counter bits that count undecided in-tier children.
const COUNT: u8 = 0x7F;

/// Positions handled per rayon task.
const CHUNK: usize = 1 << 12;

/// Progress events of [`solve_tier`].
#[derive(Clone, Copy, Debug)]
pub enum Progress {
    /// This many more positions went through the initial pass.
    Initial(u64),
    /// Level `.0` is done; `.1` positions have been propagated so far.
    Level(u16, u64),
}

/// The solved values of the tiers a tier depends on.
#[derive(Default)]
pub struct Lower<'a> {
    tiers: Vec<(TierKey, &'a [Packed])>,
}

impl<'a> Lower<'a> {
    pub fn new() -> Self {
        Lower { tiers: Vec::new() }
    }

    pub fn add(&mut self, t: TierKey, values: &'a [Packed]) {
        self.tiers.push((t, values));
    }

    /// The solved value of slot `i` of tier `t`; `None` if the tier is not
    /// loaded or the slot holds no value.
    #[inline]
    pub fn get(&self, t: TierKey, i: u64) -> Option<Value> {
        let table = self.tiers.iter().find(|(k, _)| *k == t)?.1;
        Value::unpack(*table.get(i as usize)?)
    }

    /// The solved value of slot `i` of tier `t`, which a dependency must have.
    #[inline]
    pub fn value(&self, t: TierKey, i: u64) -> Value {
        self.get(t, i).unwrap_or_else(|| {
            panic!("tier {t} slot {i} has no solved value (missing tier dependency)")
        })
    }
}

/// What one task of the initial pass or of a level found: positions to
/// enqueue, as `(level, index)`, decided now or only candidates.
#[derive(Default)]
struct Found {
    decided: Vec<(u16, u32)>,
    tentative: Vec<(u16, u32)>,
}

/// A per-level queue of positions.
#[derive(Default)]
struct Buckets {
    levels: Vec<Vec<u32>>,
}

impl Buckets {
    fn push_all(&mut self, items: &[(u16, u32)]) {
        for &(level, i) in items {
            let l = level as usize;
            if self.levels.len() <= l {
                self.levels.resize_with(l + 1, Vec::new);
            }
            self.levels[l].push(i);
        }
    }

    fn take(&mut self, level: usize) -> Vec<u32> {
        self.levels
            .get_mut(level)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn len(&self) -> usize {
        self.levels.len()
    }
}

/// View a zeroed `Vec<u16>` as atomics (identical layout, see `AtomicU16`'s docs).
fn as_atomic_u16(v: &mut [u16]) -> &[AtomicU16] {
    // SAFETY: AtomicU16 has the same size and bit validity as u16, and the
    // exclusive borrow guarantees no non-atomic access while the view lives.
    unsafe { &*(v as *mut [u16] as *const [AtomicU16]) }
}

fn as_atomic_u8(v: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: as above for u8.
    unsafe { &*(v as *mut [u8] as *const [AtomicU8]) }
}

/// The largest remoteness among the lower-tier children of `p` that are wins
/// for the opponent (the position is known to have no loss or draw child).
fn lower_max_win<G: Game>(
    g: &G,
    t: TierKey,
    p: &G::Pos,
    lower: &Lower,
    moves: &mut Vec<G::Move>,
) -> u16 {
    moves.clear();
    g.moves(p, moves);
    let mut max = 0;
    for m in moves.iter() {
        let c = g.apply(p, m);
        let ct = g.tier_of(&c);
        if ct != t {
            if let Value::Win(r) = lower.value(ct, g.rank(ct, &c)) {
                max = max.max(r);
            }
        }
    }
    max
}

/// Solve tier `t` of `g`, given its solved dependencies. Returns the packed
/// values (unused slots stay [`UNDECIDED`]) and statistics. `progress` is
/// told how far the initial pass and the levels have got.
pub fn solve_tier<G: Game>(
    g: &G,
    t: TierKey,
    lower: &Lower,
    progress: &(dyn Fn(Progress) + Sync),
) -> (Vec<Packed>, TierStats) {
    let n = g.tier_size(t) as usize;
    assert!(n <= u32::MAX as usize, "tier too large for 32-bit indices");
    let mut value_store = vec![UNDECIDED; n];
    let mut counter_store = vec![0u8; n];
    {
        let values = as_atomic_u16(&mut value_store);
        let counters = as_atomic_u8(&mut counter_store);

        // 1. Initial pass: rule ends, lower-tier children, in-tier counters.
        // Each task hands its finds to the shared queues as it ends, so the
        // extra memory stays bounded by a few tasks' worth.
        let queues = Mutex::new((Buckets::default(), Buckets::default()));
        (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            let mut f = Found::default();
            let mut moves = Vec::new();
            let mut in_tier: Vec<u32> = Vec::new();
            let lo = c * CHUNK;
            let hi = (lo + CHUNK).min(n);
            for i in lo..hi {
                init_position(
                    g,
                    t,
                    i,
                    lower,
                    values,
                    counters,
                    &mut moves,
                    &mut in_tier,
                    &mut f,
                );
            }
            let mut q = queues.lock().unwrap();
            q.0.push_all(&f.decided);
            q.1.push_all(&f.tentative);
            drop(q);
            progress(Progress::Initial((hi - lo) as u64));
        });
        let (mut buckets, mut tentative) = queues.into_inner().unwrap();

        // 2. Propagate level by level.
        let mut level = 0usize;
        let mut decided = 0u64;
        while level < buckets.len() || level < tentative.len() {
            let mut current = buckets.take(level);
            let won = Value::Win(level as u16).pack();
            for i in tentative.take(level) {
                if values[i as usize]
                    .compare_exchange(UNDECIDED, won, Relaxed, Relaxed)
                    .is_ok()
                {
                    current.push(i);
                }
            }
            let shared = Mutex::new(&mut buckets);
            current.par_chunks(CHUNK / 4).for_each(|chunk| {
                let mut out = Vec::new();
                let mut parents = Vec::new();
                let mut ranks: Vec<u32> = Vec::new();
                let mut moves = Vec::new();
                for &i in chunk {
                    propagate(
                        g,
                        t,
                        i,
                        level as u16,
                        lower,
                        values,
                        counters,
                        &mut parents,
                        &mut ranks,
                        &mut moves,
                        &mut out,
                    );
                }
                shared.lock().unwrap().push_all(&out);
            });
            decided += current.len() as u64;
            progress(Progress::Level(level as u16, decided));
            level += 1;
        }
    }

    // 3. Whatever is undecided is a draw; tally.
    let mut stats = TierStats::default();
    for (v, &c) in value_store.iter_mut().zip(&counter_store) {
        if *v == UNDECIDED {
            if c == UNUSED {
                stats.unused += 1;
                continue;
            }
            *v = Value::Draw.pack();
        }
        match Value::unpack(*v).unwrap() {
            Value::Win(r) => {
                stats.wins += 1;
                stats.max_win = stats.max_win.max(r);
            }
            Value::Loss(r) => {
                stats.losses += 1;
                stats.max_loss = stats.max_loss.max(r);
            }
            Value::Draw => stats.draws += 1,
        }
    }
    (value_store, stats)
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn init_position<G: Game>(
    g: &G,
    t: TierKey,
    i: usize,
    lower: &Lower,
    values: &[AtomicU16],
    counters: &[AtomicU8],
    moves: &mut Vec<G::Move>,
    in_tier: &mut Vec<u32>,
    f: &mut Found,
) {
    let p = g.unrank(t, i as u64);
    if g.rank(t, &p) != i as u64 {
        counters[i].store(UNUSED, Relaxed);
        return;
    }
    let decide = |v: Value, f: &mut Found| {
        values[i].store(v.pack(), Relaxed);
        if let Some(r) = v.remoteness() {
            f.decided.push((r, i as u32));
        }
    };
    if let Some(end) = g.rule_end(&p) {
        decide(end.value, f);
        return;
    }
    moves.clear();
    g.moves(&p, moves);
    if moves.is_empty() {
        decide(Value::Loss(0), f);
        return;
    }
    in_tier.clear();
    let mut best_win: Option<u16> = None;
    let mut has_draw = false;
    let mut lower_max: u16 = 0;
    for m in moves.iter() {
        let c = g.apply(&p, m);
        let ct = g.tier_of(&c);
        if ct == t {
            in_tier.push(g.rank(t, &c) as u32);
        } else {
            match lower.value(ct, g.rank(ct, &c)) {
                Value::Loss(r) => best_win = Some(best_win.map_or(r + 1, |w| w.min(r + 1))),
                Value::Draw => has_draw = true,
                Value::Win(r) => lower_max = lower_max.max(r),
            }
        }
    }
    in_tier.sort_unstable();
    in_tier.dedup();
    if in_tier.is_empty() {
        if let Some(w) = best_win {
            decide(Value::Win(w), f);
        } else if has_draw {
            decide(Value::Draw, f);
        } else {
            decide(Value::Loss(lower_max + 1), f);
        }
        return;
    }
    assert!(
        in_tier.len() <= COUNT as usize,
        "too many distinct moves for the counter"
    );
    let flag = if best_win.is_some() || has_draw {
        NOT_A_LOSS
    } else {
        0
    };
    counters[i].store(in_tier.len() as u8 | flag, Relaxed);
    if let Some(w) = best_win {
        f.tentative.push((w, i as u32));
    }
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn propagate<G: Game>(
    g: &G,
    t: TierKey,
    i: u32,
    level: u16,
    lower: &Lower,
    values: &[AtomicU16],
    counters: &[AtomicU8],
    parents: &mut Vec<G::Pos>,
    ranks: &mut Vec<u32>,
    moves: &mut Vec<G::Move>,
    out: &mut Vec<(u16, u32)>,
) {
    let v = Value::unpack(values[i as usize].load(Relaxed)).expect("decided");
    debug_assert_eq!(v.remoteness(), Some(level));
    let p = g.unrank(t, i as u64);
    parents.clear();
    g.unmoves(&p, parents);
    ranks.clear();
    ranks.extend(parents.iter().map(|q| g.rank(t, q) as u32));
    ranks.sort_unstable();
    ranks.dedup();
    match v {
        Value::Loss(_) => {
            let won = Value::Win(level + 1).pack();
            for &j in ranks.iter() {
                if values[j as usize]
                    .compare_exchange(UNDECIDED, won, Relaxed, Relaxed)
                    .is_ok()
                {
                    out.push((level + 1, j));
                }
            }
        }
        Value::Win(_) => {
            for &j in ranks.iter() {
                let j = j as usize;
                if values[j].load(Relaxed) != UNDECIDED {
                    continue;
                }
                let old = counters[j].fetch_sub(1, Relaxed);
                debug_assert!(old & COUNT > 0, "counter underflow");
                if old & COUNT == 1 && old & NOT_A_LOSS == 0 {
                    // Every child is a win for the opponent: a loss, as late
                    // as the longest of them allows.
                    let q = g.unrank(t, j as u64);
                    let lm = lower_max_win(g, t, &q, lower, moves);
                    let l = level.max(lm) + 1;
                    values[j].store(Value::Loss(l).pack(), Relaxed);
                    out.push((l, j as u32));
                }
            }
        }
        Value::Draw => unreachable!("draws are never queued"),
    }
}
