//! A checker of the [`Game`] contract for any game, in the spirit of
//! GamesmanOne's built-in game API test: what the solver, the tablebase and
//! the tests rely on, checked by walking the game's own slots.
//!
//! [`check_game`] checks, tier by tier (every slot of small tiers, a sample
//! of the others):
//! * tier order: every tier comes after its `tier_deps`, which lie in the
//!   same subset; `tier_of` of every slot's position is its tier;
//! * the solver's limits: tier sizes within its 32-bit indices, at most
//!   [`MAX_IN_TIER_CHILDREN`] distinct in-tier children per position;
//! * rank/unrank is a bijection on used slots (`rank(unrank(i)) == i`), an
//!   unused slot's position ranks to a used slot of its orbit, and over a
//!   fully walked tier the used slots' orbit sizes add up to
//!   `tier_positions`;
//! * `used_slots` lists exactly the slots that rank back to themselves, with
//!   their positions (on the whole of a small tier, else on windows around
//!   the sampled slots);
//! * every symmetry image of a position has its tier and rank, and
//!   `orbit_size` counts the distinct images;
//! * every move stays in its tier or goes to one of `tier_deps`;
//! * un-moves exactly invert in-tier moves: each un-move `q` of `x` is in
//!   x's tier, has no rule end and a move to `x`, and each in-tier move
//!   `x → c` has `x` among c's un-moves (checked on a symmetry image too,
//!   not only on the positions `unrank` returns);
//! * `child_ranks`, `unmove_ranks` and `slot_unmove_ranks` list the same
//!   (tier, rank) pairs as ranking every move's child and every un-move
//!   (as multisets), without repeats where `slot_unmove_ranks` promises so,
//!   `lower_child_ranks` the lower-tier ones and the in-tier count, and
//!   where `in_tier_children_may_share_slots` says no, no two in-tier
//!   moves lead to one slot;
//! * `slot_half`, where a tier has halves, differs between a position and
//!   each of its in-tier children;
//! * notation: positions and moves read back as themselves.
//!
//! [`check_values`] checks a solved closed subset: the value of every image
//! of a slot's position, derived from the image's own moves, is the value
//! stored in the slot, i.e. the values are invariant under the symmetries
//! the numbering identifies.

use std::collections::HashMap;
use std::fmt;

use rayon::prelude::*;

use crate::game::{child_ranks_by_moves, Game, TierKey};
use crate::rng::Rng;
use crate::value::{Packed, Value};
use crate::verify::derive_value;

/// Most distinct in-tier children a position may have: the solver counts
/// undecided children in the low 7 bits of a byte per slot.
pub const MAX_IN_TIER_CHILDREN: usize = 127;

/// Largest tier the solver takes (its state words must fit the address
/// space): the solver's own limit.
pub const MAX_TIER_SIZE: u64 = crate::solver::MAX_TIER_SLOTS;

/// Which part of a game [`check_game`] walks.
#[derive(Clone, Debug)]
pub struct Scope {
    /// The closed subset (`Tiers::tiers`); `None` for the whole game.
    pub max_pieces: Option<u32>,
    /// Tiers with at most this many slots are walked slot by slot.
    pub every_slot_up_to: u64,
    /// Slots drawn at random from each larger tier.
    pub samples: u64,
    /// Seed of the sampling.
    pub seed: u64,
}

impl Default for Scope {
    fn default() -> Self {
        Scope {
            max_pieces: None,
            every_slot_up_to: 100_000,
            samples: 2_000,
            seed: 1,
        }
    }
}

/// The clause of the contract that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clause {
    /// A tier comes before one of its `tier_deps`, or a dependency is outside the subset.
    TierOrder,
    /// `tier_of` of a slot's position is not the slot's tier.
    TierOf,
    /// A tier or a position exceeds what the solver can index or count.
    SolverLimit,
    /// `rank` and `unrank` do not invert each other on the used slots.
    Bijection,
    /// A symmetry image has another tier or rank.
    Symmetry,
    /// `orbit_size` or the orbit sizes of a tier do not add up.
    OrbitSize,
    /// A move leads outside its tier and its `tier_deps`.
    MoveTier,
    /// Un-moves do not invert in-tier moves.
    Unmoves,
    /// A rank-list fast path disagrees with its default.
    RankLists,
    /// A position or move does not read back as itself.
    Notation,
    /// An in-tier move stays in its half of the tier (`slot_half`).
    Halves,
    /// Solved values are not invariant under the symmetries.
    Values,
}

/// A broken contract: which clause, and the details (tier, slot, position).
#[derive(Clone, Debug)]
pub struct Violation {
    /// The clause that failed.
    pub clause: Clause,
    /// Where and how: tier, slot, position.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.clause, self.detail)
    }
}

impl std::error::Error for Violation {}

fn fail<T>(clause: Clause, detail: String) -> Result<T, Violation> {
    Err(Violation { clause, detail })
}

/// What a successful [`check_game`] walked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Tiers walked.
    pub tiers: usize,
    /// Slots checked, and those of them that hold a position.
    pub slots: u64,
    /// Of `slots`, those holding a position.
    pub used: u64,
    /// Positions whose moves and un-moves were checked.
    pub positions: u64,
    /// Moves followed.
    pub moves: u64,
    /// Largest number of distinct in-tier children seen.
    pub max_in_tier: usize,
}

impl Summary {
    fn merge(mut self, o: Summary) -> Summary {
        self.tiers += o.tiers;
        self.slots += o.slots;
        self.used += o.used;
        self.positions += o.positions;
        self.moves += o.moves;
        self.max_in_tier = self.max_in_tier.max(o.max_in_tier);
        self
    }
}

/// The slots of tier `t` that `scope` walks: all of a small tier, else a
/// seeded sample. The bool says whether all were taken.
fn slots_of(size: u64, t: TierKey, scope: &Scope) -> (Vec<u64>, bool) {
    if size <= scope.every_slot_up_to {
        ((0..size).collect(), true)
    } else {
        let base = scope.seed ^ (t as u64).wrapping_mul(0x2545_f491_4f6c_dd1d);
        let v = (0..scope.samples)
            .map(|k| Rng::new(base.wrapping_add(k)).next_u64() % size)
            .collect();
        (v, false)
    }
}

/// Check the game's tier structure and every walked slot (see the module
/// docs); the first violation found is returned.
///
/// # Errors
///
/// The first [`Violation`] of the contract found, with the clause it
/// breaks.
pub fn check_game<G: Game>(g: &G, scope: &Scope) -> Result<Summary, Violation> {
    let tiers = g.tiers(scope.max_pieces);
    check_tier_order(g, &tiers)?;
    let mut total = Summary::default();
    for &t in &tiers {
        total = total.merge(check_tier(g, t, scope)?);
    }
    Ok(total)
}

fn check_tier_order<G: Game>(g: &G, tiers: &[TierKey]) -> Result<(), Violation> {
    let at: HashMap<TierKey, usize> = tiers.iter().enumerate().map(|(k, &t)| (t, k)).collect();
    if at.len() != tiers.len() {
        return fail(Clause::TierOrder, "a tier is listed twice".into());
    }
    let mut names = std::collections::HashSet::new();
    for (k, &t) in tiers.iter().enumerate() {
        if !names.insert(g.tier_name(t)) {
            return fail(
                Clause::TierOrder,
                format!("tier name {} repeats", g.tier_name(t)),
            );
        }
        for d in g.tier_deps(t) {
            match at.get(&d) {
                Some(&kd) if kd < k => {}
                Some(_) => {
                    return fail(
                        Clause::TierOrder,
                        format!(
                            "tier {} comes before its dependency {}",
                            g.tier_name(t),
                            g.tier_name(d)
                        ),
                    )
                }
                None => {
                    return fail(
                        Clause::TierOrder,
                        format!(
                            "dependency {} of tier {} is outside the subset",
                            g.tier_name(d),
                            g.tier_name(t)
                        ),
                    )
                }
            }
        }
        if g.tier_size(t) > MAX_TIER_SIZE {
            return fail(
                Clause::SolverLimit,
                format!(
                    "tier {} has {} slots, over the solver's limit of 2^46",
                    g.tier_name(t),
                    g.tier_size(t)
                ),
            );
        }
    }
    Ok(())
}

/// Check the walked slots of one tier.
fn check_tier<G: Game>(g: &G, t: TierKey, scope: &Scope) -> Result<Summary, Violation> {
    let size = g.tier_size(t);
    let (slots, complete) = slots_of(size, t, scope);
    let deps = g.tier_deps(t);
    let (summary, weight) = slots
        .par_chunks(1 << 10)
        .map(|chunk| {
            let mut s = Summary::default();
            let mut weight = 0u64;
            let mut scratch = Scratch::default();
            for &i in chunk {
                weight += check_slot(g, t, i, &deps, &mut s, &mut scratch)?;
            }
            Ok((s, weight))
        })
        .try_reduce(
            || (Summary::default(), 0),
            |a, b| Ok((a.0.merge(b.0), a.1 + b.1)),
        )?;
    check_used_slots(g, t, &slots, complete)?;
    if complete && weight != g.tier_positions(t) {
        return fail(
            Clause::OrbitSize,
            format!(
                "tier {}: the used slots' orbit sizes add up to {weight}, tier_positions says {}",
                g.tier_name(t),
                g.tier_positions(t)
            ),
        );
    }
    Ok(Summary {
        tiers: 1,
        ..summary
    })
}

/// `used_slots` against the round trip `rank(unrank(i)) == i`: over the
/// whole tier when it was walked completely, else over odd-sized windows
/// starting at the sampled slots (so they start and end anywhere).
fn check_used_slots<G: Game>(
    g: &G,
    t: TierKey,
    slots: &[u64],
    complete: bool,
) -> Result<(), Violation> {
    let size = g.tier_size(t);
    let windows: Vec<std::ops::Range<u64>> = if complete {
        std::iter::once(0..size).collect()
    } else {
        slots
            .iter()
            .take(64)
            .enumerate()
            .map(|(k, &i)| i..(i + 1 + 37 * k as u64).min(size))
            .collect()
    };
    windows.into_par_iter().try_for_each(|w| {
        let mut listed = Vec::new();
        g.used_slots(t, w.clone(), &mut listed);
        let mut expected = w.clone().filter_map(|i| {
            let p = g.unrank(t, i);
            (g.rank(t, &p) == i).then_some((i, p))
        });
        for &(i, ref p) in &listed {
            match expected.next() {
                Some((j, q)) if j == i && q == *p => {}
                Some((j, q)) => {
                    return fail(
                        Clause::Bijection,
                        format!(
                            "tier {}: used_slots over {w:?} lists slot {i} ({}), the round trip gives slot {j} ({})",
                            g.tier_name(t),
                            g.format_pos(p),
                            g.format_pos(&q)
                        ),
                    )
                }
                None => {
                    return fail(
                        Clause::Bijection,
                        format!(
                            "tier {}: used_slots over {w:?} lists slot {i}, which is unused",
                            g.tier_name(t)
                        ),
                    )
                }
            }
        }
        if let Some((j, _)) = expected.next() {
            return fail(
                Clause::Bijection,
                format!(
                    "tier {}: used_slots over {w:?} misses the used slot {j}",
                    g.tier_name(t)
                ),
            );
        }
        Ok(())
    })
}

/// Buffers reused across slots (no allocation per position).
struct Scratch<G: Game> {
    images: Vec<G::Pos>,
    moves: Vec<G::Move>,
    unmoves: Vec<G::Pos>,
    back: Vec<G::Pos>,
    in_tier: Vec<u64>,
    listed: Vec<(TierKey, u64)>,
    plain: Vec<(TierKey, u64)>,
    ranks: Vec<u64>,
}

impl<G: Game> Default for Scratch<G> {
    fn default() -> Self {
        Scratch {
            images: Vec::new(),
            moves: Vec::new(),
            unmoves: Vec::new(),
            back: Vec::new(),
            in_tier: Vec::new(),
            listed: Vec::new(),
            plain: Vec::new(),
            ranks: Vec::new(),
        }
    }
}

/// Check slot `i`; returns its orbit size if it is used, else 0.
fn check_slot<G: Game>(
    g: &G,
    t: TierKey,
    i: u64,
    deps: &[TierKey],
    s: &mut Summary,
    sc: &mut Scratch<G>,
) -> Result<u64, Violation> {
    let size = g.tier_size(t);
    let name = || g.tier_name(t);
    let p = g.unrank(t, i);
    s.slots += 1;
    if g.tier_of(&p) != t {
        return fail(
            Clause::TierOf,
            format!(
                "slot {i} of tier {} holds {} of tier {}",
                name(),
                g.format_pos(&p),
                g.tier_name(g.tier_of(&p))
            ),
        );
    }
    let r = g.rank(t, &p);
    if r >= size {
        return fail(
            Clause::Bijection,
            format!(
                "{} ranks to {r}, beyond tier {} ({size} slots)",
                g.format_pos(&p),
                name()
            ),
        );
    }
    let used = r == i;
    if !used {
        // An unused slot's position belongs to the orbit of a used slot.
        let q = g.unrank(t, r);
        if g.rank(t, &q) != r {
            return fail(
                Clause::Bijection,
                format!(
                    "{} (slot {i} of {}) ranks to {r}, an unused slot",
                    g.format_pos(&p),
                    name()
                ),
            );
        }
        return Ok(0);
    }
    s.used += 1;
    // The parents' ranks from the slot's index: those of its position's
    // un-moves, and distinct where the game says so.
    sc.ranks.clear();
    let may_repeat = g.slot_unmove_ranks(t, i, &mut sc.back, &mut sc.ranks);
    sc.listed.clear();
    sc.listed.extend(sc.ranks.iter().map(|&r| (t, r)));
    sc.unmoves.clear();
    g.unmoves(&p, &mut sc.unmoves);
    sc.plain.clear();
    sc.plain
        .extend(sc.unmoves.iter().map(|q| (g.tier_of(q), g.rank(t, q))));
    same_ranks(g, &p, "slot_unmove_ranks", "its un-moves", sc)?;
    if !may_repeat {
        if let Some(c) = sc.listed.windows(2).find(|c| c[0] == c[1]) {
            return fail(
                Clause::RankLists,
                format!(
                    "{}: slot_unmove_ranks promises distinct parents, but slot {} is listed twice",
                    g.format_pos(&p),
                    c[0].1
                ),
            );
        }
    }
    // Symmetry images: same tier and rank; the orbit is their distinct set.
    sc.images.clear();
    g.symmetry_images(&p, &mut sc.images);
    if !sc.images.contains(&p) {
        return fail(
            Clause::Symmetry,
            format!("{} is not among its own images", g.format_pos(&p)),
        );
    }
    let mut distinct = 0;
    for (k, q) in sc.images.iter().enumerate() {
        if g.tier_of(q) != t || g.rank(t, q) != i {
            return fail(
                Clause::Symmetry,
                format!(
                    "image {} of {} (slot {i} of {}) has another slot",
                    g.format_pos(q),
                    g.format_pos(&p),
                    name()
                ),
            );
        }
        if !sc.images[..k].contains(q) {
            distinct += 1;
        }
    }
    let orbit = g.orbit_size(&p);
    if orbit != distinct {
        return fail(
            Clause::OrbitSize,
            format!(
                "{}: orbit_size {orbit}, but {distinct} distinct images",
                g.format_pos(&p)
            ),
        );
    }
    // Moves and un-moves of the slot's position and of one other image.
    let other = sc.images[(i as usize) % sc.images.len()];
    check_moves(g, t, &p, deps, i.is_multiple_of(64), s, sc)?;
    if other != p {
        check_moves(g, t, &other, deps, false, s, sc)?;
    }
    Ok(orbit)
}

/// Moves of `x` stay in the tier or go to a dependency, within the solver's
/// limit; un-moves invert the in-tier moves exactly; notation round-trips
/// when `notation` is set.
fn check_moves<G: Game>(
    g: &G,
    t: TierKey,
    x: &G::Pos,
    deps: &[TierKey],
    notation: bool,
    s: &mut Summary,
    sc: &mut Scratch<G>,
) -> Result<(), Violation> {
    s.positions += 1;
    check_unmoves(g, t, x, notation, sc)?;
    if g.rule_end(x).is_some() {
        return Ok(());
    }
    check_rank_lists(g, t, x, sc)?;
    check_each_move(g, t, x, deps, notation, s, sc)
}

/// The position reads back from its notation (when `notation` is set);
/// its un-moves are in-tier predecessors with no rule end that move to
/// it, and the game's parent rank list is the ranks of those un-moves.
fn check_unmoves<G: Game>(
    g: &G,
    t: TierKey,
    x: &G::Pos,
    notation: bool,
    sc: &mut Scratch<G>,
) -> Result<(), Violation> {
    let fx = || g.format_pos(x);
    if notation {
        match g.parse_pos(&fx()) {
            Ok(q) if q == *x => {}
            other => {
                return fail(
                    Clause::Notation,
                    format!("{} reads back as {other:?}", fx()),
                )
            }
        }
    }
    // Un-moves: predecessors in the tier, with no rule end, moving to x.
    sc.unmoves.clear();
    g.unmoves(x, &mut sc.unmoves);
    for k in 0..sc.unmoves.len() {
        let q = sc.unmoves[k];
        if g.tier_of(&q) != t || g.rule_end(&q).is_some() {
            return fail(
                Clause::Unmoves,
                format!(
                    "un-move {} of {} is in another tier or over",
                    g.format_pos(&q),
                    fx()
                ),
            );
        }
        sc.moves.clear();
        g.moves(&q, &mut sc.moves);
        if !sc.moves.iter().any(|m| g.apply(&q, m) == *x) {
            return fail(
                Clause::Unmoves,
                format!("un-move {} of {} has no move to it", g.format_pos(&q), fx()),
            );
        }
    }
    // The game's own parent rank list against ranking each un-move.
    sc.ranks.clear();
    g.unmove_ranks(t, x, &mut sc.back, &mut sc.ranks);
    sc.listed.clear();
    sc.listed.extend(sc.ranks.iter().map(|&r| (t, r)));
    sc.plain.clear();
    sc.plain
        .extend(sc.unmoves.iter().map(|q| (g.tier_of(q), g.rank(t, q))));
    same_ranks(g, x, "unmove_ranks", "its un-moves", sc)
}

/// The game's child rank lists (all children; lower-tier children with
/// the in-tier count) against ranking each move's child.
fn check_rank_lists<G: Game>(
    g: &G,
    t: TierKey,
    x: &G::Pos,
    sc: &mut Scratch<G>,
) -> Result<(), Violation> {
    let fx = || g.format_pos(x);
    sc.listed.clear();
    g.child_ranks(x, &mut sc.moves, &mut sc.listed);
    sc.plain.clear();
    child_ranks_by_moves(g, x, &mut sc.moves, &mut sc.plain);
    same_ranks(g, x, "child_ranks", "its moves' children", sc)?;
    // Counting in-tier children without ranks: a promise of distinct
    // slots must hold, and the lower-tier list is the plain one's.
    let in_tier = sc.plain.iter().filter(|c| c.0 == t).count();
    if !g.in_tier_children_may_share_slots(x) {
        if let Some(c) = sc.plain.windows(2).find(|c| c[0] == c[1] && c[0].0 == t) {
            return fail(
                Clause::RankLists,
                format!(
                    "{}: in_tier_children_may_share_slots says no, but two moves lead to slot {}",
                    fx(),
                    c[0].1
                ),
            );
        }
    }
    sc.listed.clear();
    let counted = g.lower_child_ranks(x, &mut sc.moves, &mut sc.listed);
    if counted != in_tier {
        return fail(
            Clause::RankLists,
            format!(
                "lower_child_ranks of {} counts {counted} in-tier moves, there are {in_tier}",
                fx()
            ),
        );
    }
    sc.plain.retain(|c| c.0 != t);
    same_ranks(g, x, "lower_child_ranks", "its lower-tier children", sc)
}

/// Each move: its notation round-trips (when `notation` is set), it stays
/// in the tier (changing its half) or goes to a dependency, the child's
/// un-moves lead back; the distinct in-tier children stay within the
/// solver's limit.
fn check_each_move<G: Game>(
    g: &G,
    t: TierKey,
    x: &G::Pos,
    deps: &[TierKey],
    notation: bool,
    s: &mut Summary,
    sc: &mut Scratch<G>,
) -> Result<(), Violation> {
    let fx = || g.format_pos(x);
    sc.moves.clear();
    g.moves(x, &mut sc.moves);
    sc.in_tier.clear();
    for k in 0..sc.moves.len() {
        let m = sc.moves[k];
        s.moves += 1;
        let c = g.apply(x, &m);
        let ct = g.tier_of(&c);
        if notation {
            match g.parse_move(x, &g.format_move(&m)) {
                Ok(back) if back == m => {}
                other => {
                    return fail(
                        Clause::Notation,
                        format!(
                            "move {} of {} reads back as {other:?}",
                            g.format_move(&m),
                            fx()
                        ),
                    )
                }
            }
        }
        if ct != t {
            if !deps.contains(&ct) {
                return fail(
                    Clause::MoveTier,
                    format!(
                        "move {} of {} goes to tier {}, not a dependency of {}",
                        g.format_move(&m),
                        fx(),
                        g.tier_name(ct),
                        g.tier_name(t)
                    ),
                );
            }
            continue;
        }
        let rc = g.rank(t, &c);
        sc.in_tier.push(rc);
        // A move that stays in the tier changes its half, if it has halves.
        let (hx, hc) = (g.slot_half(t, g.rank(t, x)), g.slot_half(t, rc));
        if hx.is_some() != hc.is_some() || (hx.is_some() && hx == hc) {
            return fail(
                Clause::Halves,
                format!(
                    "move {} of {} (half {hx:?}) leads to {} (half {hc:?})",
                    g.format_move(&m),
                    fx(),
                    g.format_pos(&c)
                ),
            );
        }
        // The un-moves of the child must lead back to x.
        sc.back.clear();
        g.unmoves(&c, &mut sc.back);
        if !sc.back.contains(x) {
            return fail(
                Clause::Unmoves,
                format!(
                    "move {} of {} leads to {}, whose un-moves miss it",
                    g.format_move(&m),
                    fx(),
                    g.format_pos(&c)
                ),
            );
        }
    }
    sc.in_tier.sort_unstable();
    sc.in_tier.dedup();
    if sc.in_tier.len() > MAX_IN_TIER_CHILDREN {
        return fail(Clause::SolverLimit, format!("{} has {} distinct in-tier children, the solver counts at most {MAX_IN_TIER_CHILDREN}", fx(), sc.in_tier.len()));
    }
    s.max_in_tier = s.max_in_tier.max(sc.in_tier.len());
    Ok(())
}

/// `sc.listed` (what the game's `method` gives for `x`) and `sc.plain` (the
/// plain ranks of `what`) hold the same pairs, counted with multiplicity.
fn same_ranks<G: Game>(
    g: &G,
    x: &G::Pos,
    method: &str,
    what: &str,
    sc: &mut Scratch<G>,
) -> Result<(), Violation> {
    sc.listed.sort_unstable();
    sc.plain.sort_unstable();
    if sc.listed != sc.plain {
        return fail(
            Clause::RankLists,
            format!(
                "{method} of {} gives {:?}, ranking {what} gives {:?}",
                g.format_pos(x),
                sc.listed,
                sc.plain
            ),
        );
    }
    Ok(())
}

/// Check solved values (`tables`, every tier of a closed subset, e.g. from
/// [`solve_in_memory`](crate::solver::solve_in_memory)): for the walked slots
/// of every tier, the value derived from the moves of each symmetry image
/// of the slot's position equals the stored value. Returns the images checked.
///
/// # Errors
///
/// The first [`Violation`] ([`Clause::Values`]): a walked slot whose
/// stored value differs from the one derived from its position's moves.
pub fn check_values<G: Game>(
    g: &G,
    tables: &HashMap<TierKey, Vec<Packed>>,
    scope: &Scope,
) -> Result<u64, Violation> {
    let lookup = |q: &G::Pos| -> Option<Value> {
        let t = g.tier_of(q);
        Value::unpack(*tables.get(&t)?.get(g.rank(t, q) as usize)?)
    };
    let mut checked = 0;
    for t in g.tiers(scope.max_pieces) {
        let Some(values) = tables.get(&t) else {
            return fail(
                Clause::Values,
                format!("tier {} is not solved", g.tier_name(t)),
            );
        };
        let (slots, _) = slots_of(values.len() as u64, t, scope);
        checked += slots
            .par_chunks(1 << 10)
            .map(|chunk| {
                let mut images = Vec::new();
                let mut moves = Vec::new();
                let mut n = 0u64;
                for &i in chunk {
                    let p = g.unrank(t, i);
                    if g.rank(t, &p) != i {
                        continue;
                    }
                    let stored = Value::unpack(values[i as usize]);
                    images.clear();
                    g.symmetry_images(&p, &mut images);
                    for q in &images {
                        let derived = derive_value(g, q, &lookup, &mut moves);
                        if derived != stored {
                            return fail(
                                Clause::Values,
                                format!(
                                    "{} (image of {}, slot {i} of tier {}): derived {derived:?}, stored {stored:?}",
                                    g.format_pos(q),
                                    g.format_pos(&p),
                                    g.tier_name(t)
                                ),
                            );
                        }
                        n += 1;
                    }
                }
                Ok(n)
            })
            .try_reduce(|| 0, |a, b| Ok(a + b))?;
    }
    Ok(checked)
}

/// What is wrong with a move's [`MovePoints`](crate::game::MovePoints).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PointsFault {
    /// The move names no `from` or no `to`.
    NoFromOrTo,
    /// `from` holds no piece before the move, or is not empty after it.
    FromNotLeaving {
        /// The point.
        from: usize,
    },
    /// `to` does not hold the moved piece after the move.
    ToNotReceiving {
        /// The point.
        to: usize,
    },
    /// A point named captured held no enemy piece, or is not empty after.
    NotCaptured {
        /// The point.
        point: usize,
    },
    /// A point changes but is not named.
    Unnamed {
        /// The point.
        point: usize,
    },
}

/// A move whose points disagree with what applying it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovePointsError {
    /// The position, in the game's notation.
    pub pos: String,
    /// The move, in the game's notation.
    pub mv: String,
    /// What is wrong.
    pub fault: PointsFault,
}

impl fmt::Display for MovePointsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in {}: ", self.mv, self.pos)?;
        match self.fault {
            PointsFault::NoFromOrTo => f.write_str("a move without from or to"),
            PointsFault::FromNotLeaving { from } => {
                write!(f, "from {from} is not a piece that leaves")
            }
            PointsFault::ToNotReceiving { to } => {
                write!(f, "to {to} does not receive the piece")
            }
            PointsFault::NotCaptured { point } => {
                write!(f, "{point} is no captured enemy piece")
            }
            PointsFault::Unnamed { point } => {
                write!(f, "point {point} changes but is not named")
            }
        }
    }
}

impl std::error::Error for MovePointsError {}

/// Check [`Notation::move_points`](crate::game::Notation::move_points)
/// against [`Rules::apply`](crate::game::Rules::apply) for every legal move
/// of `p`: the points that change between the boards before and after the
/// move are exactly `from` (left empty), `to` (now holding the piece that
/// stood on `from`) and the captured points (an enemy piece before, empty
/// after unless it is `to`). Returns the number of moves checked and how
/// many of them captured.
///
/// # Errors
///
/// A [`MovePointsError`] naming the position, the move and the mismatch.
pub fn check_move_points<G: Game>(g: &G, p: &G::Pos) -> Result<(usize, usize), MovePointsError> {
    let mut moves = Vec::new();
    if g.rule_end(p).is_none() {
        g.moves(p, &mut moves);
    }
    let before = g.occupancy(p);
    let mut captures = 0;
    for m in &moves {
        let after = g.occupancy(&g.apply(p, m));
        let mp = g.move_points(p, m);
        let fail = |fault| MovePointsError {
            pos: g.format_pos(p),
            mv: g.format_move(m),
            fault,
        };
        let (Some(f), Some(t)) = (mp.from, mp.to) else {
            return Err(fail(PointsFault::NoFromOrTo));
        };
        let piece = before[f];
        if piece == '.' || after[f] != '.' {
            return Err(fail(PointsFault::FromNotLeaving { from: f }));
        }
        if after[t] != piece || (before[t] != '.' && !mp.captured.contains(&t)) {
            return Err(fail(PointsFault::ToNotReceiving { to: t }));
        }
        for &c in &mp.captured {
            if before[c] == '.' || before[c] == piece || (c != t && after[c] != '.') {
                return Err(fail(PointsFault::NotCaptured { point: c }));
            }
        }
        for i in 0..before.len() {
            if i != f && i != t && !mp.captured.contains(&i) && before[i] != after[i] {
                return Err(fail(PointsFault::Unnamed { point: i }));
            }
        }
        if !mp.captured.is_empty() {
            captures += 1;
        }
    }
    Ok((moves.len(), captures))
}

/// [`check_move_points`] on every position of `games` random games of at
/// most `plies` plies from the start (seeded `seed`); the totals of moves
/// checked and of captures.
///
/// # Errors
///
/// As [`check_move_points`].
pub fn check_move_points_in_play<G: Game>(
    g: &G,
    games: usize,
    plies: usize,
    seed: u64,
) -> Result<(usize, usize), MovePointsError> {
    let mut rng = Rng::new(seed);
    let (mut n, mut caps) = (0, 0);
    let mut moves = Vec::new();
    for _ in 0..games {
        let mut p = g.start();
        for _ in 0..plies {
            let (a, b) = check_move_points(g, &p)?;
            n += a;
            caps += b;
            moves.clear();
            if g.rule_end(&p).is_some() {
                break;
            }
            g.moves(&p, &mut moves);
            if moves.is_empty() {
                break;
            }
            let i = rng.below(moves.len());
            p = g.apply(&p, &moves[i]);
        }
    }
    Ok((n, caps))
}
