//! `qibase report` through the binary, on weiming: the report's numbers
//! against an independent in-memory solve and search.

use crate::common::{qibase, temp_dir};

use std::collections::{HashSet, VecDeque};
use std::path::Path;

use qibase::games::{AnyGame, Weiming};
use qibase::Value;
use qibase::{Rules, Tiers};

fn num(s: &str) -> u64 {
    s.split_whitespace()
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap_or_else(|_| panic!("not a number: {s}"))
}

/// The cells of the first table row starting with `prefix`.
fn row<'a>(md: &'a str, prefix: &str) -> Vec<&'a str> {
    let line = md
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no row {prefix}"));
    line.trim_matches('|').split('|').map(str::trim).collect()
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().into_string().unwrap(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn weiming_report_matches_the_tablebase() {
    let tb = temp_dir("tb");
    let out1 = temp_dir("out1");
    let out2 = temp_dir("out2");
    let (tbs, o1, o2) = (
        tb.to_str().unwrap(),
        out1.to_str().unwrap(),
        out2.to_str().unwrap(),
    );
    let s = qibase(&["solve", "weiming", "--dir", tbs, "--quiet"]);
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    for o in [o1, o2] {
        let r = qibase(&["report", "weiming", "--dir", tbs, "--out", o]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    let md = std::fs::read_to_string(out1.join("weiming.md")).unwrap();

    // Independent in-memory solve.
    let g = Weiming::new();
    let solved = AnyGame::from_id(g.id()).unwrap().solve_in_memory(None);
    let start = g.start();
    let t = g.tier_of(&start);
    let values = &solved[&t];
    let start_value = Value::unpack(values[g.rank(t, &start) as usize]).unwrap();
    let line = md
        .lines()
        .find(|l| l.starts_with("- Start value (side to move):"))
        .expect("start value line");
    assert_eq!(
        line,
        format!("- Start value (side to move): `{start_value}`")
    );

    // Totals add up to 20,160 and equal the solve's counts.
    let all = row(&md, "| **all** | 20,160 |");
    let (n, w, d, l) = (num(all[2]), num(all[3]), num(all[4]), num(all[5]));
    assert_eq!(n, 20_160);
    assert_eq!(w + d + l, 20_160);
    let count = |f: fn(&Value) -> bool| {
        values
            .iter()
            .filter(|&&p| Value::unpack(p).as_ref().is_some_and(f))
            .count() as u64
    };
    assert_eq!(w, count(|v| matches!(v, Value::Win(_))));
    assert_eq!(d, count(|v| matches!(v, Value::Draw)));
    assert_eq!(l, count(|v| matches!(v, Value::Loss(_))));
    let sides: u64 = ["| X | ", "| O | "]
        .iter()
        .map(|p| num(row(&md, p)[1]))
        .sum();
    assert_eq!(sides, 20_160);

    // Reachability equals a plain search over positions.
    let mut seen = HashSet::from([start]);
    let mut queue = VecDeque::from([start]);
    let mut moves = Vec::new();
    while let Some(p) = queue.pop_front() {
        if g.rule_end(&p).is_some() {
            continue;
        }
        moves.clear();
        g.moves(&p, &mut moves);
        for m in &moves {
            let q = g.apply(&p, m);
            if seen.insert(q) {
                queue.push_back(q);
            }
        }
    }
    let reach = row(&md, "| reachable | ");
    assert_eq!(num(reach[1]), seen.len() as u64);
    let reach_wins = seen
        .iter()
        .filter(|p| {
            matches!(
                Value::unpack(values[g.rank(t, p) as usize]),
                Some(Value::Win(_))
            )
        })
        .count() as u64;
    assert_eq!(num(reach[2]), reach_wins);

    // Deterministic: both runs wrote identical files, figures included.
    let (f1, f2) = (files(&out1), files(&out2));
    assert!(f1.iter().any(|(n, _)| n.ends_with(".svg")));
    assert_eq!(f1, f2);

    for d in [tb, out1, out2] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn report_without_tablebase_fails_with_one_line() {
    let tb = temp_dir("empty");
    let out = temp_dir("empty-out");
    std::fs::create_dir_all(&tb).unwrap();
    let r = qibase(&[
        "report",
        "weiming",
        "--dir",
        tb.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!r.status.success());
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("weiming"), "{err}");
    assert!(!out.join("weiming.md").exists());
    let _ = std::fs::remove_dir_all(&tb);
}

/// A game stored with symmetry reduction (colour swap and the 8 symmetries
/// of the 4×4 board): the report must count positions, not table slots, and
/// must skip the unused slots (which the tablebase fills with "don't care"
/// values).
#[test]
fn symmetric_tables_count_positions_not_slots() {
    use qibase::games::CannonChess;
    let g = CannonChess::four_by_four();
    let tb = temp_dir("tb44");
    let out = temp_dir("out44");
    let (tbs, o) = (tb.to_str().unwrap(), out.to_str().unwrap());
    let s = qibase(&["solve", "cannon-chess-4x4", "--dir", tbs, "--quiet"]);
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    let r = qibase(&["report", "cannon-chess-4x4", "--dir", tbs, "--out", o]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let md = std::fs::read_to_string(out.join("cannon-chess-4x4.md")).unwrap();

    let total: u64 = g.tiers(None).iter().map(|&t| g.tier_positions(t)).sum();
    assert_eq!(total, 42_189_578);
    let slots: u64 = g.tiers(None).iter().map(|&t| g.tier_size(t)).sum();
    let used: u64 = g
        .tiers(None)
        .iter()
        .map(|&t| {
            (0..g.tier_size(t))
                .filter(|&i| g.rank(t, &g.unrank(t, i)) == i)
                .count() as u64
        })
        .sum();
    let line = md
        .lines()
        .find(|l| l.starts_with("- Positions:"))
        .expect("positions line");
    let expected = format!(
        "- Positions: {} in all ({} table slots, {} of them holding a position)",
        group(total),
        group(slots),
        group(used)
    );
    assert!(line.starts_with(&expected), "{line}\nexpected {expected}");
    let _ = std::fs::remove_dir_all(&tb);
    let _ = std::fs::remove_dir_all(&out);
}

/// 1234567 → "1,234,567", as the report writes numbers.
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The committed weiming report is what `qibase report` makes of the
/// committed weiming table today, byte for byte (figures and markdown):
/// a change in the report's text, its numbers or the file sizes it quotes
/// shows here, and `reports/` is regenerated with it.
#[test]
fn committed_weiming_report_is_regenerated_byte_for_byte() {
    let root = crate::common::root();
    let out = temp_dir("committed-report");
    let r = qibase(&[
        "report",
        "weiming",
        "--dir",
        root.join("tablebases").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let made = files(&out);
    assert_eq!(made.len(), 4, "the report and its three figures");
    for (name, bytes) in made {
        let committed = std::fs::read(root.join("reports").join(&name))
            .unwrap_or_else(|e| panic!("reports/{name}: {e}"));
        assert!(
            bytes == committed,
            "reports/{name} differs from what `qibase report weiming` writes today; regenerate it"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
