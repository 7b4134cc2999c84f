//! The compact format: `pack` then `unpack` gives back every fast file
//! byte for byte on closed subsets of every game; every compact tier
//! resolves to the solver's values; damage is an error naming the file,
//! never a wrong value; the commands refuse bad input in one line.

use std::path::{Path, PathBuf};

use crate::common::{qibase, temp_dir};
use qibase::games::{AnyGame, CannonChess, Cannons, Weiming};
use qibase::solver::{SolveOptions, TierValues};
use qibase::tablebase::compact::{compact_path, CompactFile, TierPacking};
use qibase::tablebase::{tier_path, Tablebase, TbError, TierStore};
use qibase::with_game;
use qibase::Packed;
use qibase::{Game, TierKey, Tiers};

/// Solve the closed subset of `g` into `dir` (the fast format).
fn solve_into<G: Game>(g: &G, dir: &Path, max_pieces: Option<u32>) {
    let opts = SolveOptions {
        max_pieces,
        ..SolveOptions::new(dir)
    };
    // Through the library's compiled solver (see `AnyGame::solve`).
    AnyGame::from_id(g.id()).unwrap().solve(&opts).unwrap();
}

/// `pack` through the library's compiled packer (see `AnyGame::pack`):
/// the test profile builds this crate with little optimisation.
fn pack<G: Game>(g: &G, src: &Path, out: &Path) -> Result<Vec<TierPacking>, TbError> {
    AnyGame::from_id(g.id())
        .unwrap()
        .pack(src, out, &mut |_| {})
}

/// `unpack` through the library's compiled unpacker.
fn unpack<G: Game>(g: &G, src: &Path, out: &Path) -> Result<Vec<TierPacking>, TbError> {
    AnyGame::from_id(g.id())
        .unwrap()
        .unpack(src, out, &mut |_| {})
}

/// Pack, check every tier against the fast values, unpack, compare bytes.
fn round_trip<G: Game>(g: &G, max_pieces: Option<u32>, name: &str) -> (u64, [u64; 3]) {
    let root = temp_dir(name);
    let (fast, packed, back) = (root.join("fast"), root.join("packed"), root.join("back"));
    solve_into(g, &fast, max_pieces);
    let report = pack(g, &fast, &packed).unwrap();
    let tiers = g.tiers(max_pieces);
    assert_eq!(report.len(), tiers.len());
    // Every tier resolves to the fast file's values, halves and all.
    let store = TierStore::new(g, &fast);
    let mut halves = 0;
    for &t in &tiers {
        let c = CompactFile::open(
            &compact_path(&packed, g.id(), &g.tier_name(t)),
            g.id(),
            g.rules_hash(),
            t,
        )
        .unwrap();
        halves += c.header().kept_half.is_some() as u32;
        let deps: Vec<(TierKey, Vec<Packed>)> = g
            .tier_deps(t)
            .into_iter()
            .map(|d| (d, store.load(d).unwrap()))
            .collect();
        let mut lower = TierValues::new();
        for (d, v) in &deps {
            lower.add(*d, v);
        }
        assert_eq!(c.resolve(g, &lower).unwrap(), store.load(t).unwrap());
    }
    assert!(halves > 0, "{name}: some tier keeps one half only");
    // Lookups read the compact tables with no flag: every used slot's
    // value and WDL, in both halves, equal the fast tables'.
    let fast_tb = Tablebase::open(g, &fast);
    let compact_tb = Tablebase::open(g, &packed);
    let mut probed = 0u64;
    for &t in &tiers {
        let n = g.tier_size(t);
        let step = (n / 3000).max(1);
        for i in (0..n).step_by(step as usize) {
            let p = g.unrank(t, i);
            if g.rank(t, &p) != i {
                continue;
            }
            let want = fast_tb.probe(&p).unwrap();
            assert_eq!(compact_tb.probe(&p).unwrap(), want, "{}", g.format_pos(&p));
            assert_eq!(
                compact_tb.probe_wdl(&p).unwrap(),
                want.wdl(),
                "{}",
                g.format_pos(&p)
            );
            probed += 1;
        }
    }
    assert!(probed > 1000, "{name}: {probed} probes");
    // Packing again finds everything done.
    let again = pack(g, &fast, &packed).unwrap();
    assert!(again.iter().all(|r| r.kept));
    let unpacked = unpack(g, &packed, &back).unwrap();
    assert!(unpacked.iter().all(|r| !r.kept));
    for &t in &tiers {
        let a = std::fs::read(tier_path(&fast, g.id(), &g.tier_name(t))).unwrap();
        let b = std::fs::read(tier_path(&back, g.id(), &g.tier_name(t))).unwrap();
        assert!(
            a == b,
            "{name}: tier {} differs after the round trip",
            g.tier_name(t)
        );
    }
    let used = report.iter().map(|r| r.used).sum();
    let bytes = report.iter().fold([0; 3], |mut s, r| {
        for (x, y) in s.iter_mut().zip(r.compact_bytes) {
            *x += y;
        }
        s
    });
    let _ = std::fs::remove_dir_all(&root);
    (used, bytes)
}

#[test]
fn pack_unpack_round_trip_on_every_game() {
    round_trip(&Weiming::new(), None, "cp-weiming");
    let (used, [_, w, r]) = round_trip(&CannonChess::standard(), Some(4), "cp-cc");
    // The compact tables are far smaller than 16 bits a slot, and the
    // WDL part smaller than the remoteness part.
    assert!(
        8 * (w + r) < 4 * used,
        "{} bits per slot",
        8.0 * (w + r) as f64 / used as f64
    );
    round_trip(&CannonChess::four_by_four(), Some(3), "cp-cc44");
    round_trip(&Cannons::two_cannons(), Some(4), "cp-two");
    round_trip(&Cannons::three_cannons(), Some(5), "cp-three");
}

/// A packed copy of a small cannon-chess subset: (fast dir, compact dir).
fn packed_copy(name: &str) -> (PathBuf, PathBuf, CannonChess) {
    let g = CannonChess::standard();
    let root = temp_dir(name);
    let (fast, packed) = (root.join("fast"), root.join("packed"));
    solve_into(&g, &fast, Some(3));
    pack(&g, &fast, &packed).unwrap();
    (fast, packed, g)
}

/// A change to a file's bytes.
type Damage = Box<dyn Fn(&mut Vec<u8>)>;

/// Every kind of damage to a compact file is an error naming the file:
/// `unpack` writes no wrong table.
#[test]
fn damaged_compact_files_are_errors_never_values() {
    let (_fast, packed, g) = packed_copy("cp-damage");
    let t = *g.tiers(Some(3)).last().unwrap();
    let path = compact_path(&packed, g.id(), &g.tier_name(t));
    let good = std::fs::read(&path).unwrap();
    let c = CompactFile::open(&path, g.id(), g.rules_hash(), t).unwrap();
    let [head, wdl, _] = c.sizes();
    drop(c);
    let out = packed.parent().unwrap().join("out");
    let cases: Vec<(&str, Damage)> = vec![
        ("bad magic", Box::new(|b| b[0] ^= 1)),
        ("header", Box::new(|b| b[20] ^= 0x10)),
        ("truncated", Box::new(|b| b.truncate(b.len() - 3))),
        ("trailing", Box::new(|b| b.push(0))),
        (
            "WDL block",
            Box::new(move |b| b[(head + wdl) as usize - 2] ^= 4),
        ),
        (
            "remoteness block",
            Box::new(|b| {
                let n = b.len();
                b[n - 2] ^= 4
            }),
        ),
    ];
    for (what, damage) in cases {
        let mut bytes = good.clone();
        damage(&mut bytes);
        std::fs::write(&path, &bytes).unwrap();
        let _ = std::fs::remove_dir_all(&out);
        let e = unpack(&g, &packed, &out).unwrap_err();
        assert!(matches!(e, TbError::Corrupt { .. }), "{what}: {e}");
        assert!(
            e.to_string().starts_with(&path.display().to_string()),
            "{what}: {e}"
        );
        assert!(
            !tier_path(&out, g.id(), &g.tier_name(t)).exists(),
            "{what}: a damaged tier was unpacked"
        );
    }
    // Another version, another game's file.
    let mut bytes = good.clone();
    bytes[8] = 9;
    std::fs::write(&path, &bytes).unwrap();
    let e = unpack(&g, &packed, &out).unwrap_err();
    assert!(
        matches!(
            e,
            TbError::Version {
                found: 9,
                compact: true,
                ..
            }
        ) && qibase_cli::hint::hint(&e).contains("`qibase pack "),
        "{e}"
    );
    std::fs::write(&path, &good).unwrap();
    let other = CannonChess::four_by_four();
    let e = CompactFile::open(&path, other.id(), other.rules_hash(), t)
        .err()
        .unwrap();
    assert!(matches!(e, TbError::Foreign { .. }), "{e}");
    // Undamaged, it unpacks.
    unpack(&g, &packed, &out).unwrap();
    let _ = std::fs::remove_dir_all(packed.parent().unwrap());
}

/// A stale or damaged output is replaced, not kept: `pack` redoes a tier
/// whose compact file does not match its fast file.
#[test]
fn pack_redoes_a_tier_whose_output_does_not_match() {
    let (fast, packed, g) = packed_copy("cp-resume");
    let t = *g.tiers(Some(3)).last().unwrap();
    let path = compact_path(&packed, g.id(), &g.tier_name(t));
    let good = std::fs::read(&path).unwrap();
    let mut bytes = good.clone();
    let n = bytes.len();
    bytes[n - 1] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let first = *g.tiers(Some(3)).first().unwrap();
    std::fs::remove_file(compact_path(&packed, g.id(), &g.tier_name(first))).unwrap();
    let report = pack(&g, &fast, &packed).unwrap();
    let redone: Vec<&str> = report
        .iter()
        .filter(|r| !r.kept)
        .map(|r| r.name.as_str())
        .collect();
    // The header still matches: a damaged block is found by unpack's
    // checks, not by pack's resume (which reads headers only).
    assert_eq!(redone, [g.tier_name(first)]);
    let _ = std::fs::remove_dir_all(packed.parent().unwrap());
}

#[test]
fn pack_and_unpack_commands() {
    let root = temp_dir("cp-cli");
    let (fast, packed, back) = (root.join("fast"), root.join("packed"), root.join("back"));
    let s = |p: &PathBuf| p.display().to_string();
    let any = AnyGame::from_id("two-cannons").unwrap();
    with_game!(any, |g| solve_into(g, &fast, Some(3)));
    let out = qibase(&[
        "pack",
        "two-cannons",
        "--dir",
        &s(&fast),
        "--out",
        &s(&packed),
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("packed 4 tiers of two-cannons"),
        "{text}"
    );
    let out = qibase(&[
        "unpack",
        "two-cannons",
        "--dir",
        &s(&packed),
        "--out",
        &s(&back),
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Bad input: one line on stderr, exit code 1.
    for args in [
        vec![
            "pack",
            "two-cannons",
            "--dir",
            &s(&back),
            "--out",
            &s(&back),
        ],
        vec![
            "pack",
            "no-such-game",
            "--dir",
            &s(&fast),
            "--out",
            &s(&packed),
        ],
        vec![
            "pack",
            "cannon-chess",
            "--dir",
            &s(&fast),
            "--out",
            &s(&packed),
        ],
        vec![
            "unpack",
            "two-cannons",
            "--dir",
            &s(&fast),
            "--out",
            &s(&back),
        ],
    ] {
        let out = qibase(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// `verify` and `info` read a compact directory: every tier resolved and
/// checked against its moves, the same count of positions as the fast
/// tables; `info` gives each tier's two parts; a damaged compact tier is
/// a BAD line and a failing exit, never a pass.
#[test]
fn verify_and_info_read_compact_tables() {
    let (fast, packed, g) = packed_copy("cp-verify");
    let run = |args: &[&str]| {
        let out = qibase(args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let verify = |d: &Path| {
        run(&[
            "verify",
            "cannon-chess",
            "--dir",
            d.to_str().unwrap(),
            "--quiet",
        ])
    };
    let (code, from_fast) = verify(&fast);
    assert_eq!(code, Some(0), "{from_fast}");
    let (code, from_compact) = verify(&packed);
    assert_eq!(code, Some(0), "{from_compact}");
    let summary = |text: &str| {
        text.lines()
            .last()
            .unwrap()
            .split(',')
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(summary(&from_fast), summary(&from_compact));
    assert!(from_compact.contains(" ok "), "{from_compact}");

    let (code, info) = run(&["info", "cannon-chess", "--dir", packed.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{info}");
    let tiers = g.tiers(Some(3)).len();
    assert_eq!(
        info.lines().filter(|l| l.ends_with("compact")).count(),
        tiers,
        "{info}"
    );
    assert!(
        info.contains(&format!("{tiers} tier(s) in the compact format")),
        "{info}"
    );

    // Cut a compact tier short: verify says BAD and fails.
    let t = *g.tiers(Some(3)).last().unwrap();
    let path = compact_path(&packed, g.id(), &g.tier_name(t));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 7]).unwrap();
    let (code, out) = verify(&packed);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("BAD"), "{out}");
    let _ = std::fs::remove_dir_all(fast.parent().unwrap());
}

/// The perfect opponent plays from compact tables as from fast ones: in
/// positions sampled from every tier of two subsets (both halves of each
/// tier, so the other half's values come from the one-ply search), its
/// move from the compact tables keeps the position's exact value by the
/// fast tables, and is the move it picks from the fast tables.
#[test]
fn the_perfect_opponent_plays_value_optimal_moves_from_compact_tables() {
    use qibase::ai::{choose, Difficulty};
    use qibase::Rng;
    use qibase::Value;

    fn check<G: Game>(g: &G, max_pieces: u32, name: &str) {
        let root = temp_dir(name);
        let (fast, packed) = (root.join("fast"), root.join("packed"));
        solve_into(g, &fast, Some(max_pieces));
        pack(g, &fast, &packed).unwrap();
        let truth = Tablebase::open(g, &fast);
        let (from_fast, from_compact) = (Tablebase::open(g, &fast), Tablebase::open(g, &packed));
        let mut rng = Rng::new(7);
        let mut moves = 0;
        for t in g.tiers(Some(max_pieces)) {
            let n = g.tier_size(t);
            for i in (0..n).step_by((n / 400).max(1) as usize) {
                let p = g.unrank(t, i);
                if g.rank(t, &p) != i {
                    continue;
                }
                let v = truth.probe(&p).unwrap();
                let (a, pick) =
                    choose(g, &from_compact, &p, Difficulty::Perfect, &mut rng).unwrap();
                let (_, want) = choose(g, &from_fast, &p, Difficulty::Perfect, &mut rng).unwrap();
                assert_eq!(pick, want, "{name}: {}", g.format_pos(&p));
                let Some(k) = pick else { continue };
                let after = truth.probe(&a.moves[k].after).unwrap();
                assert_eq!(
                    Value::of_move_to(after),
                    v,
                    "{name}: the move from compact tables is not optimal in {}",
                    g.format_pos(&p)
                );
                moves += 1;
            }
        }
        assert!(moves > 200, "{name}: {moves} moves checked");
        let _ = std::fs::remove_dir_all(&root);
    }
    check(&CannonChess::standard(), 3, "cp-ai-cc");
    check(&Cannons::two_cannons(), 4, "cp-ai-two");
}
