//! Cannon chess's variant keys (`board`, `pieces`, `tiao`, `lone`,
//! `one-v-one`, `setup`; see [`crate::games::variant`]) and the rule
//! switches they set, and building a game from them.

use super::{CannonChess, MAX_PIECES, MAX_SIDE};
use crate::game::Notation;
use crate::games::variant::{self, ParamDoc};
use crate::games::SpecError;

/// Who may capture two enemy pieces by entering between them (挑).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Tiao {
    /// Only a lone piece (the original rules).
    Lone,
    /// Any piece (the traditional 六子冲 rule as Lin Jifu gives it).
    Any,
}

/// The rule switches of the family (the presets use [`CcRules::PRESET`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CcRules {
    /// Who captures two enemies by stopping between them (挑).
    pub tiao: Tiao,
    /// A lone piece slides any distance (else it steps like the others).
    pub lone_slides: bool,
    /// One piece against one is a draw by rule (else play goes on).
    pub one_v_one_draw: bool,
}

impl CcRules {
    /// The presets' reading: 挑 by a lone piece, lone pieces slide, one against one is a draw.
    pub const PRESET: CcRules = CcRules {
        tiao: Tiao::Lone,
        lone_slides: true,
        one_v_one_draw: true,
    };
}

/// The parameters of the family, documented for `--help` and errors.
pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "board",
        values: "WxH",
        help: "W files by H ranks, at most 64 points (cannon-chess 4x5, cannon-chess-4x4 4x4)",
    },
    ParamDoc {
        key: "pieces",
        values: "N",
        help: "pieces a side at the start, the most a side may have (presets: 6)",
    },
    ParamDoc {
        key: "tiao",
        values: "lone|any",
        help: "who captures two enemies by stopping between them (挑): only a lone piece \
               (default, the original rules) or any piece (traditional 六子冲, Lin Jifu)",
    },
    ParamDoc {
        key: "lone",
        values: "slide|step",
        help: "a lone piece slides any distance along a line (default) or steps like the others",
    },
    ParamDoc {
        key: "one-v-one",
        values: "draw|play",
        help: "one piece against one is a draw by rule (default) or play goes on",
    },
    ParamDoc {
        key: "setup",
        values: "RANKS",
        help: "start board, ranks from the top separated by '/', X O . (X moves first); \
               default: a full edge row plus the two ends of the next row (filled from \
               both ends inward as the piece count allows), O mirrored at the top",
    },
];

/// A preset of the family with parameters applied: builds the game.
#[derive(Clone, Debug, PartialEq)]
pub struct CannonChessParams {
    preset: &'static str,
    title: &'static str,
    /// Files.
    pub width: u32,
    /// Ranks.
    pub height: u32,
    /// Pieces a side at the start, the most a side may have.
    pub pieces: u32,
    /// The rule switches.
    pub rules: CcRules,
    /// An explicit start position (board part, optional side); `None`: the
    /// default pattern.
    pub setup: Option<String>,
}

impl CannonChessParams {
    /// The family's disputed rule readings, as `key=value` switches that
    /// turn a preset's reading into another one (the report values the
    /// start under each).
    pub const RULE_SWITCHES: &'static [&'static str] = &["tiao=any", "lone=step", "one-v-one=play"];

    /// The parameters of preset `id`, if it is one of this family.
    pub fn preset(id: &str) -> Option<CannonChessParams> {
        let (preset, title, height) = match id {
            "cannon-chess" => ("cannon-chess", "Cannon Chess 5×4", 5),
            "cannon-chess-4x4" => ("cannon-chess-4x4", "Cannon Chess 4×4 (六子冲 board)", 4),
            _ => return None,
        };
        Some(CannonChessParams {
            preset,
            title,
            width: 4,
            height,
            pieces: MAX_SIDE,
            rules: CcRules::PRESET,
            setup: None,
        })
    }

    /// Set one parameter (values are checked here; combinations in `build`).
    ///
    /// # Errors
    ///
    /// [`SpecError::BadValue`] for a value outside its key's range,
    /// [`SpecError::UnknownKey`] for a key cannon chess does not have.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError> {
        let word = |words: &[&str]| variant::parse_word(key, value, words);
        match key {
            "board" => (self.width, self.height) = variant::parse_board(value)?,
            "pieces" => self.pieces = variant::parse_count(key, value, 1, MAX_PIECES)?,
            "tiao" => self.rules.tiao = [Tiao::Lone, Tiao::Any][word(&["lone", "any"])?],
            "lone" => self.rules.lone_slides = word(&["slide", "step"])? == 0,
            "one-v-one" => self.rules.one_v_one_draw = word(&["draw", "play"])? == 0,
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
        if self.pieces != base.pieces {
            v.push(("pieces", self.pieces.to_string()));
        }
        if self.rules.tiao != base.rules.tiao {
            v.push(("tiao", "any".to_string()));
        }
        if self.rules.lone_slides != base.rules.lone_slides {
            v.push(("lone", "step".to_string()));
        }
        if self.rules.one_v_one_draw != base.rules.one_v_one_draw {
            v.push(("one-v-one", "play".to_string()));
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
    /// (more pieces than the board holds, no default setup, too large a
    /// numbering table) or a given setup does not parse.
    pub fn build(&self) -> Result<CannonChess, SpecError> {
        self.build_with(true)
    }

    /// [`build`](Self::build), with or without the numbering tables (see
    /// [`CannonChess::build`]).
    pub(crate) fn build_with(&self, tables: bool) -> Result<CannonChess, SpecError> {
        let name = self.name();
        if 2 * self.pieces > self.width * self.height {
            return Err(SpecError::Unsupported {
                message: format!(
                    "{name}: {} pieces a side do not fit on {} points",
                    self.pieces,
                    self.width * self.height
                ),
            });
        }
        let changed = self.changed();
        let title = if changed.is_empty() {
            self.title.to_string()
        } else {
            let list: Vec<String> = changed.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("Cannon Chess ({})", list.join(", "))
        };
        // The tables are built with the default start (or, if it does not
        // fit, an empty board) and the setup replaces it.
        let start = match (&self.setup, self.default_setup()) {
            (_, Ok(s)) => s,
            (None, Err(e)) => return Err(e.in_game(&name)),
            (Some(_), Err(_)) => {
                let ranks = vec![".".repeat(self.width as usize); self.height as usize];
                format!("{} X", ranks.join("/"))
            }
        };
        let g = CannonChess::build(
            &name,
            &title,
            self.width,
            self.height,
            &start,
            self.pieces,
            self.rules,
            tables,
        )
        .map_err(|e| e.in_game(&name))?;
        let Some(setup) = &self.setup else {
            return Ok(g);
        };
        let p = g
            .parse_pos(&variant::setup_position(setup, 'X'))
            .map_err(|error| SpecError::BadSetup {
                game: name.clone(),
                setup: setup.clone(),
                error,
            })?;
        let title = format!("{title}, setup {}", g.format_pos(&p));
        Ok(g.with_start(p, &title))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Rules, Tiers};

    #[test]
    fn variant_names_setups_and_errors() {
        let mut p = CannonChessParams::preset("cannon-chess").unwrap();
        p.set("tiao", "any").unwrap();
        p.set("board", "4x5").unwrap();
        let g = p.build().unwrap();
        assert_eq!(g.id(), "cannon-chess:tiao=any");
        assert_ne!(g.rules_hash(), CannonChess::standard().rules_hash());
        p.set("board", "5x5").unwrap();
        p.set("one-v-one", "play").unwrap();
        p.set("pieces", "7").unwrap();
        assert_eq!(
            p.name(),
            "cannon-chess:board=5x5,one-v-one=play,pieces=7,tiao=any"
        );
        assert_eq!(
            p.default_setup().unwrap(),
            "OOOOO/O...O/...../X...X/XXXXX X"
        );
        p.set("board", "3x3").unwrap();
        let e = p.build().err().unwrap();
        assert!(matches!(e, SpecError::Unsupported { .. }), "{e:?}");
        assert!(e.to_string().contains("do not fit on 9 points"));
        p.set("pieces", "4").unwrap();
        assert!(p.build().err().unwrap().to_string().contains("setup="));
        p.set("pieces", "2").unwrap();
        assert_eq!(p.default_setup().unwrap(), "O.O/.../X.X X");
        p.set("setup", "OO./.../.XX").unwrap();
        let g = p.build().unwrap();
        assert_eq!(g.format_pos(&g.start()), "OO./.../.XX X");
        assert_eq!(
            g.id(),
            "cannon-chess:board=3x3,one-v-one=play,pieces=2,tiao=any"
        );
        p.set("setup", "OOO/.../.XX").unwrap();
        let e = p.build().err().unwrap();
        assert!(
            matches!(
                e,
                SpecError::BadSetup {
                    error: crate::game::ParseError::IllegalPosition { .. },
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("too many pieces"));
        let e = p.set("tiao", "all").unwrap_err();
        assert!(matches!(e, SpecError::BadValue { .. }), "{e:?}");
        assert!(e.to_string().contains("lone, any"));
        assert!(p.set("pieces", "16").is_err());
        let e = p.set("size", "3").unwrap_err();
        assert!(matches!(e, SpecError::UnknownKey { .. }), "{e:?}");
        assert!(e.to_string().contains("allowed: board, pieces"));
        // A setup only moves the start: same name and tables.
        let mut s = CannonChessParams::preset("cannon-chess-4x4").unwrap();
        s.set("setup", "OOOO/.OO./.XX./XXXX").unwrap();
        let sg = s.build().unwrap();
        assert_eq!(sg.id(), "cannon-chess-4x4");
        assert_eq!(sg.rules_hash(), CannonChess::four_by_four().rules_hash());
    }
}
