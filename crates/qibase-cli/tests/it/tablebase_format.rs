//! The tier-file format against real solved data: every probe (full value
//! and WDL, cold, admitted and cached, and preloaded) equals the solver's
//! value on closed subsets of each game; `qibase convert` turns format 2
//! and format 3 tables into the current format with the same values; an
//! old file is refused with a message naming `qibase convert`.

use std::collections::HashMap;
use std::path::Path;

use crate::common::{qibase, temp_dir};
use qibase::game::{Game, Notation, Rules, TierKey, Tiers};
use qibase::games::{CannonChess, Cannons, Weiming};
use qibase::solver::solve_in_memory;
use qibase::tablebase::{
    read_tier_values, tier_path, write_tier, Tablebase, TbErrorKind, TierMeta, TierStats,
};
use qibase::value::{Packed, Value};

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
    let solved = solve_in_memory(g, max_pieces);
    write_all(g, &dir, &solved);
    let tb = Tablebase::open(g, &dir);
    let mut checked = 0u64;
    for (&t, values) in &solved {
        let back = read_tier_values(
            &tier_path(&dir, g.id(), &g.tier_name(t)),
            g.id(),
            g.rules_hash(),
            t,
        )
        .unwrap();
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

/// A copy of the committed format `version` weiming table
/// (tests/data/v2, v3, v4: the committed table of that version).
fn old_copy(version: u32, name: &str) -> std::path::PathBuf {
    let dir = temp_dir(name);
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/it/data/v{version}/weiming/all.qtb"));
    std::fs::create_dir_all(dir.join("weiming")).unwrap();
    std::fs::copy(src, dir.join("weiming/all.qtb")).unwrap();
    dir
}

#[test]
fn format_2_is_refused_naming_convert() {
    old_is_refused_naming_convert(2);
}

#[test]
fn format_3_is_refused_naming_convert() {
    old_is_refused_naming_convert(3);
}

#[test]
fn format_4_is_refused_naming_convert() {
    old_is_refused_naming_convert(4);
}

fn old_is_refused_naming_convert(version: u32) {
    let dir = old_copy(version, &format!("fmt-old{version}"));
    let g = Weiming::new();
    let e = Tablebase::open(&g, &dir).probe(&g.start()).unwrap_err();
    assert_eq!(e.kind(), TbErrorKind::Foreign);
    assert!(e.to_string().contains("qibase convert weiming"), "{e}");
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
    assert!(
        err.contains(&format!("format version {version}"))
            && err.contains("qibase convert weiming"),
        "{err}"
    );
}

#[test]
fn convert_rewrites_format_2_with_the_same_values() {
    convert_rewrites_with_the_same_values(2);
}

#[test]
fn convert_rewrites_format_3_with_the_same_values() {
    convert_rewrites_with_the_same_values(3);
}

#[test]
fn convert_rewrites_format_4_with_the_same_values() {
    convert_rewrites_with_the_same_values(4);
}

fn convert_rewrites_with_the_same_values(version: u32) {
    let dir = old_copy(version, &format!("fmt-convert{version}"));
    let out_dir = temp_dir(&format!("fmt-converted{version}"));
    let g = Weiming::new();
    let d = dir.to_str().unwrap();
    let o = out_dir.to_str().unwrap();
    let out = qibase(&["convert", "weiming", "--dir", d, "--out", o, "--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("converted 1 tier file(s)"));
    let solved = solve_in_memory(&g, None);
    let file = tier_path(&out_dir, g.id(), &g.tier_name(0));
    let back = read_tier_values(&file, g.id(), g.rules_hash(), 0).unwrap();
    for (i, &v) in solved[&0].iter().enumerate() {
        let p = g.unrank(0, i as u64);
        if g.rank(0, &p) == i as u64 {
            assert_eq!(back[i], v, "slot {i}");
        }
    }
    // The converted table verifies; converting again is a no-op; converting
    // in place works.
    let out = qibase(&["verify", "weiming", "--dir", o, "--quiet"]);
    assert!(out.status.success());
    let out = qibase(&["convert", "weiming", "--dir", o, "--quiet"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("converted 0 tier file(s)"));
    let out = qibase(&["convert", "weiming", "--dir", d, "--quiet"]);
    assert!(out.status.success());
    let back2 =
        read_tier_values(&tier_path(&dir, g.id(), "all"), g.id(), g.rules_hash(), 0).unwrap();
    assert_eq!(back, back2);
    // A damaged old file is refused, naming the file.
    let bad = old_copy(version, &format!("fmt-convert-bad{version}"));
    let f = bad.join("weiming/all.qtb");
    let mut bytes = std::fs::read(&f).unwrap();
    let n = bytes.len();
    bytes[n - 10] ^= 1;
    std::fs::write(&f, bytes).unwrap();
    let out = qibase(&[
        "convert",
        "weiming",
        "--dir",
        bad.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("all.qtb") && err.contains("corrupt"), "{err}");
    for d in [dir, out_dir, bad] {
        let _ = std::fs::remove_dir_all(d);
    }
}
