//! The library's integration tests, one binary: rules checked against
//! hand-worked positions and the naive move generators (`naive/`), perft
//! counts kept as data (`data/perft/`), the solver against brute force,
//! whole solves (stops, resumes, budgets), the game API contract,
//! numbering and variants.

mod ai;
mod big_tiers;
mod cannon_chess_rules;
mod cannon_chess_support;
mod cannons_rules;
mod compiled;
mod contract;
mod naive;
mod numbering_identity;
mod perft;
mod puzzles;
mod solve;
mod solver_vs_bruteforce;
mod variant_acceptance;
mod weiming_rules;
