//! Solving one tier in memory: counters of undecided successors, un-moves,
//! and propagation in increasing remoteness (a bucket per level).
//!
//! The tier's state words (see [`super::state`]) are held whole. The
//! initial pass works in small batches: first all child ranks of a batch
//! are computed and their lower-tier values prefetched, then they are
//! read, so that the memory latency of one rank overlaps the computation
//! of the next. The levels ([`super::levels`]) group their parent updates
//! by region of the tier instead (see [`super::propagate`]).
//!
//! The *set* of positions decided at each level does not depend on the order
//! in which threads run, so the table is identical for any thread count.

use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use super::levels::run_levels;
use super::limits::{check_tier_size, LimitError};
use super::propagate::LevelJob;
use super::regions::{region_count, region_shift, MAX_REGION_SHIFT};
use super::requests::split_children;
use super::slot::{with_slots, Slot, WithSlots};
use super::state::{
    self, as_atomic_u16, pack, settle_and_count, Found, Queued, CHUNK, COUNT, LOSSES, WINS,
};
use super::tier_options::{Progress, TierOptions};
use crate::exchange::SingleProcess;
use crate::game::{TierKey, Tiers};
use crate::tier_values::{TierStats, TierValues};
use crate::value::{Packed, Value};

/// Positions whose ranks are computed (and slots prefetched) before their
/// memory is touched (32 against 16: more reads in flight).
const BATCH: usize = 32;

/// A solved tier.
pub struct SolvedTier {
    /// Packed values; unused slots hold [`Packed::UNDECIDED`].
    pub values: Vec<Packed>,
    /// Counts, remoteness and the seconds of the initial pass and the
    /// propagation (the caller fills the rest).
    pub stats: TierStats,
    /// Random memory accesses made: parent updates and lower-tier reads.
    pub touches: u64,
}

/// Solve tier `t` of `g` in memory, given its solved dependencies, as
/// `opts` says; `None` if `opts`' stop callback gave the tier up.
///
/// # Errors
///
/// [`LimitError::TierTooLarge`] if the tier has more slots than
/// [`MAX_TIER_SLOTS`](super::MAX_TIER_SLOTS) (nothing is solved), and
/// [`LimitError::TooManyChildren`] if a position of it has more distinct
/// in-tier children than
/// [`MAX_IN_TIER_CHILDREN`](super::MAX_IN_TIER_CHILDREN) (found in the
/// initial pass, which then stops).
pub fn solve_tier<G: Tiers>(
    g: &G,
    t: TierKey,
    lower: &TierValues,
    opts: &TierOptions,
) -> Result<Option<SolvedTier>, LimitError> {
    check_tier_size(g, t)?;
    let wide = opts.tuning.wide_slots;
    with_slots(g.tier_size(t), wide, InMemory { g, t, lower, opts })
}

/// The arguments of [`solve_tier`], solved with either width of slot
/// numbers.
struct InMemory<'a, G> {
    g: &'a G,
    t: TierKey,
    lower: &'a TierValues<'a>,
    opts: &'a TierOptions<'a>,
}

impl<G: Tiers> WithSlots for InMemory<'_, G> {
    type Output = Result<Option<SolvedTier>, LimitError>;

    fn run<S: Slot>(self) -> Self::Output {
        let InMemory { g, t, lower, opts } = self;
        let n = g.tier_size(t) as usize;
        let mut store = Packed::vec_from_bits(crate::hugemem::zeroed_u16(n));
        let tuning = opts.tuning;
        let shift = tuning.region_shift.unwrap_or_else(|| region_shift(n));
        assert!(shift <= MAX_REGION_SHIFT, "region offsets must fit 16 bits");
        let regions = region_count(n, shift);
        let touches = AtomicU64::new(0);
        let t0 = Instant::now();
        let (init_seconds, propagate_seconds) = {
            let states = as_atomic_u16(Packed::slice_as_bits_mut(&mut store));

            // 1. Initial pass: rule ends, lower-tier children, in-tier
            // counters.
            let Some(queued) = initial_pass::<G, S>(g, t, lower, states, opts, &touches)? else {
                return Ok(None);
            };
            let init_seconds = t0.elapsed().as_secs_f64();

            // 2. Propagate level by level.
            let t1 = Instant::now();
            let found = Mutex::new(queued.decided);
            let job = LevelJob {
                g,
                t,
                lower,
                states,
                base: 0,
                saturated: None,
                level: 0,
                found: &found,
                touches: &touches,
                tuning,
                shift,
                regions,
                owned: 0..regions,
            };
            if !run_levels(job, queued.tentative, opts, &SingleProcess) {
                return Ok(None);
            }
            (init_seconds, t1.elapsed().as_secs_f64())
        };

        // 3. Whatever is still open is a draw; tally (in parallel: on the
        // largest tiers this is a pass over gigabytes).
        let t2 = Instant::now();
        let counts = settle_and_count(Packed::slice_as_bits_mut(&mut store));
        let stats = TierStats {
            init_seconds,
            propagate_seconds: propagate_seconds + t2.elapsed().as_secs_f64(),
            ..counts
        };
        Ok(Some(SolvedTier {
            values: store,
            stats,
            touches: touches.into_inner(),
        }))
    }
}

/// The in-memory initial pass over every slot of tier `t`: rule ends,
/// lower-tier children, in-tier counters, with the positions decided and
/// the tentative wins queued by level; `None` if stopped. Each task hands
/// its finds to the shared queues as it ends, so the extra memory stays
/// bounded by a few tasks' worth.
fn initial_pass<G: Tiers, S: Slot>(
    g: &G,
    t: TierKey,
    lower: &TierValues,
    states: &[AtomicU16],
    opts: &TierOptions,
    touches: &AtomicU64,
) -> Result<Option<Queued<S>>, LimitError> {
    // The most in-tier children of a position over the counter's limit,
    // if any: the pass then stops.
    let crowded = AtomicU32::new(0);
    let queues = Mutex::new(Queued::<S>::default());
    let stopped = AtomicBool::new(false);
    let n = states.len();
    (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
        if crowded.load(Relaxed) != 0 || stopped.load(Relaxed) {
            return;
        }
        if (opts.stop)() {
            stopped.store(true, Relaxed);
            return;
        }
        let lo = c * CHUNK;
        let hi = (lo + CHUNK).min(n);
        let mut w = InitWork::<G, S>::default();
        g.used_slots(t, lo as u64..hi as u64, &mut w.slots);
        let slots = std::mem::take(&mut w.slots);
        for batch in slots.chunks(BATCH) {
            let keep = opts.tuning.keep_lower_wins;
            init_batch(g, t, batch, lower, states, keep, &mut w);
            if w.crowded != 0 {
                crowded.fetch_max(w.crowded, Relaxed);
                return;
            }
        }
        touches.fetch_add(w.touches, Relaxed);
        let mut q = queues.lock().unwrap();
        q.decided.push_all(&w.decided);
        q.tentative
            .push_all(&[Vec::new(), std::mem::take(&mut w.tentative)]);
        drop(q);
        (opts.progress)(Progress::Initial((hi - lo) as u64));
    });
    let children = crowded.into_inner();
    if children != 0 {
        return Err(LimitError::TooManyChildren {
            tier: Some(g.tier_name(t)),
            children,
        });
    }
    if stopped.into_inner() {
        return Ok(None);
    }
    Ok(Some(queues.into_inner().unwrap()))
}

/// Scratch space of one initial-pass task (reused, so nothing allocates
/// per position).
struct InitWork<G: Tiers, S> {
    slots: Vec<(u64, G::Pos)>,
    moves: Vec<G::Move>,
    /// The children of one position: (tier, rank).
    children: Vec<(TierKey, u64)>,
    /// Distinct in-tier child ranks of one position.
    kids: Vec<S>,
    /// Lower-tier children of the batch's positions: (table, rank).
    lows: Vec<(u32, u64)>,
    /// Per position of the batch still to decide: slot, number of distinct
    /// in-tier children and end of its `lows`.
    open: Vec<(S, u32, u32)>,
    decided: Found<S>,
    tentative: Vec<(u16, S)>,
    touches: u64,
    /// The in-tier children of a position over the counter's limit (0:
    /// none such yet).
    crowded: u32,
}

impl<G: Tiers, S> Default for InitWork<G, S> {
    fn default() -> Self {
        InitWork {
            slots: Vec::new(),
            moves: Vec::new(),
            children: Vec::new(),
            kids: Vec::new(),
            lows: Vec::new(),
            open: Vec::new(),
            decided: [Vec::new(), Vec::new()],
            tentative: Vec::new(),
            touches: 0,
            crowded: 0,
        }
    }
}

/// The initial pass over a batch of used slots: first every child's rank
/// (prefetching lower-tier values), then the decisions.
fn init_batch<G: Tiers, S: Slot>(
    g: &G,
    t: TierKey,
    batch: &[(u64, G::Pos)],
    lower: &TierValues,
    states: &[AtomicU16],
    keep_lower_wins: bool,
    w: &mut InitWork<G, S>,
) {
    w.lows.clear();
    w.open.clear();
    let decide = |i: S, v: Value, w: &mut InitWork<G, S>| {
        states[i.index()].store(pack(v), Relaxed);
        match v {
            Value::Loss(r) => w.decided[LOSSES].push((r, i)),
            Value::Win(r) => w.decided[WINS].push((r, i)),
            Value::Draw => {}
        }
    };
    for &(i, ref p) in batch {
        let i = S::new(i);
        if let Some(end) = g.rule_end(p) {
            decide(i, end.value, w);
            continue;
        }
        let in_tier = split_children(g, t, p, &mut w.moves, &mut w.children, &mut w.kids);
        if in_tier == 0 && w.children.is_empty() {
            decide(i, Value::Loss(0), w);
            continue;
        }
        for &(ct, r) in w.children.iter() {
            let table = lower.slot_of(ct);
            lower.prefetch(table, r);
            w.lows.push((table as u32, r));
        }
        w.open.push((i, in_tier as u32, w.lows.len() as u32));
    }
    w.touches += w.lows.len() as u64;

    let mut low_start = 0usize;
    for k in 0..w.open.len() {
        let (i, count, low_end) = w.open[k];
        let (count, low_end) = (count as usize, low_end as usize);
        let mut best_win: Option<u16> = None;
        let mut has_draw = false;
        let mut lower_max: u16 = 0;
        for &(table, r) in &w.lows[low_start..low_end] {
            match lower.at(table as usize, r) {
                Value::Loss(r) => best_win = Some(best_win.map_or(r + 1, |b| b.min(r + 1))),
                Value::Draw => has_draw = true,
                Value::Win(r) => lower_max = lower_max.max(r),
            }
        }
        low_start = low_end;
        if count == 0 {
            if let Some(b) = best_win {
                decide(i, Value::Win(b), w);
            } else if has_draw {
                decide(i, Value::Draw, w);
            } else {
                decide(i, Value::Loss(lower_max + 1), w);
            }
            continue;
        }
        if count > COUNT as usize {
            w.crowded = count.min(u32::MAX as usize) as u32;
            return;
        }
        let not_a_loss = best_win.is_some() || has_draw;
        let kept = if keep_lower_wins { lower_max } else { u16::MAX };
        states[i.index()].store(state::open(count as u16, not_a_loss, kept), Relaxed);
        if let Some(b) = best_win {
            w.tentative.push((b, i));
        }
    }
}

/// Tier `t` solved in memory with the default options (tests).
#[cfg(test)]
pub(crate) fn solve_plain<G: Tiers>(g: &G, t: TierKey, lower: &TierValues) -> SolvedTier {
    solve_tuned(g, t, lower, Default::default())
}

/// Tier `t` solved in memory with `tuning` (tests).
#[cfg(test)]
pub(super) fn solve_tuned<G: Tiers>(
    g: &G,
    t: TierKey,
    lower: &TierValues,
    tuning: super::propagate::Tuning,
) -> SolvedTier {
    let opts = TierOptions::default().tuning(tuning);
    solve_tier(g, t, lower, &opts).unwrap().unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::propagate::Tuning;

    /// The levels' tuning changes the work's order, never the table:
    /// every tier of weiming solved in rounds of a few positions, sent by
    /// tasks of a few, into regions of one to four slots, equals the default.
    #[test]
    fn tuning_does_not_change_the_table() {
        let g = crate::games::weiming::Weiming::new();
        let mut done: std::collections::HashMap<TierKey, Vec<Packed>> = Default::default();
        for t in g.tiers(None) {
            let mut lower = TierValues::new();
            for d in g.tier_deps(t) {
                lower.add(d, &done[&d]);
            }
            let plain = solve_plain(&g, t, &lower);
            for (round, send_chunk) in [(1, 1), (5, 2), (64, 7)] {
                let tiny = Tuning {
                    round,
                    send_chunk,
                    region_shift: Some(round as u32 % 3),
                    keep_lower_wins: round != 5,
                    wide_slots: round == 64,
                };
                let small = solve_tuned(&g, t, &lower, tiny);
                assert_eq!(small.values, plain.values, "tier {t} {tiny:?}");
                if tiny.keep_lower_wins {
                    assert_eq!(small.touches, plain.touches);
                }
            }
            done.insert(t, plain.values);
        }
    }

    /// Every tier of `g` up to `max` pieces, solved with `tuning`.
    fn solve_all<G: Tiers>(g: &G, max: u32, tuning: Tuning) -> Vec<(TierKey, SolvedTier)> {
        let mut done: Vec<(TierKey, SolvedTier)> = Vec::new();
        for t in g.tiers(Some(max)) {
            let mut lower = TierValues::new();
            for d in g.tier_deps(t) {
                let (_, s) = done.iter().find(|(k, _)| *k == d).unwrap();
                lower.add(d, &s.values);
            }
            let solved = solve_tuned(g, t, &lower, tuning);
            done.push((t, solved));
        }
        done
    }

    /// Every tier of two subsets with captures into lower tiers (one of
    /// them with a symmetry-reduced numbering), solved with the default
    /// tuning and with `tuning`, each tier's pair handed to `check`
    /// (game, tier, default, tuned).
    fn compare_with_default(
        tuning: Tuning,
        check: &dyn Fn(&str, TierKey, &SolvedTier, &SolvedTier),
    ) {
        for (id, max) in [
            ("two-cannons:board=4x4,soldiers=7", 7),
            ("cannon-chess-4x4", 4),
        ] {
            let any = crate::games::AnyGame::from_id(id).unwrap();
            crate::with_game!(any, |g| {
                let plain = solve_all(g, max, Tuning::default());
                let tuned = solve_all(g, max, tuning);
                for ((t, a), (_, b)) in plain.iter().zip(&tuned) {
                    check(id, *t, a, b);
                }
            });
        }
    }

    /// 64-bit slot numbers (the queues and messages of tiers over 2^32
    /// slots) give the tables of 32-bit ones.
    #[test]
    fn wide_slot_numbers_give_the_same_tables() {
        let wide = Tuning {
            wide_slots: true,
            ..Tuning::default()
        };
        compare_with_default(wide, &|id, t, a, b| {
            assert_eq!(a.values, b.values, "{id} tier {t}");
            assert_eq!(a.touches, b.touches, "{id} tier {t}");
        });
    }

    /// A new loss's longest lower-tier win, kept in its state word or
    /// re-derived from its moves and the lower tier (the path taken when
    /// it does not fit, which no game here reaches): the same tables.
    #[test]
    fn kept_and_rederived_lower_wins_agree() {
        let rederived = Tuning {
            keep_lower_wins: false,
            ..Tuning::default()
        };
        // Per game: losses settled, and tiers where re-deriving read more.
        let seen = Mutex::new(std::collections::HashMap::<String, (u64, u32)>::new());
        compare_with_default(rederived, &|id, t, a, b| {
            assert_eq!(a.values, b.values, "{id} tier {t}");
            // Re-deriving reads the lower tier again: more touches
            // wherever a tier has lower-tier children.
            assert!(b.touches >= a.touches);
            let mut seen = seen.lock().unwrap();
            let e = seen.entry(id.to_string()).or_default();
            e.0 += a.stats.losses;
            e.1 += (b.touches > a.touches) as u32;
        });
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), 2);
        for (id, (losses, more)) in seen {
            assert!(losses > 0, "{id}: the subset has losses to settle");
            assert!(more > 0, "{id}: some new loss had a lower-tier child");
        }
    }

    /// Weiming, but every position claims more distinct in-tier moves
    /// than the counter holds.
    struct Crowded(crate::games::weiming::Weiming);

    impl crate::game::Rules for Crowded {
        type Pos = <crate::games::weiming::Weiming as crate::game::Rules>::Pos;
        type Move = <crate::games::weiming::Weiming as crate::game::Rules>::Move;
        fn start(&self) -> Self::Pos {
            self.0.start()
        }
        fn side_to_move(&self, p: &Self::Pos) -> crate::Side {
            self.0.side_to_move(p)
        }
        fn rule_end(&self, p: &Self::Pos) -> Option<crate::GameEnd> {
            self.0.rule_end(p)
        }
        fn moves(&self, p: &Self::Pos, out: &mut Vec<Self::Move>) {
            self.0.moves(p, out)
        }
        fn apply(&self, p: &Self::Pos, m: &Self::Move) -> Self::Pos {
            self.0.apply(p, m)
        }
        fn pass(&self, p: &Self::Pos) -> Self::Pos {
            self.0.pass(p)
        }
    }

    impl Tiers for Crowded {
        fn id(&self) -> &str {
            self.0.id()
        }
        fn rules_hash(&self) -> u64 {
            self.0.rules_hash()
        }
        fn tiers(&self, m: Option<u32>) -> Vec<TierKey> {
            self.0.tiers(m)
        }
        fn tier_name(&self, t: TierKey) -> String {
            self.0.tier_name(t)
        }
        fn tier_of(&self, p: &Self::Pos) -> TierKey {
            self.0.tier_of(p)
        }
        fn tier_max_pieces(&self, t: TierKey) -> u32 {
            self.0.tier_max_pieces(t)
        }
        fn tier_size(&self, t: TierKey) -> u64 {
            self.0.tier_size(t)
        }
        fn tier_deps(&self, t: TierKey) -> Vec<TierKey> {
            self.0.tier_deps(t)
        }
        fn rank(&self, t: TierKey, p: &Self::Pos) -> u64 {
            self.0.rank(t, p)
        }
        fn unrank(&self, t: TierKey, i: u64) -> Self::Pos {
            self.0.unrank(t, i)
        }
        fn unmoves(&self, p: &Self::Pos, out: &mut Vec<Self::Pos>) {
            self.0.unmoves(p, out)
        }
        fn in_tier_children_may_share_slots(&self, _: &Self::Pos) -> bool {
            false
        }
        fn lower_child_ranks(
            &self,
            _: &Self::Pos,
            _: &mut Vec<Self::Move>,
            _: &mut Vec<(TierKey, u64)>,
        ) -> usize {
            COUNT as usize + 3
        }
    }

    /// A position with more in-tier children than the counter holds stops
    /// the tier with a typed error, not a panic.
    #[test]
    fn too_many_in_tier_children_is_an_error() {
        let g = Crowded(crate::games::weiming::Weiming::new());
        let t = g.tiers(None)[0];
        let opts = TierOptions::default();
        let err = match solve_tier(&g, t, &TierValues::new(), &opts) {
            Ok(_) => panic!("tier {t} solved"),
            Err(e) => e,
        };
        assert_eq!(
            err,
            LimitError::TooManyChildren {
                tier: Some(g.tier_name(t)),
                children: COUNT as u32 + 3
            }
        );
        assert!(err.to_string().contains("7-bit counter"), "{err}");
        // The same tier of the real game solves.
        let real = crate::games::weiming::Weiming::new();
        assert!(solve_tier(&real, t, &TierValues::new(), &opts).is_ok());
    }
}
