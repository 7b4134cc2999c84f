//! The game API: everything a generic solver, the tablebase reader and the
//! CLI need to know about a game, and nothing more.
//!
//! Modelled on GamesmanOne's split between a game API and a generic tier
//! solver: a game knows its rules, its notation and how to number its
//! positions densely inside each *tier* (a material class closed under
//! non-capturing moves); the solver knows no game.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::Range;

use crate::value::Value;

/// The two players. `First` moves first from the start position
/// (`X` in the cannon-chess and weiming games, the cannons in the cannon games).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Side {
    First,
    Second,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }
}

/// Why a game ended (for messages and reports).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EndReason {
    /// The side to move has no pieces left (cannon chess).
    AllCaptured,
    /// The opponent of the side to move has no pieces left; only reachable
    /// by placement, never by play (value `win 0`).
    OpponentHasNoPieces,
    /// Both sides are down to one piece (cannon chess): draw.
    BothOnePiece,
    /// The side to move has no legal move: it loses.
    NoLegalMove,
    /// Fewer soldiers remain than the threshold (4 in the presets): the
    /// cannons have won.
    SoldiersBelowFour,
    /// No cannon can move and the static reading of immobility is in force:
    /// the soldiers have won, whoever is to move.
    CannonsImmobile,
}

impl EndReason {
    pub fn describe(self) -> &'static str {
        match self {
            EndReason::AllCaptured => "all pieces of the side to move have been captured",
            EndReason::OpponentHasNoPieces => "the opponent has no pieces left",
            EndReason::BothOnePiece => "both sides are down to one piece",
            EndReason::NoLegalMove => "the side to move has no legal move",
            EndReason::SoldiersBelowFour => "too few soldiers remain",
            EndReason::CannonsImmobile => "no cannon can move",
        }
    }
}

/// The end of a game in a position: its value (side to move's view, always
/// remoteness 0 or draw) and why.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct GameEnd {
    pub value: Value,
    pub reason: EndReason,
}

/// A tier key, encoded by the game (e.g. soldier count, or piece counts).
/// Only the game interprets it; the solver treats it as an opaque id.
pub type TierKey = u32;

/// A game's rules, notation and position numbering.
///
/// Contract between the methods, relied on by the solver and by tests:
/// * `rank(tier_of(p), p)` is `< tier_size(tier_of(p))`, and
///   `rank(t, unrank(t, i)) == i` for every index `i` of every tier `t`
///   whose slot holds a position (with symmetry reduction a game may leave
///   unused slots: `rank(t, unrank(t, i)) != i` marks one, and positions
///   equivalent by symmetry share one rank).
/// * Every move from a position goes either to the same tier (a
///   non-capturing move) or to one of `tier_deps(tier)`.
/// * `unmoves(p)` lists every position `q` in `tier_of(p)` with no
///   `rule_end`, and a legal move `q -> p` (each such `q` at least once).
pub trait Game: Send + Sync {
    /// A compact position (bitboards), including the side to move and any
    /// other state the rules need (the weiming lock flag).
    type Pos: Copy + Eq + Hash + Debug + Send + Sync + 'static;
    /// A compact move.
    type Move: Copy + Eq + Debug + Send + Sync + 'static;

    // ----- identity -------------------------------------------------------

    /// Game id as used on the command line, e.g. `cannon-chess`.
    fn id(&self) -> &str;
    /// The full parameter set of the rules as a canonical variant string
    /// (`GAME:key=value,…`, keys sorted, defaults dropped; a preset is just
    /// its id). Recorded in every tier header.
    fn variant_spec(&self) -> String {
        self.id().to_string()
    }
    /// The family's disputed rule readings, as `key=value` switches that
    /// turn a preset's reading into another one (the report values the
    /// start under each). Default: none.
    fn rule_switches(&self) -> Vec<&'static str> {
        Vec::new()
    }
    /// Plausible start positions on this board and material, as (label,
    /// board part of a position), the rules' own setup first (the report
    /// values each; every position is solved, so no new tables are
    /// needed). Default: none known.
    fn plausible_setups(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// Human name, e.g. `Cannon Chess 5×4`.
    fn title(&self) -> &str;
    /// One line describing the board, e.g. `4 files × 5 ranks, 20 points`.
    fn board_desc(&self) -> String;
    /// One line describing the material, e.g. `X 6, O 6`.
    fn material_desc(&self) -> String;
    /// A stable 64-bit hash of everything that defines the rules (board,
    /// material, setup, rule switches); tablebases record it so a table of
    /// other rules is refused.
    fn rules_hash(&self) -> u64;
    /// Letter of each side in position strings (`X`/`O`, `C`/`S`).
    fn side_letter(&self, side: Side) -> char;

    // ----- positions and notation ----------------------------------------

    fn start(&self) -> Self::Pos;
    fn side_to_move(&self, p: &Self::Pos) -> Side;
    /// Parse a position string (RULES.md notation); the error says what is wrong.
    fn parse_pos(&self, s: &str) -> Result<Self::Pos, String>;
    fn format_pos(&self, p: &Self::Pos) -> String;
    /// A readable multi-line board diagram with coordinates; `last`, if
    /// given, is the move that led here and is marked.
    fn diagram(&self, p: &Self::Pos, last: Option<&Self::Move>) -> String;
    fn format_move(&self, m: &Self::Move) -> String;
    /// Names of all points of the board (for heat maps and reports), in the
    /// game's own point order.
    fn point_names(&self) -> Vec<String>;
    /// Which side's piece (if any) stands on each point, in `point_names` order,
    /// as the character used in position strings (`.` for empty).
    fn occupancy(&self, p: &Self::Pos) -> Vec<char>;

    /// Parse a move string against a position: a malformed string and an
    /// illegal move give different messages.
    fn parse_move(&self, p: &Self::Pos, s: &str) -> Result<Self::Move, String> {
        let mut moves = Vec::new();
        self.moves(p, &mut moves);
        let s = s.trim();
        moves
            .iter()
            .copied()
            .find(|m| self.format_move(m) == s)
            .ok_or_else(|| format!("illegal move '{s}' in this position"))
    }

    // ----- rules ----------------------------------------------------------

    /// The end by rule, if the game is over in `p` for a reason other than
    /// "no legal move" (which the caller sees as an empty move list).
    fn rule_end(&self, p: &Self::Pos) -> Option<GameEnd>;
    /// All legal moves, appended to `out` (which the caller clears and reuses,
    /// so move generation never allocates). Meaningless when `rule_end` is Some.
    fn moves(&self, p: &Self::Pos, out: &mut Vec<Self::Move>);
    /// The position after a legal move (captures applied, side switched).
    fn apply(&self, p: &Self::Pos, m: &Self::Move) -> Self::Pos;

    /// Rule end or "no legal move"; `None` if the game goes on.
    fn game_end(&self, p: &Self::Pos) -> Option<GameEnd> {
        if let Some(e) = self.rule_end(p) {
            return Some(e);
        }
        let mut moves = Vec::new();
        self.moves(p, &mut moves);
        if moves.is_empty() {
            Some(GameEnd {
                value: Value::Loss(0),
                reason: EndReason::NoLegalMove,
            })
        } else {
            None
        }
    }

    // ----- tiers and dense numbering --------------------------------------

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
    /// larger than `tier_size`).
    fn tier_positions(&self, t: TierKey) -> u64 {
        self.tier_size(t)
    }
    /// The tiers that one move (a capture) can lead to from this tier.
    fn tier_deps(&self, t: TierKey) -> Vec<TierKey>;
    /// Dense index of `p` inside tier `t` (`t == tier_of(p)`).
    fn rank(&self, t: TierKey, p: &Self::Pos) -> u64;
    /// The position in slot `i` of tier `t`.
    fn unrank(&self, t: TierKey, i: u64) -> Self::Pos;
    /// Predecessors inside the same tier (see the trait contract), appended
    /// to `out`. Duplicates are allowed; the solver removes them.
    fn unmoves(&self, p: &Self::Pos, out: &mut Vec<Self::Pos>);

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
    /// each move; a game may share work between children, e.g. rank a
    /// move of one kind of piece from what stays fixed (the contract
    /// checker compares the list with the default's, as a multiset).
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

    /// The ranks in tier `t` of the [`unmoves`](Self::unmoves) of `p`,
    /// appended to `out`; `parents` is scratch. Duplicates are allowed.
    /// The default ranks each un-move; a game may share work between them
    /// (checked like [`child_ranks`](Self::child_ranks)).
    fn unmove_ranks(
        &self,
        t: TierKey,
        p: &Self::Pos,
        parents: &mut Vec<Self::Pos>,
        out: &mut Vec<u64>,
    ) {
        unmove_ranks_by_unmoves(self, t, p, parents, out)
    }

    // ----- symmetry -------------------------------------------------------

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

    // ----- drawing ---------------------------------------------------------

    /// The board's points (in `point_names` order) with coordinates, and the
    /// lines between them, so one renderer draws every board.
    fn geometry(&self) -> Geometry;
}

/// [`Game::child_ranks`] the plain way: apply and rank every legal move
/// (for games overriding it on some positions only).
pub fn child_ranks_by_moves<G: Game + ?Sized>(
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

/// [`Game::unmove_ranks`] the plain way: rank every un-move.
pub fn unmove_ranks_by_unmoves<G: Game + ?Sized>(
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

/// A board as points and lines, for drawing (the web page). Coordinates are
/// in board units, `x` to the right and `y` downwards (screen order).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Geometry {
    /// In `Game::point_names` order.
    pub points: Vec<GeoPoint>,
    /// Pairs of indices into `points`.
    pub lines: Vec<[usize; 2]>,
}

/// One point of a [`Geometry`].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GeoPoint {
    pub name: String,
    pub x: f64,
    pub y: f64,
}

impl Geometry {
    /// A `w` × `h` grid with orthogonal lines; point `rank * w + file` is
    /// named `names[rank * w + file]`, rank 0 drawn at the bottom.
    pub fn grid(w: u32, h: u32, names: Vec<String>) -> Geometry {
        let points = names
            .into_iter()
            .enumerate()
            .map(|(i, name)| GeoPoint {
                name,
                x: (i as u32 % w) as f64,
                y: (h - 1 - i as u32 / w) as f64,
            })
            .collect();
        let mut lines = Vec::new();
        for r in 0..h {
            for f in 0..w {
                let i = (r * w + f) as usize;
                if f + 1 < w {
                    lines.push([i, i + 1]);
                }
                if r + 1 < h {
                    lines.push([i, i + w as usize]);
                }
            }
        }
        Geometry { points, lines }
    }
}
