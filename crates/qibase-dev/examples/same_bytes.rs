//! Check that two solves wrote the same tier files byte for byte, apart
//! from what a header records about the run (seconds, threads, peak
//! memory): the gate for a change that must not change the tables' bytes
//! (a faster encoder, a faster solver).
//!
//! `cargo run --release -p qibase-dev --example same_bytes -- GAME DIR_A DIR_B`
//!
//! Prints one line per tier file and a summary; exits non-zero when a file
//! differs, is missing from either directory, or cannot be read.

use std::path::Path;
use std::process::ExitCode;

use qibase::tablebase::internals::parse_layout;

/// Why the two files of one tier are not the same, if they are not.
fn differ(a: &Path, b: &Path) -> Option<String> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    let (x, y) = match (read(a), read(b)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => return Some(e),
    };
    let (lx, ly) = match (parse_layout(a, &x), parse_layout(b, &y)) {
        (Ok(lx), Ok(ly)) => (lx, ly),
        (Err(e), _) | (_, Err(e)) => return Some(e.to_string()),
    };
    if lx.header.without_run_figures() != ly.header.without_run_figures() {
        return Some("headers differ".into());
    }
    let (bx, by) = (&x[lx.index_start as usize..], &y[ly.index_start as usize..]);
    if bx != by {
        let at = bx.iter().zip(by).position(|(p, q)| p != q);
        return Some(match at {
            Some(at) => format!("bytes differ from offset {at} of the block index on"),
            None => format!("lengths differ: {} and {} bytes", bx.len(), by.len()),
        });
    }
    None
}

/// The tier files (`*.qtb`) of a directory, by name.
fn tier_files(dir: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".qtb"))
        .collect();
    names.sort();
    Ok(names)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [game, a, b] = args.as_slice() else {
        eprintln!("usage: same_bytes GAME DIR_A DIR_B");
        return ExitCode::from(2);
    };
    let (da, db) = (Path::new(a).join(game), Path::new(b).join(game));
    let (na, nb) = match (tier_files(&da), tier_files(&db)) {
        (Ok(na), Ok(nb)) => (na, nb),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("same_bytes: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut bad = 0;
    for name in na.iter().filter(|n| !nb.contains(n)) {
        println!("{name}: only in {a}");
        bad += 1;
    }
    for name in nb.iter().filter(|n| !na.contains(n)) {
        println!("{name}: only in {b}");
        bad += 1;
    }
    let (mut compared, mut same) = (0, 0);
    for name in na.iter().filter(|n| nb.contains(n)) {
        compared += 1;
        match differ(&da.join(name), &db.join(name)) {
            Some(why) => {
                println!("{name}: {why}");
                bad += 1;
            }
            None => {
                println!("{name}: same");
                same += 1;
            }
        }
    }
    println!("{compared} tier files compared, {same} the same, {bad} problems");
    if bad == 0 && compared > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
