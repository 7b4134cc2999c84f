//! The library's largest generic jobs, run on a game chosen at run time:
//! solving (into files or in memory), packing and unpacking.
//!
//! Each is compiled here once for every game type. A front end that called
//! the generic function through [`with_game!`](crate::with_game) would
//! compile it again for each game type, in every crate that does so (Rust
//! shares no generic code between optimised crates): the solver alone was
//! about a third of the command line's compiled code.

use std::collections::HashMap;
use std::path::Path;

use super::AnyGame;
use crate::game::TierKey;
use crate::solver::{solve_game, solve_in_memory, SolveError, SolveOptions, TierReport};
use crate::tablebase::compact::{self, TierPacking};
use crate::tablebase::TbError;
use crate::value::Packed;

impl AnyGame {
    /// [`solve_game`] on this game.
    ///
    /// # Errors
    ///
    /// As [`solve_game`].
    pub fn solve(&self, opts: &SolveOptions) -> Result<Vec<TierReport>, SolveError> {
        crate::with_game!(self, |g| solve_game(g, opts))
    }

    /// [`solve_in_memory`] on this game.
    ///
    /// # Panics
    ///
    /// As [`solve_in_memory`].
    pub fn solve_in_memory(&self, max_pieces: Option<u32>) -> HashMap<TierKey, Vec<Packed>> {
        crate::with_game!(self, |g| solve_in_memory(g, max_pieces))
    }

    /// [`compact::pack`] on this game.
    ///
    /// # Errors
    ///
    /// As [`compact::pack`].
    pub fn pack(
        &self,
        src: &Path,
        out: &Path,
        done: &mut dyn FnMut(&TierPacking),
    ) -> Result<Vec<TierPacking>, TbError> {
        crate::with_game!(self, |g| compact::pack(g, src, out, done))
    }

    /// [`compact::unpack`] on this game.
    ///
    /// # Errors
    ///
    /// As [`compact::unpack`].
    pub fn unpack(
        &self,
        src: &Path,
        out: &Path,
        done: &mut dyn FnMut(&TierPacking),
    ) -> Result<Vec<TierPacking>, TbError> {
        crate::with_game!(self, |g| compact::unpack(g, src, out, done))
    }
}
