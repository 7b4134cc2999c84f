//! [`Describe`]: facts about a game's rules that readers of its tables
//! need beyond the [`Game`] trait (the research report, for one): what a
//! slot stands for, the same placement with the other side to move, the
//! pieces by kind, the board's symmetries, the rules in brief. Each game
//! implements it next to its rules, so a new game brings its own facts.

use crate::game::Game;
use crate::games::variant::ParamDoc;

/// Facts about a game's rules, for readers of its tables.
///
/// A slot may stand for several positions told apart by a *variant*
/// (cannon chess: the placement with X to move and its colour swap with
/// O to move, of equal value); by default a slot is one position.
pub trait Describe: Game {
    /// How many distinct positions share one slot and are told apart by
    /// [`with_variant`](Self::with_variant).
    fn variants(&self) -> u32 {
        1
    }
    /// Variant `v` of the position `unrank` returned.
    fn with_variant(&self, p: &Self::Pos, _v: u32) -> Self::Pos {
        *p
    }
    /// The variant of any position.
    fn variant(&self, _p: &Self::Pos) -> u32 {
        0
    }
    /// The variant of every child of a position of variant `v` (one move
    /// later).
    fn child_variant(&self, _v: u32) -> u32 {
        0
    }

    /// The same placement with the other side to move (weiming's lock
    /// flag kept).
    fn side_swapped(&self, p: &Self::Pos) -> Self::Pos;
    /// The same position with weiming's lock flag set, if `p` has it
    /// clear; `None` in games without the flag.
    fn locked_twin(&self, _p: &Self::Pos) -> Option<Self::Pos> {
        None
    }

    /// Names of the piece kinds [`piece_bits`](Self::piece_bits) tells
    /// apart, at most three.
    fn piece_kinds(&self) -> Vec<&'static str>;
    /// A bitboard (bit = point in `point_names` order) of each kind of
    /// piece in `p`, in [`piece_kinds`](Self::piece_kinds) order.
    fn piece_bits(&self, p: &Self::Pos) -> [u64; 3];

    /// The board symmetries the numbering identifies positions by, each
    /// as the image of every point; empty when there are none but the
    /// identity.
    fn point_maps(&self) -> Vec<Vec<u32>> {
        Vec::new()
    }

    /// The rules in brief and the interpretations taken (markdown), for
    /// the family's presets.
    fn rules_brief(&self) -> &'static str;
    /// The family's variant parameters. Default: none.
    fn param_docs(&self) -> &'static [ParamDoc] {
        &[]
    }
}
