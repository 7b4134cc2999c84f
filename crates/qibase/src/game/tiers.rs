//! [`Tiers`]: what the solver and the tablebase need to know of a game.

use std::ops::Range;

use super::{Rules, TierKey};

/// A game's tiers and their dense numbering, its un-moves and symmetries,
/// and the identity recorded in tablebase headers. The solver is bound on
/// this trait alone; it needs [`Rules`] (a supertrait) for the end rules
/// of each position and, through the default rank lists, its moves.
///
/// Required: the identity, the tier structure, `rank`/`unrank` and
/// `unmoves`. Optional, with stated defaults: the rank-list fast paths
/// ([`used_slots`](Self::used_slots), [`child_ranks`](Self::child_ranks),
/// [`lower_child_ranks`](Self::lower_child_ranks),
/// [`in_tier_children_may_share_slots`](Self::in_tier_children_may_share_slots),
/// [`unmove_ranks`](Self::unmove_ranks),
/// [`slot_unmove_ranks`](Self::slot_unmove_ranks)), each only an optimisation that
/// must give what its default gives (the contract checker compares them),
/// and the symmetries the numbering identifies.
/// The contract between the methods is stated on [`Game`](super::Game).
pub trait Tiers: Rules {
    // ----- identity, for tablebase files -------------------------------------

    /// Game id as used on the command line, e.g. `cannon-chess`; names the
    /// tablebase directory.
    fn id(&self) -> &str;
    /// The full parameter set of the rules as a canonical variant string
    /// (`GAME:key=value,…`, keys sorted, defaults dropped; a preset is just
    /// its id). Recorded in every tier header.
    fn variant_spec(&self) -> String {
        self.id().to_string()
    }
    /// A stable 64-bit hash of everything that defines the rules (board,
    /// material, setup, rule switches); tablebases record it so a table of
    /// other rules is refused.
    fn rules_hash(&self) -> u64;

    // ----- tiers --------------------------------------------------------------

    /// The tiers of the closed subset in which no side has more than
    /// `max_pieces` pieces (for the cannon games: at most that many
    /// soldiers); `None` means the full game. Ordered so that every tier
    /// comes after all of its `tier_deps`.
    fn tiers(&self, max_pieces: Option<u32>) -> Vec<TierKey>;
    /// File-name friendly tier name, e.g. `k12` or `6v5`.
    fn tier_name(&self, t: TierKey) -> String;
    /// The tier holding `p`.
    fn tier_of(&self, p: &Self::Pos) -> TierKey;
    /// Largest piece count of one side in the tier (soldier count for the
    /// cannon games), as compared with `--max-pieces`.
    fn tier_max_pieces(&self, t: TierKey) -> u32;
    /// Number of index slots of the tier.
    fn tier_size(&self, t: TierKey) -> u64;
    /// Number of positions of the tier: every placement of its material,
    /// both sides to move, counted without symmetry reduction (so it can be
    /// larger than `tier_size`). Default: `tier_size` (no reduction).
    fn tier_positions(&self, t: TierKey) -> u64 {
        self.tier_size(t)
    }
    /// The tiers that one move (a capture) can lead to from this tier.
    fn tier_deps(&self, t: TierKey) -> Vec<TierKey>;

    // ----- dense numbering and un-moves ---------------------------------------

    /// Dense index of `p` inside tier `t` (`t == tier_of(p)`).
    fn rank(&self, t: TierKey, p: &Self::Pos) -> u64;
    /// The position in slot `i` of tier `t`.
    fn unrank(&self, t: TierKey, i: u64) -> Self::Pos;
    /// Predecessors inside the same tier (see the contract on
    /// [`Game`](super::Game)), appended to `out`. Duplicates are allowed;
    /// the solver removes them.
    fn unmoves(&self, p: &Self::Pos, out: &mut Vec<Self::Pos>);

    // ----- optional fast paths of the solver ----------------------------------

    /// The used slots among indices `range` of tier `t` with their
    /// positions, appended to `out` in increasing index order (the caller
    /// clears and reuses `out`). The default unranks every slot and keeps
    /// those that rank back to themselves; a game whose numbering knows its
    /// canonical classes can enumerate them without the round trip.
    fn used_slots(&self, t: TierKey, range: Range<u64>, out: &mut Vec<(u64, Self::Pos)>) {
        for i in range {
            let p = self.unrank(t, i);
            if self.rank(t, &p) == i {
                out.push((i, p));
            }
        }
    }

    /// The child of every legal move of `p` (which has no rule end) as
    /// (tier, rank in that tier), appended to `out`; `moves` is scratch.
    /// An empty list means no legal move. The default applies and ranks
    /// each move ([`child_ranks_by_moves`]); a game may share work between
    /// children, e.g. rank a move of one kind of piece from what stays
    /// fixed (the contract checker compares the list with the default's,
    /// as a multiset).
    // Always inlined into the solver's 32- and 64-bit slot paths alike.
    #[inline(always)]
    fn child_ranks(
        &self,
        p: &Self::Pos,
        moves: &mut Vec<Self::Move>,
        out: &mut Vec<(TierKey, u64)>,
    ) {
        child_ranks_by_moves(self, p, moves, out)
    }

    /// The lower-tier children of `p` (which has no rule end) as (tier,
    /// rank), appended to `out`, and the number of its in-tier moves
    /// returned: [`child_ranks`](Self::child_ranks) without ranking the
    /// in-tier children, which matters when they are known to have
    /// distinct slots ([`in_tier_children_may_share_slots`]). The default
    /// takes it from `child_ranks`.
    ///
    /// [`in_tier_children_may_share_slots`]: Self::in_tier_children_may_share_slots
    fn lower_child_ranks(
        &self,
        p: &Self::Pos,
        moves: &mut Vec<Self::Move>,
        out: &mut Vec<(TierKey, u64)>,
    ) -> usize {
        let t = self.tier_of(p);
        let start = out.len();
        self.child_ranks(p, moves, out);
        let mut in_tier = 0;
        let mut k = start;
        for j in start..out.len() {
            if out[j].0 == t {
                in_tier += 1;
            } else {
                out[k] = out[j];
                k += 1;
            }
        }
        out.truncate(k);
        in_tier
    }

    /// False if no two in-tier moves of `p` lead to the same slot, so that
    /// their number is the number of distinct in-tier child slots (the
    /// solver's counter) without ranking them. The default, true, is
    /// always safe; the contract checker checks a false.
    fn in_tier_children_may_share_slots(&self, p: &Self::Pos) -> bool {
        let _ = p;
        true
    }

    /// Which of tier `t`'s two halves slot `i` is in, for a tier that
    /// splits in two halves such that every move staying in the tier leads
    /// from one half to the other (in effect, by the side to move). The
    /// compact tablebase format keeps the remoteness of one half only and
    /// recovers the other half's by a one-ply search. `None` (the
    /// default): the tier has no such halves, and the compact format keeps
    /// the remoteness of every slot. Lookups call it: it must be cheap. The
    /// contract checker checks that in-tier moves change the half.
    #[inline]
    fn slot_half(&self, t: TierKey, i: u64) -> Option<bool> {
        let _ = (t, i);
        None
    }

    /// The ranks in tier `t` of the [`unmoves`](Self::unmoves) of `p`,
    /// appended to `out`; `parents` is scratch. Duplicates are allowed.
    /// The default ranks each un-move ([`unmove_ranks_by_unmoves`]); a
    /// game may share work between them (checked like
    /// [`child_ranks`](Self::child_ranks)).
    // Always inlined into the solver's 32- and 64-bit slot paths alike.
    #[inline(always)]
    fn unmove_ranks(
        &self,
        t: TierKey,
        p: &Self::Pos,
        parents: &mut Vec<Self::Pos>,
        out: &mut Vec<u64>,
    ) {
        unmove_ranks_by_unmoves(self, t, p, parents, out)
    }

    /// [`unmove_ranks`](Self::unmove_ranks) of the position in the used
    /// slot `i` of tier `t`, which is what the solver's backward pass
    /// holds: a game may rank the parents from the slot's index rather
    /// than from the position (one piece's un-move changes one term of
    /// it). Returns whether the list may hold a rank twice; `false`
    /// promises distinct ranks, which spares the solver removing
    /// duplicates. The default unranks and returns `true`.
    // Always inlined into the solver's 32- and 64-bit slot paths alike.
    #[inline(always)]
    fn slot_unmove_ranks(
        &self,
        t: TierKey,
        i: u64,
        parents: &mut Vec<Self::Pos>,
        out: &mut Vec<u64>,
    ) -> bool {
        let p = self.unrank(t, i);
        self.unmove_ranks(t, &p, parents, out);
        true
    }

    // ----- symmetry -----------------------------------------------------------

    /// Appends `p` and its images under every symmetry of the rules that the
    /// numbering identifies (board maps, the colour exchange): positions
    /// with the value and the rank of `p`. Duplicates are allowed. Default:
    /// no symmetry, `p` alone.
    fn symmetry_images(&self, p: &Self::Pos, out: &mut Vec<Self::Pos>) {
        out.push(*p);
    }

    /// How many positions share the slot of `p`: its distinct
    /// [`symmetry_images`](Self::symmetry_images). Summed over the used slots
    /// of a tier this is `tier_positions`.
    fn orbit_size(&self, p: &Self::Pos) -> u64 {
        let mut images = Vec::new();
        self.symmetry_images(p, &mut images);
        (0..images.len())
            .filter(|&k| !images[..k].contains(&images[k]))
            .count() as u64
    }
}

/// [`Tiers::child_ranks`] the plain way: apply and rank every legal move
/// (for games overriding it on some positions only).
pub fn child_ranks_by_moves<G: Tiers + ?Sized>(
    g: &G,
    p: &G::Pos,
    moves: &mut Vec<G::Move>,
    out: &mut Vec<(TierKey, u64)>,
) {
    moves.clear();
    g.moves(p, moves);
    for m in moves.iter() {
        let c = g.apply(p, m);
        let ct = g.tier_of(&c);
        out.push((ct, g.rank(ct, &c)));
    }
}

/// [`Tiers::unmove_ranks`] the plain way: rank every un-move.
pub fn unmove_ranks_by_unmoves<G: Tiers + ?Sized>(
    g: &G,
    t: TierKey,
    p: &G::Pos,
    parents: &mut Vec<G::Pos>,
    out: &mut Vec<u64>,
) {
    parents.clear();
    g.unmoves(p, parents);
    out.extend(parents.iter().map(|q| g.rank(t, q)));
}
