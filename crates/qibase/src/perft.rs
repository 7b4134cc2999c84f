//! Perft: counting move sequences, the standard check of a move generator.

use crate::game::Rules;

/// Number of move sequences of exactly `depth` plies; ended games are not expanded.
pub fn perft<G: Rules>(g: &G, p: &G::Pos, depth: u32) -> u64 {
    // One move buffer per ply, reused: perft measures move generation, not
    // the allocator.
    let mut buffers: Vec<Vec<G::Move>> = (0..depth).map(|_| Vec::new()).collect();
    perft_with(g, p, &mut buffers)
}

fn perft_with<G: Rules>(g: &G, p: &G::Pos, buffers: &mut [Vec<G::Move>]) -> u64 {
    let Some((ms, rest)) = buffers.split_first_mut() else {
        return 1;
    };
    if g.rule_end(p).is_some() {
        return 0;
    }
    ms.clear();
    g.moves(p, ms);
    if rest.is_empty() {
        return ms.len() as u64;
    }
    let mut total = 0;
    for m in ms.iter() {
        total += perft_with(g, &g.apply(p, m), rest);
    }
    total
}
