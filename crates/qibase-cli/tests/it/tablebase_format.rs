//! The tier-file format against real solved data: every probe (full value
//! and WDL, cold, admitted and cached, and preloaded) and every whole-tier
//! read equals the solver's value on closed subsets of each game; a file
//! of an older format is refused with a version error that says how to
//! remake it.

use std::collections::HashMap;
use std::path::Path;

use crate::common::{qibase, temp_dir};
use qibase::games::{AnyGame, CannonChess, Cannons, Weiming};
use qibase::tablebase::{
    tier_path, write_tier, Tablebase, TbError, TierMeta, TierStats, TierStore, LAST_CONVERT_COMMIT,
};
use qibase::{Game, Notation, Rules, TierKey, Tiers};
use qibase::{Packed, Value};

/// Write the solved tiers of `g` into `dir`.
fn write_all<G: Game>(g: &G, dir: &Path, solved: &HashMap<TierKey, Vec<Packed>>) {
    for (&t, values) in solved {
        let meta = TierMeta {
            game: g.id().to_string(),
            variant: g.id().to_string(),
            rules_hash: g.rules_hash(),
            tier: t,
            tier_name: g.tier_name(t),
            positions: g.tier_size(t),
            stats: TierStats::default(),
        };
        write_tier(&tier_path(dir, g.id(), &g.tier_name(t)), &meta, values).unwrap();
    }
}

/// Every used slot probes to the solver's value, three times (first miss,
/// admission, cache hit), WDL too; whole-tier reads agree; a preloaded
/// table agrees.
fn probes_match_solver<G: Game>(g: &G, max_pieces: Option<u32>, name: &str) {
    let dir = temp_dir(name);
    let solved = AnyGame::from_id(g.id())
        .unwrap()
        .solve_in_memory(max_pieces);
    write_all(g, &dir, &solved);
    let tb = Tablebase::open(g, &dir);
    let mut checked = 0u64;
    for (&t, values) in &solved {
        let back = tb.store().load(t).unwrap();
        for (i, &v) in values.iter().enumerate() {
            let p = g.unrank(t, i as u64);
            if g.rank(t, &p) != i as u64 {
                continue; // unused slot
            }
            let want = Value::unpack(v).expect("solved");
            assert_eq!(back[i], v, "tier {} slot {i}", g.tier_name(t));
            assert_eq!(tb.probe_wdl(&p).unwrap(), want.wdl());
            for _ in 0..3 {
                assert_eq!(tb.probe(&p).unwrap(), want, "{}", g.format_pos(&p));
            }
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked}");
    let pre = Tablebase::open(g, &dir);
    assert!(pre.preload(u64::MAX).unwrap() > 0);
    for (&t, values) in &solved {
        for i in (0..values.len()).step_by(7) {
            let p = g.unrank(t, i as u64);
            if g.rank(t, &p) == i as u64 {
                assert_eq!(pre.probe(&p).unwrap(), Value::unpack(values[i]).unwrap());
            }
        }
    }
    assert!(Tablebase::open(g, &dir).preload(10).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cannon_chess_three_a_side_probes_match_the_solver() {
    probes_match_solver(&CannonChess::standard(), Some(3), "fmt-cc3");
}

#[test]
fn cannon_chess_4x4_probes_match_the_solver() {
    probes_match_solver(&CannonChess::four_by_four(), Some(3), "fmt-cc4");
}

#[test]
fn two_cannons_probes_match_the_solver() {
    probes_match_solver(&Cannons::two_cannons(), Some(5), "fmt-tc5");
}

#[test]
fn weiming_probes_match_the_solver() {
    probes_match_solver(&Weiming::new(), None, "fmt-weiming");
}

/// The committed format 4 weiming table (`tests/it/data/v4`), copied.
fn format_4_copy(name: &str) -> std::path::PathBuf {
    let dir = temp_dir(name);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/data/v4/weiming/all.qtb");
    std::fs::create_dir_all(dir.join("weiming")).unwrap();
    std::fs::copy(src, dir.join("weiming/all.qtb")).unwrap();
    dir
}

/// Only format 5 is read: an older file is a typed version error whose
/// one line names the file and the format, and says how to remake it
/// (solve again, or convert with the last qibase that reads it); `query`
/// prints that line and exits 1.
#[test]
fn an_old_format_is_a_version_error_that_says_how_to_remake_it() {
    let dir = format_4_copy("fmt-old4");
    let g = Weiming::new();
    let file = tier_path(&dir, g.id(), "all");
    for e in [
        Tablebase::open(&g, &dir).probe(&g.start()).unwrap_err(),
        TierStore::new(&g, &dir).load(0).unwrap_err(),
    ] {
        match &e {
            TbError::Version {
                path,
                found,
                expected,
                ..
            } => {
                // The newest version this build reads is 6 (format 5's
                // layout for sections over 4 GiB).
                assert_eq!((path, *found, *expected), (&file, 4, 6));
            }
            other => panic!("not a version error: {other}"),
        }
        assert_eq!(qibase_cli::api::code::of_tablebase(&e), "foreign_tablebase");
    }
    let out = qibase(&[
        "query",
        "weiming",
        &g.format_pos(&g.start()),
        "--dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    for want in [
        file.display().to_string(),
        "format version 4".to_string(),
        "qibase solve weiming".to_string(),
        "qibase convert weiming".to_string(),
        LAST_CONVERT_COMMIT.to_string(),
    ] {
        assert!(err.contains(&want), "want '{want}' in {err}");
    }
    // `convert` is gone.
    assert_eq!(qibase(&["convert", "weiming"]).status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Unused slots (undecided when written) read back as draws.
#[test]
fn unused_slots_read_back_as_draws() {
    let g = Weiming::new();
    let dir = temp_dir("fmt-unused");
    let t = g.tiers(None)[0];
    let n = g.tier_size(t);
    let win = Value::Win(1).pack();
    let values: Vec<_> = (0..n)
        .map(|i| if i % 3 == 0 { Packed::UNDECIDED } else { win })
        .collect();
    write_all(&g, &dir, &HashMap::from([(t, values)]));
    let back = TierStore::new(&g, &dir).load(t).unwrap();
    assert!(back
        .iter()
        .enumerate()
        .all(|(i, &v)| v == if i % 3 == 0 { Packed::DRAW } else { win }));
    let _ = std::fs::remove_dir_all(&dir);
}
