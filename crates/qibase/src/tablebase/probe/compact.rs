//! Lookups in compact tiers: settling with the game's moves what a
//! compact file leaves out (see `docs/tablebase-format.md`, "Reading").
//!
//! A compact file stores, for a slot whose best capture decides its value,
//! any value no better than the true one, and for the half of a tier whose
//! remoteness is not kept, only the WDL. So a lookup may need the values
//! of the position's captures, whose tiers may be compact too, and so on
//! down the captures. These searches are bounded the way a capture search
//! is pruned (as Syzygy's probes are): the stored value is read first,
//! and a capture is looked at only if it could still beat it, and only as
//! far as it could. What a lookup mostly needs is a yes or no ("is this
//! capture a loss for the opponent?"), and the stored value answers most
//! of those without any move: a stored win is at least a win, a stored
//! draw or win is not a loss.

use super::{Source, Tablebase};
use crate::game::{Game, TierKey};
use crate::tablebase::compact::CompactFile;
use crate::tablebase::TbError;
use crate::value::{Value, Wdl};

/// Win, draw, loss as 1, 0, -1 (their order).
fn wdl_rank(w: Wdl) -> i8 {
    match w {
        Wdl::Loss => -1,
        Wdl::Draw => 0,
        Wdl::Win => 1,
    }
}

impl<'g, G: Game> Tablebase<'g, G> {
    /// The children of `p` by `moves` (`p` in tier `t`), each marked as a
    /// capture (a move that leaves the tier) or not.
    fn children(&self, p: &G::Pos, t: TierKey, moves: &[G::Move]) -> Vec<(G::Pos, bool)> {
        let g = self.game();
        moves
            .iter()
            .map(|m| {
                let q = g.apply(p, m);
                let capture = g.tier_of(&q) != t;
                (q, capture)
            })
            .collect()
    }

    /// The moves of `p`, which the rules do not end.
    fn moves_of(&self, p: &G::Pos) -> Vec<G::Move> {
        // Room for the moves of any position of these games at once: a
        // growing vector reallocates three or four times per lookup.
        let mut moves = Vec::with_capacity(64);
        self.game().moves(p, &mut moves);
        moves
    }

    /// The WDL of `p` as -1, 0, 1 (side to move's view), searched within
    /// the window `(alpha, beta)` with `alpha < beta`: exact when it lies
    /// inside, else at most `alpha` or at least `beta` (fail-hard). The
    /// stored symbol is a lower bound (the stand-pat of a capture search):
    /// the true value is the better of it and the best capture.
    fn wdl_within(&self, p: &G::Pos, mut alpha: i8, beta: i8) -> Result<i8, TbError> {
        let g = self.game();
        let t = g.tier_of(p);
        let c = match self.source(t)? {
            Source::Fast(f) => return Ok(wdl_rank(f.get_wdl(g.rank(t, p))?)),
            Source::Compact(c) => c,
        };
        if let Some(end) = g.rule_end(p) {
            return Ok(wdl_rank(end.value.wdl()));
        }
        // Every other slot stores at most its true value (a position with
        // no legal move its loss exactly), so the stored symbol can cut
        // the search before any move is generated.
        let stored = wdl_rank(c.wdl_at(g, g.rank(t, p))?);
        if stored >= beta {
            return Ok(stored);
        }
        alpha = alpha.max(stored);
        let moves = self.moves_of(p);
        for (q, capture) in &self.children(p, t, &moves) {
            if !*capture {
                continue;
            }
            let v = -self.wdl_within(q, -beta, -alpha)?;
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
        Ok(alpha)
    }

    /// The WDL of `p` (any tier), exact.
    fn wdl_of(&self, p: &G::Pos) -> Result<i8, TbError> {
        self.wdl_within(p, -1, 1)
    }

    /// The WDL of `p` in compact tier `t`: the rules, else the better of
    /// its stored symbol and its best capture, the captures searched only
    /// as far as they could beat the stored symbol.
    pub(super) fn compact_wdl(&self, p: &G::Pos) -> Result<Wdl, TbError> {
        Ok(match self.wdl_of(p)? {
            -1 => Wdl::Loss,
            0 => Wdl::Draw,
            _ => Wdl::Win,
        })
    }

    /// The best value of the moves to `children` from the mover's view, or
    /// `None` without children, or when it cannot beat `floor` (then the
    /// caller keeps `floor`). A child whose file holds its full value is
    /// read whole (one block read); for the others the WDL comes first,
    /// and full values are read only for those that decide: the quickest
    /// of the losses (a win for the mover), or, when every child wins, the
    /// slowest of them.
    fn best_move<'a>(
        &self,
        children: impl Iterator<Item = &'a G::Pos>,
        floor: Option<Value>,
    ) -> Result<Option<Value>, TbError>
    where
        G::Pos: 'a,
    {
        let floor_rank = floor.map_or(-1, |f| wdl_rank(f.wdl()));
        let mut known: Option<Value> = None;
        // The other children with their class from the mover's view (0
        // loss, 1 draw, 2 win): one vector, sized once.
        let children = children.into_iter();
        let mut searched_kids: Vec<(usize, &G::Pos)> =
            Vec::with_capacity(children.size_hint().1.unwrap_or(16));
        for q in children {
            if self.stores_full_value(q)? {
                let v = Value::of_move_to(self.probe(q)?);
                known = Some(known.map_or(v, |b| b.max(v)));
            } else {
                // Only a class at least the floor's can beat it.
                let v = -self.wdl_within(q, -2, 1 - floor_rank)?;
                searched_kids.push(((v.clamp(-1, 1) + 1) as usize, q));
            }
        }
        let searched = searched_kids.iter().map(|&(k, _)| k).max();
        let known_class = known.map(|v| (wdl_rank(v.wdl()) + 1) as usize);
        let Some(k) = searched.max(known_class) else {
            return Ok(None);
        };
        if (k as i8 - 1) < floor_rank {
            return Ok(None);
        }
        let mut best = known.filter(|v| (wdl_rank(v.wdl()) + 1) as usize == k);
        if k == 1 {
            best = Some(Value::Draw);
        } else {
            for (_, q) in searched_kids.iter().filter(|&&(c, _)| c == k) {
                let v = Value::of_move_to(self.probe(q)?);
                best = Some(best.map_or(v, |b| b.max(v)));
            }
        }
        Ok(best.filter(|&b| floor.is_none_or(|f| b > f)))
    }

    /// The value of `p` in compact tier `t`: the rules; in a tier without
    /// halves, the better of the stored value and the best capture; in the
    /// kept half of a tier, the stored value, which is exact for a win or
    /// a draw, and for a loss unless a capture draws; in the other half,
    /// the best of its moves (one ply: the moves that stay in the tier land
    /// in the kept half).
    pub(super) fn compact_value(
        &self,
        p: &G::Pos,
        t: TierKey,
        c: &CompactFile,
    ) -> Result<Value, TbError> {
        let g = self.game();
        if let Some(end) = g.rule_end(p) {
            return Ok(end.value);
        }
        let i = g.rank(t, p);
        let halves = c.header().kept_half.is_some();
        if halves && !c.keeps(g, i) {
            let moves = self.moves_of(p);
            let kids = self.children(p, t, &moves);
            let best = self.best_move(kids.iter().map(|(q, _)| q), None)?;
            return Ok(best.unwrap_or(Value::Loss(0)));
        }
        // A position with no legal move stores its loss in 0 exactly.
        let stored = Value::unpack(c.value_at(g, i)?)
            .ok_or_else(|| c.corrupt_slot(i, "a kept win or loss without its remoteness"))?;
        // In a kept half, a capture-decided win or loss is stored exactly
        // (see the encoder), so only a stored loss can hide a better
        // capture, a draw: a stored win or draw needs no move.
        if halves && stored.wdl() != Wdl::Loss {
            return Ok(stored);
        }
        let moves = self.moves_of(p);
        let kids = self.children(p, t, &moves);
        let captures = kids.iter().filter(|(_, x)| *x).map(|(q, _)| q);
        if !halves {
            return Ok(self.best_move(captures, Some(stored))?.unwrap_or(stored));
        }
        // A stored loss in a kept half is exact unless a capture draws,
        // which the captures' WDL tell (their full values could each take
        // a search of their own).
        let mut best = -1;
        for q in captures.clone() {
            best = best.max(-self.wdl_within(q, -2, 2)?);
        }
        Ok(match best {
            -1 => stored,
            0 => Value::Draw,
            _ => self.best_move(captures, None)?.unwrap_or(stored),
        })
    }
}
