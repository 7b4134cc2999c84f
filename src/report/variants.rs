//! The report section on rule readings and setups: the start value of the
//! game under each reading of its disputed rules (each switch of its family
//! flipped, where that variant's tables are in the tablebase directory) and
//! from each plausible setup (which needs no new tables: every position is
//! solved). Game-agnostic: the siblings are built from variant strings.

use std::path::Path;

use crate::games::variant;
use crate::games::AnyGame;
use crate::tablebase::Tablebase;
use crate::with_game;
use crate::Game;

/// The rule switches of each family, as `key=value` to add to a base name.
fn switches(base: &str) -> &'static [&'static str] {
    match base {
        "cannon-chess" | "cannon-chess-4x4" => &["tiao=any", "lone=step", "one-v-one=play"],
        "two-cannons" | "three-cannons" => &["immobility=static", "threshold=5"],
        _ => &[],
    }
}

/// Plausible start positions on the base's board (board part only), with
/// a label: the seed's pattern and its readings.
fn setups(base: &str, id: &str) -> Vec<(&'static str, String)> {
    let board = id.contains("board=");
    match base {
        "cannon-chess" if !board => vec![
            (
                "seed: edge row + its two ends",
                "OOOO/O..O/..../X..X/XXXX".into(),
            ),
            (
                "edge row + the middle pair",
                "OOOO/.OO./..../.XX./XXXX".into(),
            ),
        ],
        "cannon-chess-4x4" if !board => vec![
            (
                "seed: edge row + its two ends",
                "OOOO/O..O/X..X/XXXX".into(),
            ),
            ("edge row + the middle pair", "OOOO/.OO./.XX./XXXX".into()),
        ],
        "two-cannons" if !board => vec![
            (
                "qibase: a3 e3, cannons b1 d1",
                "SSSSS/SSSSS/S...S/...../.C.C.".into(),
            ),
            (
                "b3 d3, cannons b1 d1",
                "SSSSS/SSSSS/.S.S./...../.C.C.".into(),
            ),
            (
                "a3 e3, cannons a1 e1",
                "SSSSS/SSSSS/S...S/...../C...C".into(),
            ),
            (
                "b3 d3, cannons a1 e1",
                "SSSSS/SSSSS/.S.S./...../C...C".into(),
            ),
        ],
        "three-cannons" if !board => vec![
            (
                "seed: cannons b1 c1 d1",
                "SSSSS/SSSSS/SSSSS/...../.CCC.".into(),
            ),
            ("cannons a1 c1 e1", "SSSSS/SSSSS/SSSSS/...../C.C.C".into()),
            ("cannons b1 d1 c2", "SSSSS/SSSSS/SSSSS/..C../.C.C.".into()),
        ],
        _ => Vec::new(),
    }
}

/// The start value of `spec` (with its own setup, or `setup` if given),
/// if its tables are in `dir`.
fn start_value(spec: &str, setup: Option<&str>, dir: &Path) -> Option<String> {
    let any = AnyGame::from_id(spec).ok()?;
    with_game!(any, |g| {
        let p = match setup {
            Some(s) => {
                let letter = g.side_letter(crate::Side::First);
                g.parse_pos(&variant::setup_position(s, letter)).ok()?
            }
            None => g.start(),
        };
        let tb = Tablebase::open(g, dir);
        tb.probe(&p).ok().map(|v| v.to_string())
    })
}

/// The section's markdown (empty for a game without rule switches).
pub fn section(id: &str, dir: &Path) -> String {
    let base = id.split(':').next().unwrap_or(id);
    if switches(base).is_empty() {
        return String::new();
    }
    let mut s = String::from("## Rule readings and setups\n\n");
    s.push_str(
        "The start value under each reading of the disputed rules (the preset's rules, each \
         rule switch of the family alone, all of them, and this game; `qibase solve VARIANT` \
         makes the tables of a reading not yet solved) and, under this game's rules, from \
         each plausible setup (no new tables needed).\n\n",
    );
    s.push_str("| variant | start value |\n|---|---|\n");
    // The base rules, each switch alone, all switches together, and this
    // game; by canonical name (sorted keys), as the tables are named.
    let canonical = |spec: &str| {
        AnyGame::from_id(spec)
            .ok()
            .map(|any| with_game!(any, |g| g.id().to_string()))
    };
    let sws = switches(base);
    let mut candidates = vec![base.to_string()];
    candidates.extend(sws.iter().map(|sw| format!("{base}:{sw}")));
    candidates.push(format!("{base}:{}", sws.join(",")));
    candidates.push(id.to_string());
    let mut specs: Vec<String> = Vec::new();
    for c in candidates {
        if let Some(name) = canonical(&c) {
            if !specs.contains(&name) {
                specs.push(name);
            }
        }
    }
    for spec in &specs {
        let v = start_value(spec, None, dir).unwrap_or_else(|| "not solved".into());
        s.push_str(&format!("| `{spec}` | {v} |\n"));
    }
    let setups = setups(base, id);
    if !setups.is_empty() {
        s.push_str("\n| setup | start position | value (first player to move) |\n|---|---|---|\n");
        for (label, board) in setups {
            let v = start_value(id, Some(&board), dir).unwrap_or_else(|| "not solved".into());
            s.push_str(&format!("| {label} | `{board}` | {v} |\n"));
        }
    }
    s.push('\n');
    s
}
