//! `solve_game` and `solve_in_memory` as the library compiled them, through
//! [`AnyGame`]: calling the generic functions here would compile the whole
//! solver again in this crate, for every game type the tests use, and at
//! the test profile's full optimisation.

use std::collections::HashMap;

use qibase::games::AnyGame;
use qibase::solver::{SolveError, SolveOptions, TierReport};
use qibase::{with_game, Game, Packed, TierKey, Tiers};

/// The library's [`AnyGame`] of `g`: the game of the same name, with the
/// same rules.
fn any_game<G: Game>(g: &G) -> AnyGame {
    let any = AnyGame::from_id(g.id()).unwrap_or_else(|e| panic!("{}: {e}", g.id()));
    assert_eq!(
        with_game!(&any, |h| h.rules_hash()),
        g.rules_hash(),
        "{}: the game of this name has other rules",
        g.id()
    );
    any
}

/// [`qibase::solver::solve_game`].
pub fn solve_game<G: Game>(g: &G, opts: &SolveOptions) -> Result<Vec<TierReport>, SolveError> {
    any_game(g).solve(opts)
}

/// [`qibase::solver::solve_in_memory`].
pub fn solve_in_memory<G: Game>(g: &G, max_pieces: Option<u32>) -> HashMap<TierKey, Vec<Packed>> {
    any_game(g).solve_in_memory(max_pieces)
}
