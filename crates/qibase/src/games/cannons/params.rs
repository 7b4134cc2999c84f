//! The cannon games' variant keys (`board`, `cannons`, `soldiers`,
//! `threshold`, `immobility`, `setup`; see [`crate::games::variant`]) and
//! the rule switches they set, and building a game from them.

use super::{Cannons, MIN_SOLDIERS};
use crate::game::Notation;
use crate::game::ParseError;
use crate::games::variant::{self, ParamDoc};
use crate::games::SpecError;
use crate::numbering::binom;

/// When immobile cannons lose.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Immobility {
    /// Only on their own turn (the common rule: no legal move, you lose);
    /// with the soldiers to move the game goes on. qibase's default.
    OnTurn,
    /// As soon as no cannon can move, whoever is to move (sanpao15's
    /// reading): with the soldiers to move such a position is already
    /// their win.
    Static,
}

/// The rule switches of the family (the presets use [`CannonsRules::PRESET`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CannonsRules {
    /// With fewer soldiers than this the cannons have won.
    pub threshold: u32,
    /// When immobile cannons lose.
    pub immobility: Immobility,
}

impl CannonsRules {
    /// The presets' reading: threshold 4, immobile cannons lose on their own turn.
    pub const PRESET: CannonsRules = CannonsRules {
        threshold: MIN_SOLDIERS,
        immobility: Immobility::OnTurn,
    };
}

/// The parameters of the family, documented for `--help` and errors.
pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "board",
        values: "WxH",
        help: "W files by H ranks, at most 64 points (presets: 5x5)",
    },
    ParamDoc {
        key: "cannons",
        values: "N",
        help: "number of cannons (presets: 2, 3); they are never captured",
    },
    ParamDoc {
        key: "soldiers",
        values: "N",
        help: "soldiers at the start, the most a position holds (presets: 12, 15)",
    },
    ParamDoc {
        key: "threshold",
        values: "N",
        help: "the cannons win as soon as fewer soldiers than N remain (presets: 4)",
    },
    ParamDoc {
        key: "immobility",
        values: "on-turn|static",
        help: "on-turn (default): immobile cannons lose on their own turn; static (sanpao15): \
               the game ends as soon as no cannon can move, whoever is to move",
    },
    ParamDoc {
        key: "setup",
        values: "RANKS",
        help: "start board, ranks from the top separated by '/', C S . (cannons move first); \
               default: soldiers fill the ranks from the top, a partial rank from both ends \
               inward, cannons centred on rank 1",
    },
];

/// A preset of the family with parameters applied: builds the game.
#[derive(Clone, Debug, PartialEq)]
pub struct CannonsParams {
    preset: &'static str,
    title: &'static str,
    /// Files.
    pub width: u32,
    /// Ranks.
    pub height: u32,
    /// Cannons (never captured).
    pub cannons: u32,
    /// Soldiers at the start, the most a position holds.
    pub soldiers: u32,
    /// The rule switches.
    pub rules: CannonsRules,
    /// An explicit start position (board part, optional side); `None`: the
    /// default pattern.
    pub setup: Option<String>,
}

impl CannonsParams {
    /// The family's disputed rule readings, as `key=value` switches that
    /// turn a preset's reading into another one (the report values the
    /// start under each).
    pub const RULE_SWITCHES: &'static [&'static str] = &["immobility=static", "threshold=5"];

    /// The parameters of preset `id`, if it is one of this family.
    pub fn preset(id: &str) -> Option<CannonsParams> {
        let (preset, title, cannons, soldiers) = match id {
            "two-cannons" => ("two-cannons", "Two Cannons, Twelve Soldiers", 2, 12),
            "three-cannons" => (
                "three-cannons",
                "Three Cannons, Fifteen Soldiers (三炮十五兵)",
                3,
                15,
            ),
            _ => return None,
        };
        Some(CannonsParams {
            preset,
            title,
            width: 5,
            height: 5,
            cannons,
            soldiers,
            rules: CannonsRules::PRESET,
            setup: None,
        })
    }

    /// Set one parameter (values are checked here; combinations in `build`).
    ///
    /// # Errors
    ///
    /// [`SpecError::BadValue`] for a value outside its key's range,
    /// [`SpecError::UnknownKey`] for a key the cannon games do not have.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError> {
        match key {
            "board" => (self.width, self.height) = variant::parse_board(value)?,
            "cannons" => self.cannons = variant::parse_count(key, value, 1, 31)?,
            "soldiers" => self.soldiers = variant::parse_count(key, value, 0, 31)?,
            "threshold" => self.rules.threshold = variant::parse_count(key, value, 0, 31)?,
            "immobility" => {
                self.rules.immobility =
                    match variant::parse_word(key, value, &["on-turn", "static"])? {
                        0 => Immobility::OnTurn,
                        _ => Immobility::Static,
                    }
            }
            "setup" => self.setup = Some(value.to_string()),
            _ => return Err(variant::unknown_key(self.preset, key, PARAMS)),
        }
        Ok(())
    }

    /// The rule parameters that differ from the preset, as key/value pairs.
    fn changed(&self) -> Vec<(&'static str, String)> {
        let base = Self::preset(self.preset).expect("a preset");
        let mut v = Vec::new();
        if (self.width, self.height) != (base.width, base.height) {
            v.push(("board", format!("{}x{}", self.width, self.height)));
        }
        if self.cannons != base.cannons {
            v.push(("cannons", self.cannons.to_string()));
        }
        if self.soldiers != base.soldiers {
            v.push(("soldiers", self.soldiers.to_string()));
        }
        if self.rules.threshold != base.rules.threshold {
            v.push(("threshold", self.rules.threshold.to_string()));
        }
        if self.rules.immobility != base.rules.immobility {
            v.push(("immobility", "static".to_string()));
        }
        v
    }

    /// The canonical variant name (the setup is not part of it).
    pub fn name(&self) -> String {
        variant::canonical(self.preset, self.changed())
    }

    /// Build the game, checking that the parameters fit together.
    ///
    /// # Errors
    ///
    /// [`SpecError::Unsupported`] when the parameters do not fit together
    /// (more pieces than points, no default setup, too large a numbering
    /// table) or a given setup does not parse.
    pub fn build(&self) -> Result<Cannons, SpecError> {
        self.build_with(true)
    }

    /// [`build`](Self::build), with or without the numbering tables (see
    /// [`Cannons::build`]).
    pub(crate) fn build_with(&self, tables: bool) -> Result<Cannons, SpecError> {
        let name = self.name();
        let unsupported = |message| Err(SpecError::Unsupported { message });
        let n = self.width * self.height;
        if self.cannons + self.soldiers > n {
            return unsupported(format!(
                "{name}: {} cannons and {} soldiers do not fit on {n} points",
                self.cannons, self.soldiers
            ));
        }
        // The numbering keeps a table entry per cannon set of up to c points.
        let table: u64 = (0..=self.cannons).map(|m| binom(n, m)).sum();
        if tables && table > 40_000_000 {
            return unsupported(format!(
                "{name}: {} cannons on {n} points need {table} numbering-table entries (at most 40000000)",
                self.cannons
            ));
        }
        if self.rules.threshold > self.soldiers {
            return unsupported(format!(
                "{name}: threshold {} is above the soldier count {}: the cannons would have won \
                 before the first move",
                self.rules.threshold, self.soldiers
            ));
        }
        let start = match (&self.setup, self.default_setup()) {
            (None, Ok(s)) => s,
            (None, Err(e)) => return Err(e.in_game(&name)),
            // A placeholder start to build the tables; replaced below.
            (Some(_), Ok(s)) => s,
            (Some(_), Err(_)) => self.placeholder_setup(),
        };
        let changed = self.changed();
        let title = if changed.is_empty() {
            self.title.to_string()
        } else {
            let list: Vec<String> = changed.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{} ({})", self.title, list.join(", "))
        };
        let mut g = Cannons::build(
            &name,
            &title,
            (self.width, self.height),
            self.cannons,
            self.soldiers,
            &start,
            tables,
        )
        .with_rules(self.rules, &name, &title);
        if let Some(setup) = &self.setup {
            let bad_setup = |error| SpecError::BadSetup {
                game: name.clone(),
                setup: setup.clone(),
                error,
            };
            let p = g
                .parse_pos(&variant::setup_position(setup, 'C'))
                .map_err(bad_setup)?;
            if p.soldiers.count_ones() != self.soldiers {
                return Err(bad_setup(ParseError::illegal_position(format!(
                    "it has {} soldiers, the variant {} (set soldiers= too)",
                    p.soldiers.count_ones(),
                    self.soldiers
                ))));
            }
            g.title = format!("{title}, setup {}", g.format_pos(&p));
            g = g.with_start(p);
        }
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Rules, Tiers};

    #[test]
    fn variant_names_and_hashes() {
        let mut p = CannonsParams::preset("three-cannons").unwrap();
        p.set("immobility", "static").unwrap();
        let g = p.build().unwrap();
        assert_eq!(g.id(), "three-cannons:immobility=static");
        assert_ne!(g.rules_hash(), Cannons::three_cannons().rules_hash());
        let mut q = p.clone();
        q.set("threshold", "5").unwrap();
        q.set("board", "5x5").unwrap();
        let h = q.build().unwrap();
        assert_eq!(h.id(), "three-cannons:immobility=static,threshold=5");
        assert_ne!(h.rules_hash(), g.rules_hash());
        // A setup moves the start only.
        let mut s = CannonsParams::preset("two-cannons").unwrap();
        s.set("setup", "SSSSS/SSSSS/.S.S./...../.C.C.").unwrap();
        let sg = s.build().unwrap();
        assert_eq!(sg.id(), "two-cannons");
        assert_eq!(sg.rules_hash(), Cannons::two_cannons().rules_hash());
        assert_eq!(
            sg.format_pos(&sg.start()),
            "SSSSS/SSSSS/.S.S./...../.C.C. C"
        );
        s.set("setup", "SSSSS/SSSSS/.S.../...../.C.C.").unwrap();
        let e = s.build().err().unwrap();
        assert!(matches!(e, SpecError::BadSetup { .. }), "{e:?}");
        assert!(e.to_string().contains("11 soldiers"));
        let mut b = CannonsParams::preset("two-cannons").unwrap();
        b.set("board", "4x5").unwrap();
        let bg = b.build().unwrap();
        assert_eq!(bg.format_pos(&bg.start()), "SSSS/SSSS/SSSS/..../.CC. C");
        assert_eq!(bg.symmetry_count(), 4);
        b.set("soldiers", "17").unwrap();
        assert!(b.build().is_err());
        assert!(b
            .set("colour", "red")
            .unwrap_err()
            .to_string()
            .contains("allowed: board"));
        assert!(b
            .set("immobility", "never")
            .unwrap_err()
            .to_string()
            .contains("on-turn, static"));
    }
}
