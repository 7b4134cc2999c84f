//! The report section on rule readings and setups: the start value of the
//! game under each reading of its disputed rules (each switch of its family
//! flipped, where that variant's tables are in the tablebase directory) and
//! from each plausible setup (which needs no new tables: every position is
//! solved). Game-agnostic: the siblings are built from variant strings.

use std::path::Path;

use qibase::games::variant;
use qibase::games::AnyGame;
use qibase::tablebase::Tablebase;
use qibase::with_game;
use qibase::{Notation, Rules, Tiers};

/// The start value of `spec` (with its own setup, or `setup` if given),
/// if its tables are in `dir`.
fn start_value(spec: &str, setup: Option<&str>, dir: &Path) -> Option<String> {
    let any = AnyGame::from_id(spec).ok()?;
    with_game!(any, |g| {
        let p = match setup {
            Some(s) => {
                let letter = g.side_letter(qibase::Side::First);
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
    let Ok(any) = AnyGame::from_id(id) else {
        return String::new();
    };
    let (sws, setups) = (any.rule_switches(), any.plausible_setups());
    if sws.is_empty() {
        return String::new();
    }
    // The readings keep this game's board and material: a reading is a
    // rule switch, so the parameters that are not switches stay as they are
    // (a 5 × 5 game's readings are 5 × 5 games).
    let switch_keys: Vec<&str> = sws
        .iter()
        .map(|sw| sw.split_once('=').map_or(*sw, |(k, _)| k))
        .collect();
    let geometry: Vec<String> = variant::split(id)
        .map(|raw| {
            raw.params
                .iter()
                .filter(|(k, _)| !switch_keys.contains(k))
                .map(|(k, v)| format!("{k}={v}"))
                .collect()
        })
        .unwrap_or_default();
    let with = |extra: &[&str]| {
        let params: Vec<String> = geometry
            .iter()
            .cloned()
            .chain(extra.iter().map(|e| e.to_string()))
            .collect();
        if params.is_empty() {
            base.to_string()
        } else {
            format!("{base}:{}", params.join(","))
        }
    };
    let mut s = String::from("## Rule readings and setups\n\n");
    if geometry.is_empty() {
        s.push_str(
            "The start value under each reading of the disputed rules (the preset's rules, each \
             rule switch of the family alone, all of them, and this game; `qibase solve VARIANT` \
             makes the tables of a reading marked not solved) and, under this game's rules, from \
             each plausible setup (no new tables needed).\n\n",
        );
    } else {
        s.push_str(
            "The start value under each reading of the disputed rules on this game's board and \
             material (the default rules, each rule switch of the family alone, all of them, and \
             this game; `qibase solve VARIANT` makes the tables of a reading marked not solved) and, \
             under this game's rules, from each plausible setup (no new tables needed).\n\n",
        );
    }
    s.push_str("| variant | start value |\n|---|---|\n");
    // The base rules, each switch alone, all switches together, and this
    // game; by canonical name (sorted keys), as the tables are named.
    let canonical = |spec: &str| {
        AnyGame::from_id(spec)
            .ok()
            .map(|any| with_game!(any, |g| g.id().to_string()))
    };
    let mut candidates = vec![with(&[])];
    candidates.extend(sws.iter().map(|sw| with(&[sw])));
    candidates.push(with(sws));
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
    if !setups.is_empty() {
        s.push_str("\n| setup | start position | value (first player to move) |\n|---|---|---|\n");
        for (label, board) in &setups {
            let v = start_value(id, Some(board), dir).unwrap_or_else(|| "not solved".into());
            s.push_str(&format!("| {label} | `{board}` | {v} |\n"));
        }
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use qibase::games::GAME_IDS;

    /// A variant's readings keep its board and material; a preset's are
    /// the preset with each switch.
    #[test]
    fn readings_keep_the_board_and_material() {
        let empty = std::env::temp_dir().join("qibase-readings-none");
        let rows = |id: &str| -> Vec<String> {
            section(id, &empty)
                .lines()
                .filter_map(|l| l.strip_prefix("| `"))
                .filter_map(|l| l.split('`').next())
                .map(str::to_string)
                .collect()
        };
        let five = rows("cannon-chess:board=5x5,pieces=7");
        assert_eq!(
            five,
            [
                "cannon-chess:board=5x5,pieces=7",
                "cannon-chess:board=5x5,pieces=7,tiao=any",
                "cannon-chess:board=5x5,lone=step,pieces=7",
                "cannon-chess:board=5x5,one-v-one=play,pieces=7",
                "cannon-chess:board=5x5,lone=step,one-v-one=play,pieces=7,tiao=any",
            ],
            "{five:?}"
        );
        let preset = rows("cannon-chess-4x4:tiao=any");
        assert_eq!(preset[0], "cannon-chess-4x4");
        assert!(preset.contains(&"cannon-chess-4x4:tiao=any".to_string()));
        assert!(section("cannon-chess:board=5x5", &empty).contains("not solved"));
    }

    /// Every game's plausible setups are positions of its own material,
    /// distinct, and the first is the game's own start.
    #[test]
    fn plausible_setups_are_positions_and_start_with_the_seed() {
        for id in GAME_IDS.iter().copied().chain([
            "cannon-chess:board=6x5,pieces=8",
            "cannon-chess:board=5x5",
            "cannon-chess:board=5x5,pieces=7",
        ]) {
            let any = AnyGame::from_id(id).unwrap();
            let setups = any.plausible_setups();
            // The families with disputed rules list them.
            assert_eq!(any.rule_switches().is_empty(), id == "weiming", "{id}");
            with_game!(any, |g| {
                let letter = g.side_letter(qibase::Side::First);
                let mut boards: Vec<&String> = setups.iter().map(|(_, b)| b).collect();
                for (label, board) in &setups {
                    let p = g
                        .parse_pos(&variant::setup_position(board, letter))
                        .unwrap_or_else(|e| panic!("{id}: setup '{label}' ({board}): {e}"));
                    assert_eq!(g.tier_of(&p), g.tier_of(&g.start()), "{id}: {label}");
                }
                if let Some((_, first)) = setups.first() {
                    let start = g.format_pos(&g.start());
                    assert!(
                        start.starts_with(first.as_str()),
                        "{id}: {start} vs {first}"
                    );
                }
                boards.sort();
                boards.dedup();
                assert_eq!(boards.len(), setups.len(), "{id}: setups repeat");
            });
        }
    }
}
