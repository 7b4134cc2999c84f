//! [`AnyTablebase`]: the prober of a game chosen at run time, as
//! [`AnyGame`] is the game. Front ends that pick the game from a string
//! (Python, a server) hold one of these and run generic code on it with
//! [`with_tb!`](crate::with_tb), so each lookup stays monomorphic.

use std::path::Path;

use super::{AnyGame, CannonChess, Cannons, Weiming};
use crate::tablebase::Tablebase;

/// The [`Tablebase`] of one concrete game, chosen at run time.
pub enum AnyTablebase<'g> {
    /// Of `cannon-chess`, `cannon-chess-4x4` and their variants.
    CannonChess(Tablebase<'g, CannonChess>),
    /// Of `weiming`.
    Weiming(Tablebase<'g, Weiming>),
    /// Of `two-cannons`, `three-cannons` and their variants.
    Cannons(Tablebase<'g, Cannons>),
}

impl<'g> AnyTablebase<'g> {
    /// The tablebase of `game` under `dir`; no file is touched until a
    /// probe needs it.
    pub fn open(game: &'g AnyGame, dir: &Path) -> AnyTablebase<'g> {
        match game {
            AnyGame::CannonChess(g) => AnyTablebase::CannonChess(Tablebase::open(g, dir)),
            AnyGame::Weiming(g) => AnyTablebase::Weiming(Tablebase::open(g, dir)),
            AnyGame::Cannons(g) => AnyTablebase::Cannons(Tablebase::open(g, dir)),
        }
    }

    /// The tablebase directory.
    pub fn dir(&self) -> &Path {
        crate::with_tb!(self, |_g, tb| tb.dir())
    }
}

/// Run `$body` with `$tb` bound to the concrete [`Tablebase`] inside an
/// [`AnyTablebase`] and `$g` to its game; the body is compiled once per
/// game type, so generic code stays monomorphic.
#[macro_export]
macro_rules! with_tb {
    ($any:expr, |$g:ident, $tb:ident| $body:expr) => {
        match $any {
            $crate::games::AnyTablebase::CannonChess(ref $tb) => {
                let $g = $tb.game();
                $body
            }
            $crate::games::AnyTablebase::Weiming(ref $tb) => {
                let $g = $tb.game();
                $body
            }
            $crate::games::AnyTablebase::Cannons(ref $tb) => {
                let $g = $tb.game();
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Rules, Tiers};

    #[test]
    fn each_game_probes_through_its_own_tablebase() {
        let dir = std::env::temp_dir().join(format!("qibase-anytb-{}", std::process::id()));
        for id in super::super::GAME_IDS {
            let game = AnyGame::from_id(id).unwrap();
            let tb = AnyTablebase::open(&game, &dir);
            assert_eq!(tb.dir(), dir);
            let (gid, missing) = with_tb!(tb, |g, tb| (
                g.id().to_string(),
                tb.probe(&g.start()).unwrap_err().is_not_solved()
            ));
            assert_eq!(gid, id);
            assert!(missing, "{id}: an empty directory solves nothing");
        }
    }
}
