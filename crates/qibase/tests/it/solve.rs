//! The whole-solve tests of every mode, through the public API: stops,
//! resumes, budgets.

use crate::compiled::{solve_game, solve_in_memory};
use qibase::games::{AnyGame, Weiming};
use qibase::solver::{interrupted_solve, SolveError, SolveObserver, SolveOptions, TierReport};
use qibase::tablebase::{game_dir, TierStore};
use qibase::{Game, Tiers};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Asks to stop once `after` tiers are solved.
struct StopAfter {
    after: usize,
    solved: AtomicUsize,
}

impl SolveObserver for StopAfter {
    fn tier_solved(&self, _: &TierReport) {
        self.solved.fetch_add(1, Ordering::Relaxed);
    }
    fn should_stop(&self) -> bool {
        self.solved.load(Ordering::Relaxed) >= self.after
    }
}

/// Every tier file up to `max_pieces` holds the values of a solve in
/// one go, in memory, on every decided slot.
fn assert_files_equal_a_solve_in_memory<G: Game>(g: &G, store: &TierStore<'_, G>, max_pieces: u32) {
    let whole = solve_in_memory(g, Some(max_pieces));
    for t in g.tiers(Some(max_pieces)) {
        let back = store.load(t).unwrap();
        for (i, v) in whole[&t].iter().enumerate() {
            if v.is_decided() {
                assert_eq!(back[i], *v, "tier {} slot {i}", g.tier_name(t));
            }
        }
    }
}

/// Asks to stop at the third level reported by the solver.
struct StopInLevels {
    levels: AtomicUsize,
    started: std::sync::Mutex<Vec<String>>,
}

impl SolveObserver for StopInLevels {
    fn tier_started(&self, name: &str, _: u64) {
        self.started.lock().unwrap().push(name.to_string());
    }
    fn level(&self, _: u16, _: u64) {
        self.levels.fetch_add(1, Ordering::Relaxed);
    }
    fn should_stop(&self) -> bool {
        self.levels.load(Ordering::Relaxed) >= 3
    }
}

/// Asks to stop at the `at`-th level of tier `tier`, and counts the
/// resumes it is told of.
struct StopInTierLevels {
    tier: String,
    at: usize,
    current: std::sync::Mutex<String>,
    levels: AtomicUsize,
    resumed: std::sync::Mutex<Vec<(String, u64)>>,
    /// The scratch directory, and the raw files seen in it during
    /// the levels of `tier`.
    spill: std::path::PathBuf,
    raws_in_levels: std::sync::Mutex<std::collections::BTreeSet<String>>,
}

impl SolveObserver for StopInTierLevels {
    fn tier_started(&self, name: &str, _: u64) {
        *self.current.lock().unwrap() = name.to_string();
    }
    fn tier_resumed(&self, name: &str, level: u64) {
        self.resumed.lock().unwrap().push((name.to_string(), level));
    }
    fn level(&self, _: u16, _: u64) {
        if *self.current.lock().unwrap() == self.tier {
            self.levels.fetch_add(1, Ordering::Relaxed);
            let mut seen = self.raws_in_levels.lock().unwrap();
            for e in std::fs::read_dir(&self.spill).unwrap() {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                if name.ends_with(".raw") {
                    seen.insert(name);
                }
            }
        }
    }
    fn should_stop(&self) -> bool {
        self.levels.load(Ordering::Relaxed) >= self.at
    }
}

/// An out-of-core solve stopped between two levels of a tier leaves a
/// checkpoint there; a solve without a budget refuses to start beside
/// it (naming it), and the same solve with the budget resumes the tier
/// at that level and writes the tables of a solve in one go. The last
/// tier's levels, fresh or resumed, have no lower tier's raw file
/// beside them: only the initial pass reads those.
#[test]
fn an_out_of_core_solve_stopped_in_a_tier_resumes_at_its_level() {
    let AnyGame::CannonChess(g) = AnyGame::from_id("cannon-chess").unwrap() else {
        unreachable!()
    };
    let dir = std::env::temp_dir().join(format!("qibase-ckpt-solve-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let tiers = g.tiers(Some(3));
    let last = g.tier_name(*tiers.last().unwrap());
    let opts = SolveOptions {
        max_pieces: Some(3),
        memory: Some(64 << 10),
        ..SolveOptions::new(&dir)
    };
    let stop = |at: usize| StopInTierLevels {
        tier: last.clone(),
        at,
        current: Default::default(),
        levels: AtomicUsize::new(0),
        resumed: Default::default(),
        spill: game_dir(opts.dir, g.id()).join(".spill"),
        raws_in_levels: Default::default(),
    };
    let only_its_own = std::collections::BTreeSet::from([format!("{last}.raw")]);
    let first = stop(4);
    match solve_game(
        &g,
        &SolveOptions {
            observer: &first,
            ..opts
        },
    ) {
        Err(SolveError::Stopped { next }) => assert_eq!(next, last),
        other => panic!("expected a stop in tier {last}: {:?}", other.map(|_| ())),
    }
    assert_eq!(interrupted_solve(&g, &dir), Some((last.clone(), 4)));
    assert_eq!(*first.raws_in_levels.lock().unwrap(), only_its_own);
    let no_budget = SolveOptions {
        memory: None,
        ..opts
    };
    let e = solve_game(&g, &no_budget).unwrap_err();
    assert!(
        matches!(&e, SolveError::CheckpointLeft { tier, .. } if *tier == last),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("only a solve under a memory budget resumes it"),
        "{e}"
    );
    let second = stop(usize::MAX);
    solve_game(
        &g,
        &SolveOptions {
            observer: &second,
            ..opts
        },
    )
    .unwrap();
    assert_eq!(*second.resumed.lock().unwrap(), vec![(last.clone(), 4)]);
    assert_eq!(*second.raws_in_levels.lock().unwrap(), only_its_own);
    assert_files_equal_a_solve_in_memory(&g, &TierStore::new(&g, &dir), 3);
    assert!(interrupted_solve(&g, &dir).is_none(), "checkpoint left");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_solve_stopped_inside_a_tier_gives_it_up_and_resumes_there() {
    let AnyGame::CannonChess(g) = AnyGame::from_id("cannon-chess").unwrap() else {
        unreachable!()
    };
    let dir = std::env::temp_dir().join(format!("qibase-stop-level-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = SolveOptions {
        max_pieces: Some(3),
        ..SolveOptions::new(&dir)
    };
    let tiers = g.tiers(Some(3));
    let stop = StopInLevels {
        levels: AtomicUsize::new(0),
        started: Default::default(),
    };
    let next = match solve_game(
        &g,
        &SolveOptions {
            observer: &stop,
            ..opts
        },
    ) {
        Err(SolveError::Stopped { next }) => next,
        Err(e) => panic!("expected Stopped, got {e}"),
        Ok(_) => panic!("expected Stopped, the solve finished"),
    };
    // Stopped inside the tier of the third level (the last one
    // started): that tier and every later one have no file, every
    // earlier one has.
    assert_eq!(stop.started.lock().unwrap().last(), Some(&next));
    let at = tiers.iter().position(|&t| g.tier_name(t) == next).unwrap();
    assert!(at < tiers.len() - 1, "stopped in the last tier");
    let store = TierStore::new(&g, &dir);
    for (k, &t) in tiers.iter().enumerate() {
        assert_eq!(store.has_file(t), k < at, "tier {}", g.tier_name(t));
    }
    let reports = solve_game(&g, &opts).unwrap();
    assert_eq!(reports.iter().filter(|r| r.skipped).count(), at);
    assert_files_equal_a_solve_in_memory(&g, &store, 3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A solve under a memory budget a few times smaller than its largest
/// tier solves that tier out of core, in many windows, its queues and
/// updates through spill files, and writes the same values as a solve
/// in memory, on every slot; a budget that cannot hold one region is a
/// typed error before anything is solved.
#[test]
fn a_solve_under_a_tiny_budget_gives_the_tables_of_one_in_memory() {
    for (id, max, budget) in [
        ("two-cannons:board=4x4,soldiers=7", Some(6), 192u64 << 10),
        ("cannon-chess-4x4", Some(3), 32 << 10),
        ("weiming", None, 16 << 10),
    ] {
        let any = AnyGame::from_id(id).unwrap();
        qibase::with_game!(any, |g| {
            let dir = std::env::temp_dir().join(format!(
                "qibase-spill-{}-{}",
                id.replace([':', '=', ','], "-"),
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            let opts = SolveOptions {
                max_pieces: max,
                memory: Some(budget),
                ..SolveOptions::new(&dir)
            };
            let reports = solve_game(g, &opts).unwrap();
            let most = reports.iter().map(|r| r.windows).max().unwrap();
            assert!(most >= 8, "{id}: at most {most} windows");
            // Small tiers still solve in memory.
            assert!(
                reports.len() == 1 || reports.iter().any(|r| r.windows == 0),
                "{id}"
            );
            // The same tier files as a solve without a budget: the
            // same values on every slot, used or not.
            let plain_dir = dir.join("plain");
            let plain = SolveOptions {
                dir: &plain_dir,
                memory: None,
                ..opts
            };
            solve_game(g, &plain).unwrap();
            let (store, plain) = (TierStore::new(g, &dir), TierStore::new(g, &plain_dir));
            for (t, r) in g.tiers(max).into_iter().zip(&reports) {
                let (back, want) = (store.load(t).unwrap(), plain.load(t).unwrap());
                let bad = back.iter().zip(&want).position(|(a, b)| a != b);
                assert!(
                    bad.is_none() && back.len() == want.len(),
                    "{id} tier {} ({} windows): slot {bad:?}: {:?} vs {:?}",
                    g.tier_name(t),
                    r.windows,
                    bad.map(|i| back[i]),
                    bad.map(|i| want[i]),
                );
            }
            assert_files_equal_a_solve_in_memory(g, &store, max.unwrap_or(u32::MAX));
            assert!(!dir.join(g.id()).join(".spill").exists(), "scratch left");
            // Resumed under the budget: every tier skipped.
            let again = solve_game(g, &opts).unwrap();
            assert!(again.iter().all(|r| r.skipped));
            let _ = std::fs::remove_dir_all(&dir);
        });
    }
    let g = Weiming::new();
    let dir = std::env::temp_dir().join(format!("qibase-spill-none-{}", std::process::id()));
    let opts = SolveOptions {
        memory: Some(1000),
        ..SolveOptions::new(&dir)
    };
    match solve_game(&g, &opts) {
        Err(e @ SolveError::MemoryTooSmall { .. }) => {
            assert!(e.to_string().contains("too small for tier"), "{e}");
        }
        other => panic!("expected MemoryTooSmall, got {:?}", other.map(|r| r.len())),
    }
    assert!(!opts.dir.exists());
}

/// Out-of-core solves resume: finished tiers (made raw again from
/// their files for the tiers above) are skipped.
#[test]
fn a_stopped_solve_under_a_budget_resumes() {
    let AnyGame::CannonChess(g) = AnyGame::from_id("cannon-chess-4x4").unwrap() else {
        unreachable!()
    };
    let dir = std::env::temp_dir().join(format!("qibase-spill-stop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = SolveOptions {
        max_pieces: Some(3),
        memory: Some(96 << 10),
        ..SolveOptions::new(&dir)
    };
    // Stopped in the third level of the largest tier (out of core).
    let tiers = g.tiers(Some(3));
    let largest = *tiers.iter().max_by_key(|&&t| g.tier_size(t)).unwrap();
    struct StopInTier {
        name: String,
        current: std::sync::Mutex<String>,
        levels: AtomicUsize,
    }
    impl SolveObserver for StopInTier {
        fn tier_started(&self, name: &str, _: u64) {
            *self.current.lock().unwrap() = name.to_string();
        }
        fn level(&self, _: u16, _: u64) {
            if *self.current.lock().unwrap() == self.name {
                self.levels.fetch_add(1, Ordering::Relaxed);
            }
        }
        fn should_stop(&self) -> bool {
            self.levels.load(Ordering::Relaxed) >= 3
        }
    }
    let stop = StopInTier {
        name: g.tier_name(largest),
        current: Default::default(),
        levels: AtomicUsize::new(0),
    };
    match solve_game(
        &g,
        &SolveOptions {
            observer: &stop,
            ..opts
        },
    ) {
        Err(SolveError::Stopped { next }) => assert_eq!(next, g.tier_name(largest)),
        other => panic!("expected Stopped, got {:?}", other.map(|r| r.len())),
    }
    let reports = solve_game(&g, &opts).unwrap();
    assert!(reports.iter().any(|r| r.skipped));
    assert!(reports.iter().any(|r| r.windows > 1 && !r.skipped));
    let store = TierStore::new(&g, &dir);
    assert_files_equal_a_solve_in_memory(&g, &store, 3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A solve first removes the temporary files a killed writer left
/// (of the atomic write and of the batched writer's streams), and
/// nothing else.
#[test]
fn a_solve_removes_what_killed_writers_left() {
    let AnyGame::CannonChess(g) = AnyGame::from_id("cannon-chess").unwrap() else {
        unreachable!()
    };
    let dir = std::env::temp_dir().join(format!("qibase-leftovers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let game_dir = dir.join(g.id());
    std::fs::create_dir_all(&game_dir).unwrap();
    let leftovers = [
        "1v0.qtb.4242.tmp",
        "2v0.qtb.4242.wdl.part",
        "2v0.qtb.4242.rem.part",
    ];
    for f in leftovers.iter().chain(&["notes.txt"]) {
        std::fs::write(game_dir.join(f), b"x").unwrap();
    }
    let opts = SolveOptions {
        max_pieces: Some(2),
        ..SolveOptions::new(&dir)
    };
    solve_game(&g, &opts).unwrap();
    for f in leftovers {
        assert!(!game_dir.join(f).exists(), "{f} left");
    }
    assert!(game_dir.join("notes.txt").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stopped_solve_keeps_its_finished_tiers_and_resumes() {
    let AnyGame::CannonChess(g) = AnyGame::from_id("cannon-chess").unwrap() else {
        unreachable!()
    };
    let dir = std::env::temp_dir().join(format!("qibase-stop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = SolveOptions {
        max_pieces: Some(2),
        ..SolveOptions::new(&dir)
    };
    let tiers = g.tiers(Some(2));
    assert!(tiers.len() >= 3, "{} tiers", tiers.len());
    let stop = StopAfter {
        after: 2,
        solved: AtomicUsize::new(0),
    };
    let err = solve_game(
        &g,
        &SolveOptions {
            observer: &stop,
            ..opts
        },
    )
    .unwrap_err();
    match &err {
        SolveError::Stopped { next } => assert_eq!(*next, g.tier_name(tiers[2])),
        e => panic!("expected Stopped, got {e}"),
    }
    assert!(err.to_string().contains("resumes"), "{err}");
    let store = TierStore::new(&g, &dir);
    let on_disk: Vec<bool> = tiers.iter().map(|&t| store.has_file(t)).collect();
    assert_eq!(on_disk.iter().filter(|&&b| b).count(), 2, "{on_disk:?}");
    assert!(on_disk[0] && on_disk[1]);
    // The second solve skips the two finished tiers and does the rest.
    let reports = solve_game(&g, &opts).unwrap();
    let skipped: Vec<bool> = reports.iter().map(|r| r.skipped).collect();
    assert_eq!(skipped.iter().filter(|&&b| b).count(), 2, "{skipped:?}");
    assert!(skipped[0] && skipped[1]);
    // The same values as a solve in one go.
    assert_files_equal_a_solve_in_memory(&g, &store, 2);
    let _ = std::fs::remove_dir_all(&dir);
}
