//! A solve shared by ranks that each hold only a slice of every tier.
//!
//! All ranks solve the same tier at the same time. Each owns a fixed,
//! contiguous run of the tier's regions ([`owned_slots`]) and holds the
//! state words of those slots alone; when the tier is finished it keeps
//! their values, its slice, for the tiers above that read it. No rank ever
//! holds a whole tier, so a solve on N ranks needs about a N-th of the
//! memory on each.
//!
//! * Initial pass, in rounds: each rank scans a batch of its own slots
//!   (rule ends, in-tier counters) and turns their lower-tier children
//!   into requests; the requests go to the ranks that own those lower
//!   slots, which reply with the values in the order asked (two
//!   [`Exchange::all_to_all`]s a round), and the answers are folded into
//!   per-slot accumulators, as the out-of-core solve folds what it reads
//!   from its files. Open states whose longest lower-tier win does not fit
//!   the state word keep it in a sorted side table, so the levels read no
//!   lower tier.
//! * The levels: as in one process, each level's parent updates routed to
//!   the owners of their regions ([`super::propagate`]).
//! * Output: each rank writes its slice as a part file in the shared
//!   directory (`<dir>/<game>/.parts`); rank 0 merges the parts into the
//!   tier file (atomically, beside the next tier's solve) and removes
//!   them. A killed job resumes at the first tier without a file; each
//!   rank then reads its slices of the finished tiers from their files,
//!   only the blocks it owns.
//!
//! The table is the one a solve in one process makes (the same positions
//! are decided at each level), byte for byte apart from recorded timings.

mod lower;
mod run;
mod tier;

pub(super) use run::Sliced;

#[cfg(test)]
mod tests {
    use crate::exchange::threads::{Shared, ThreadRank};
    use crate::game::Tiers;
    use crate::games::AnyGame;
    use crate::solver::{solve_game, SolveOptions};
    use crate::tablebase::TierStore;

    /// Two to four ranks (threads here, MPI processes in the command
    /// line's cluster tests), each holding only its slices, asking the
    /// others for lower-tier values and writing parts: the tier files hold
    /// the values and counts of a solve in one process, on every slot, and
    /// no part is left behind.
    #[test]
    fn ranks_holding_slices_write_the_tables_of_one_process() {
        for (id, max) in [
            ("two-cannons:board=4x4,soldiers=7", 6),
            ("cannon-chess-4x4", 3),
        ] {
            let any = AnyGame::from_id(id).unwrap();
            crate::with_game!(any, |g| {
                let base = std::env::temp_dir().join(format!(
                    "qibase-sliced-{}-{}",
                    id.replace([':', '=', ','], "-"),
                    std::process::id()
                ));
                let _ = std::fs::remove_dir_all(&base);
                let plain_dir = base.join("plain");
                let plain = SolveOptions {
                    max_pieces: Some(max),
                    ..SolveOptions::new(&plain_dir)
                };
                solve_game(g, &plain).unwrap();
                let want = TierStore::new(g, plain.dir);
                for ranks in [2, 3, 4] {
                    let dir = base.join(format!("ranks-{ranks}"));
                    let shared = Shared::new(ranks);
                    std::thread::scope(|s| {
                        let solves: Vec<_> = (0..ranks)
                            .map(|rank| {
                                let (shared, dir) = (&shared, &dir);
                                s.spawn(move || {
                                    let ex = ThreadRank { shared, rank };
                                    let opts = SolveOptions {
                                        dir,
                                        exchange: &ex,
                                        ..plain
                                    };
                                    solve_game(g, &opts).unwrap()
                                })
                            })
                            .collect();
                        for h in solves {
                            let reports = h.join().unwrap();
                            assert!(reports.iter().all(|r| !r.skipped));
                        }
                    });
                    let got = TierStore::new(g, &dir);
                    for t in g.tiers(Some(max)) {
                        let name = g.tier_name(t);
                        let (a, b) = (got.load(t).unwrap(), want.load(t).unwrap());
                        let bad = a.iter().zip(&b).position(|(x, y)| x != y);
                        assert!(
                            bad.is_none() && a.len() == b.len(),
                            "{id} tier {name}, {ranks} ranks: slot {bad:?}"
                        );
                        let (x, y) = (got.meta(t).unwrap().stats, want.meta(t).unwrap().stats);
                        assert_eq!(
                            (x.wins, x.losses, x.draws, x.unused, x.max_win, x.max_loss),
                            (y.wins, y.losses, y.draws, y.unused, y.max_win, y.max_loss),
                            "{id} tier {name}, {ranks} ranks"
                        );
                    }
                    assert!(!dir.join(g.id()).join(".parts").exists(), "parts left");
                }
                let _ = std::fs::remove_dir_all(&base);
            });
        }
    }
}
