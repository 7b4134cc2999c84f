//! Per-game knowledge the report needs beyond the [`Game`] trait.
//!
//! What a tablebase slot stands for differs by game, and the report counts
//! *positions* (a board, a side to move and, in weiming, the lock flag):
//!
//! * weiming: one slot is one position;
//! * cannon chess: a slot is a placement (pieces of the side to move, pieces
//!   of the other side) and stands for two positions, X to move and the colour
//!   swap with O to move, of equal value. These are the slot's two *variants*;
//! * the cannon games: a slot is an orbit of positions under the 8 symmetries
//!   of the board and stands for as many positions as the orbit has members.
//!
//! How many positions a slot stands for is the game's own answer
//! ([`Tiers::orbit_size`](qibase::Tiers::orbit_size)); the report only splits it over the variants.

use std::fmt::Write as _;

use super::markdown::{int, verdict};
use super::{Probe, ReportOptions};
use qibase::games::cannon_chess::CannonChess;
use qibase::games::cannons::{Cannons, CannonsPos};
use qibase::games::weiming::Weiming;
use qibase::games::Describe;
use qibase::tablebase::TierStore;
use qibase::Value;
use qibase::{Notation, Rules, Side, Tiers};

/// The report's view of a game: its words on top of the game's rules
/// facts ([`Describe`]).
pub trait ReportGame: Describe {
    /// What is counted, for the report's notes.
    fn counting_note(&self) -> String;

    /// The two classes compared by the heat map.
    /// Default: won vs lost for the side to move.
    fn heat_classes(&self) -> [&'static str; 2] {
        ["won for the side to move", "lost for the side to move"]
    }
    /// Which class a position of value `v` belongs to, if any.
    fn heat_class(&self, _p: &Self::Pos, v: Value) -> Option<usize> {
        match v {
            Value::Win(_) => Some(0),
            Value::Loss(_) => Some(1),
            Value::Draw => None,
        }
    }
    /// Point counts summed over representatives only, spread over each
    /// orbit of the board's symmetries (identity without them).
    fn symmetrize(&self, counts: &[f64]) -> Vec<f64> {
        let maps = self.point_maps();
        if maps.is_empty() {
            return counts.to_vec();
        }
        symmetrize_by(&maps, counts)
    }

    /// Game-specific sections (markdown), e.g. other setups or boards.
    fn extra_sections(&self, _probe: &Probe<Self>, _opts: &ReportOptions) -> Result<String, String>
    where
        Self: Sized,
    {
        Ok(String::new())
    }
}

/// Point counts averaged over the images of each point under `maps` (the
/// board symmetries the numbering identifies positions by).
fn symmetrize_by(maps: &[Vec<u32>], counts: &[f64]) -> Vec<f64> {
    (0..counts.len())
        .map(|q| maps.iter().map(|m| counts[m[q] as usize]).sum::<f64>() / maps.len() as f64)
        .collect()
}

impl ReportGame for Weiming {
    fn counting_note(&self) -> String {
        "Every slot of the weiming table is one position (board, side to move, lock flag); \
         no symmetry is used, so counts are exact position counts."
            .into()
    }
}

impl ReportGame for CannonChess {
    fn counting_note(&self) -> String {
        let mut s = String::from(
            "A tablebase slot is a placement of the pieces of the side to move and of the other side, \
             colours ignored: it stands for two positions, one with X to move and the one with the colours \
             of all pieces exchanged and O to move, which have the same value. Position counts below count \
             both; the per-side tables show that X-to-move and O-to-move counts are equal. Reachability \
             tells the two apart: a slot counts once for each colour with which it can arise from the start.",
        );
        let used = self.symmetry_count();
        if used > 1 {
            s.push_str(&format!(
                " The table also identifies placements that are mirror or rotation images of each other \
                 ({} board symmetries): every count weights a slot by the size of its orbit, and a position \
                 counts as reachable if it or one of its images can arise from the start.",
                used
            ));
        }
        s
    }
    fn extra_sections(&self, probe: &Probe<Self>, opts: &ReportOptions) -> Result<String, String> {
        let dir = opts.compare_dir.as_ref().unwrap_or(&opts.dir);
        let mut md = String::new();
        // The two preset boards, standard first; this game stands in for
        // the preset of its own rules, and a game of other rules comes first.
        let presets = [CannonChess::standard(), CannonChess::four_by_four()];
        let own = presets.iter().any(|g| g.rules_hash() == self.rules_hash());
        // A game on a board of its own (5 × 5, 6 × 5 …) is compared with
        // both presets; one on a preset board compares the two boards.
        let preset_board = presets.iter().any(|g| g.board_desc() == self.board_desc());
        if preset_board {
            let _ = writeln!(md, "## The 4 × 4 board against the 5 × 4 board\n");
            let _ = writeln!(
                md,
                "The same rules and setup on the two boards (the 4 × 4 board has no empty rank between the camps).\n"
            );
        } else {
            let _ = writeln!(md, "## This game against the two preset boards\n");
            let _ = writeln!(
                md,
                "This game beside the original 5 × 4 board and the 4 × 4 board of 六子冲, each with its own rules and setup.\n"
            );
        }
        let _ = writeln!(
            md,
            "| game | board | start | positions | start value | meaning |"
        );
        let _ = writeln!(md, "|---|---|---|---:|---|---|");
        let mine = probe.value(&self.start())?;
        let mut missing = Vec::new();
        let row = |g: &CannonChess, v: Option<Value>, positions: Option<u64>| {
            let s = g.start();
            format!(
                "| `{}` | {} | `{}` | {} | {} | {} |",
                g.id(),
                g.board_desc(),
                g.format_pos(&s),
                positions.map_or("–".into(), int),
                v.map_or("not solved here".into(), |v| format!("**{v}**")),
                v.map_or("–".into(), |v| verdict(g, g.side_to_move(&s), v))
            )
        };
        let positions = |g: &CannonChess, d: &std::path::Path| -> Option<u64> {
            let mut n = 0;
            let store = TierStore::new(g, d);
            for t in g.tiers(None) {
                store.meta(t).ok()?;
                n += g.tier_positions(t);
            }
            Some(n)
        };
        if !own {
            let _ = writeln!(md, "{}", row(self, Some(mine), positions(self, &opts.dir)));
        }
        for other in &presets {
            if other.rules_hash() == self.rules_hash() {
                let _ = writeln!(md, "{}", row(self, Some(mine), positions(self, &opts.dir)));
                continue;
            }
            let theirs = positions(other, dir).and_then(|_| {
                let s = other.start();
                let t = other.tier_of(&s);
                let values = TierStore::new(other, dir).load(t).ok()?;
                Value::unpack(values[other.rank(t, &s) as usize])
            });
            let _ = writeln!(md, "{}", row(other, theirs, positions(other, dir)));
            if theirs.is_none() {
                missing.push(other.id().to_string());
            }
        }
        let _ = writeln!(md);
        for id in missing {
            let _ = writeln!(
                md,
                "The tablebase of `{id}` was not available when this report was generated.\n"
            );
        }
        Ok(md)
    }
}

impl ReportGame for Cannons {
    fn counting_note(&self) -> String {
        "A tablebase slot is one orbit of positions under the 8 symmetries of the square board \
         (rotations and reflections); every count below weights a slot by the size of its orbit, \
         so it counts positions (board and side to move). Reachability is computed on orbits: a \
         position counts as reachable if it or one of its mirror or rotation images can arise \
         from the start."
            .into()
    }
    fn heat_classes(&self) -> [&'static str; 2] {
        ["won for the cannons", "won for the soldiers"]
    }
    fn heat_class(&self, p: &CannonsPos, v: Value) -> Option<usize> {
        let cannons_move = p.side == Side::First;
        match (v, cannons_move) {
            (Value::Draw, _) => None,
            (Value::Win(_), true) | (Value::Loss(_), false) => Some(0),
            _ => Some(1),
        }
    }
    fn extra_sections(&self, probe: &Probe<Self>, _opts: &ReportOptions) -> Result<String, String> {
        // The original setup question is about the 5 × 5 board with two
        // cannons and twelve soldiers.
        let original_board = (self.width(), self.height(), self.cannon_count()) == (5, 5, 2);
        if !original_board || self.max_soldiers() < 12 {
            return Ok(String::new());
        }
        let mut md = String::new();
        let _ = writeln!(md, "## The start under each plausible setup\n");
        let _ = writeln!(
            md,
            "The original setup text is ambiguous (\"12 soldiers fill the top two rows\" does not fit a board \
             five points wide). Every reading keeps ranks 4 and 5 full of soldiers, two more soldiers on \
             rank 3, the two cannons on rank 1 and rank 2 empty. Listed: the two soldier pairs on rank 3 \
             that are symmetric (a3+e3, b3+d3) against the cannon pairs on rank 1 that are symmetric \
             (a1+e1, b1+d1) and b1+c1, which is three-cannons (cannons b1 c1 d1) minus an end cannon \
             instead of the middle one (c1+d1 is its mirror image, with the same value). Cannons to move. \
             The setup qibase plays is marked.\n"
        );
        let _ = writeln!(
            md,
            "| rank-3 soldiers | cannons | position | value | meaning |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|");
        for (sname, r3) in [("a3 e3", "S...S"), ("b3 d3", ".S.S.")] {
            for (cname, r1) in [("a1 e1", "C...C"), ("b1 d1", ".C.C."), ("b1 c1", ".CC..")] {
                let text = format!("SSSSS/SSSSS/{r3}/...../{r1} C");
                let p = self.parse_pos(&text).map_err(|e| e.to_string())?;
                let v = probe.value(&p)?;
                let mark = if p == self.start() {
                    " (qibase's setup)"
                } else {
                    ""
                };
                let _ = writeln!(
                    md,
                    "| {sname} | {cname}{mark} | `{text}` | **{v}** | {} |",
                    verdict(self, Side::First, v)
                );
            }
        }
        let _ = writeln!(md);
        Ok(md)
    }
}

const COMMON_RULES: &str = "\
Common to all qibase games: the players alternate and must move (no passing); a player with \
no legal move on their turn loses; there is no repetition rule, so play that can go on forever \
under best play is a **draw**. Values are from the side to move: `win N` / `loss N` with N the \
remoteness in plies (the winner hurries, the loser delays), `loss 0` when the side to move has \
already lost. The original games' turn timer and difficulty levels belong to play mode only.";

/// The common rules paragraph, shown after each game's rules.
pub fn common_rules() -> &'static str {
    COMMON_RULES
}

#[cfg(test)]
mod tests {
    use super::*;
    use qibase::games::AnyGame;
    use qibase::with_game;

    /// The reachability search's children (the solver's child ranks and
    /// `child_variant`) are exactly the children of applying every move
    /// and ranking it, with the variant of each child, on a spread of
    /// positions of every tier of every game.
    #[test]
    fn child_keys_match_applied_moves() {
        for id in qibase::games::GAME_IDS
            .iter()
            .copied()
            .chain(["cannon-chess:board=5x5,pieces=3"])
        {
            let any = AnyGame::from_id(id).unwrap();
            with_game!(any, |g| check_children(g, id));
        }
    }

    fn check_children<G: ReportGame>(g: &G, id: &str) {
        let mut moves = Vec::new();
        let mut children = Vec::new();
        let mut checked = 0;
        for t in g.tiers(None) {
            let n = g.tier_size(t);
            // Up to 200 slots spread over the tier.
            for k in 0..200u64.min(n) {
                let i = k * n / 200u64.min(n);
                let p0 = g.unrank(t, i);
                if g.rank(t, &p0) != i {
                    continue;
                }
                for v in 0..g.variants() {
                    let p = g.with_variant(&p0, v);
                    if g.rule_end(&p).is_some() {
                        continue;
                    }
                    let key = |q: &G::Pos| {
                        let tq = g.tier_of(q);
                        (
                            tq,
                            g.rank(tq, q) * u64::from(g.variants()) + u64::from(g.variant(q)),
                        )
                    };
                    moves.clear();
                    g.moves(&p, &mut moves);
                    let mut want: Vec<_> = moves.iter().map(|m| key(&g.apply(&p, m))).collect();
                    children.clear();
                    g.child_ranks(&p, &mut moves, &mut children);
                    let vq = u64::from(g.child_variant(v));
                    let mut got: Vec<_> = children
                        .iter()
                        .map(|&(tq, rq)| (tq, rq * u64::from(g.variants()) + vq))
                        .collect();
                    want.sort_unstable();
                    got.sort_unstable();
                    assert_eq!(got, want, "{id}: {}", g.format_pos(&p));
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{id}: only {checked} positions checked");
    }
}
