//! `qibase solve --memory SIZE`: a solve under a memory budget far below
//! what its largest tier needs writes the tier files of a solve without
//! one, byte for byte apart from the recorded timings, and `verify` under
//! such a budget says what it says without one; a budget too small for
//! one region, or not a size, is a one-line error and solves nothing.

use crate::common::{assert_same_tables, qibase, temp_dir};

#[test]
fn a_solve_under_a_memory_budget_writes_the_tables_of_one_without() {
    // Budgets of about a twentieth of each subset's in-memory need.
    for (game, max, budget) in [("two-cannons", "6", "3MiB"), ("cannon-chess", "4", "1MiB")] {
        let (plain, spilled) = (
            temp_dir(&format!("spill-plain-{game}")),
            temp_dir(&format!("spill-budget-{game}")),
        );
        let solve = |dir: &std::path::Path, extra: &[&str]| {
            let mut args = vec![
                "solve",
                game,
                "--max-pieces",
                max,
                "--quiet",
                "--dir",
                dir.to_str().unwrap(),
            ];
            args.extend_from_slice(extra);
            let out = qibase(&args);
            assert!(out.status.success(), "{game} {extra:?}: {out:?}");
            String::from_utf8(out.stdout).unwrap()
        };
        solve(&plain, &[]);
        let table = solve(&spilled, &["--memory", budget]);
        // The table says how many windows each tier was solved in: the
        // largest tiers in many, the smallest in memory (0).
        let header = table.lines().nth(1).unwrap();
        assert!(header.ends_with("windows"), "{table}");
        let windows: Vec<u64> = table
            .lines()
            .skip(2)
            .filter_map(|l| l.split_whitespace().nth(9)?.parse().ok())
            .collect();
        assert!(windows.iter().any(|&w| w >= 10), "{table}");
        assert!(windows.contains(&0), "{table}");
        assert_same_tables(&plain, &spilled, game);
        assert!(!spilled.join(game).join(".spill").exists(), "scratch left");
        // `verify` under a budget checks the larger tiers out of core,
        // with the verdicts and counts of the check in memory.
        let verify = |extra: &[&str]| {
            let mut args = vec!["verify", game, "--quiet", "--dir", plain.to_str().unwrap()];
            args.extend_from_slice(extra);
            let out = qibase(&args);
            assert!(out.status.success(), "{game} {extra:?}: {out:?}");
            let text = String::from_utf8(out.stdout).unwrap();
            // The tier lines, and the total without its seconds.
            let lines: Vec<String> = text
                .lines()
                .map(|l| l.split(" tier file(s)").next().unwrap().to_string())
                .collect();
            lines
        };
        let in_memory = verify(&[]);
        assert!(in_memory.iter().any(|l| l.contains("positions checked")));
        assert_eq!(verify(&["--memory", "64KiB"]), in_memory, "{game}");
        assert!(!plain.join(game).join(".verify").exists(), "scratch left");
        let _ = std::fs::remove_dir_all(&plain);
        let _ = std::fs::remove_dir_all(&spilled);
    }
}

#[test]
fn a_memory_budget_too_small_or_not_a_size_is_one_line() {
    let dir = temp_dir("spill-refused");
    let d = dir.to_str().unwrap();
    let run = |memory: &str| {
        qibase(&[
            "solve",
            "cannon-chess",
            "--max-pieces",
            "4",
            "--dir",
            d,
            "--quiet",
            "--memory",
            memory,
        ])
    };
    let out = run("100KiB");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    // The first tier whose region does not fit: 4v2, regions of 8,192
    // slots, 16 bytes a slot.
    assert!(
        err.contains("100.0 KiB is too small for tier 4v2")
            && err.contains("one region of 8192 slots")
            && err.contains("at least 128.0 KiB"),
        "{err}"
    );
    assert!(!dir.join("cannon-chess").exists(), "nothing is solved");
    for bad in ["lots", "12 parsecs", "0", "-5MiB"] {
        let out = run(bad);
        assert_eq!(out.status.code(), Some(2), "{bad}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        // A negative size reads as an unknown option (clap's one line).
        let named = if bad.starts_with('-') {
            "unexpected argument"
        } else {
            "--memory"
        };
        assert!(err.contains(named), "{bad}: {err}");
    }
    assert!(!dir.exists(), "nothing is solved");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--estimate --memory SIZE` says how the solve under that budget takes
/// each tier, as the solve itself does (the same library function), and
/// which tier a budget too small stops at.
#[test]
fn the_estimate_under_a_budget_names_the_tiers_solved_out_of_core() {
    let run = |args: &[&str]| {
        let out = qibase(args);
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let est = run(&["solve", "cannon-chess", "--estimate", "--memory", "72MiB"]);
    let row = |name: &str| {
        est.lines()
            .skip_while(|l| !l.starts_with("under --memory"))
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{est}"))
            .to_string()
    };
    assert!(row("6v5").ends_with("out of core, 9 windows"), "{est}");
    assert!(row("2v1").ends_with("in memory"), "{est}");
    assert!(
        est.contains("6 of 28 tiers out of core; scratch disk at least"),
        "{est}"
    );
    let small = run(&["solve", "cannon-chess", "--estimate", "--memory", "100KiB"]);
    assert!(
        small.contains("the budget is too small: tier 4v2 needs at least 128.0 KiB"),
        "{small}"
    );
    // A budget and MPI ranks do not go together (yet).
    let out = qibase(&[
        "solve",
        "weiming",
        "--estimate",
        "--ranks",
        "2",
        "--memory",
        "1GiB",
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}
