//! Embeds the committed puzzle sets (`puzzles/<game-id>.json`, written by
//! `qibase puzzles`) in the binary: every `.json` file there becomes one
//! entry of `$OUT_DIR/puzzles.rs`, served at `/api/v1/{game}/puzzles`.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("puzzles");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut sets: Vec<(String, String)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let path = e.path();
            println!("cargo:rerun-if-changed={}", path.display());
            if path.extension().and_then(|x| x.to_str()) != Some("json") {
                continue;
            }
            if let Some(id) = path.file_stem().and_then(|s| s.to_str()) {
                sets.push((id.to_string(), path.display().to_string()));
            }
        }
    }
    sets.sort();
    let mut out = String::from(
        "/// (game id, the set's JSON), one per file in `puzzles/`.\n\
         pub const PUZZLE_SETS: &[(&str, &[u8])] = &[\n",
    );
    for (id, path) in &sets {
        let _ = writeln!(out, "    ({id:?}, include_bytes!({path:?})),");
    }
    out.push_str("];\n");
    let target =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("puzzles.rs");
    std::fs::write(target, out).expect("write puzzles.rs");
}
