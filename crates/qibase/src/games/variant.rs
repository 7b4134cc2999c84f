//! Variant syntax: `GAME:key=value,key=value`.
//!
//! A variant is one of the preset ids followed by parameters that modify
//! it, e.g. `three-cannons:immobility=static` or
//! `cannon-chess:board=4x4,tiao=any`. This module splits the string and
//! holds the helpers the game families use to read values and to write the
//! canonical name; each family ([`CannonChessParams`](super::cannon_chess::CannonChessParams),
//! [`CannonsParams`](super::cannons::CannonsParams)) owns its keys and
//! their meaning.
//!
//! The canonical name of a variant — the preset id, then `:` and the
//! parameters that differ from the preset, keys sorted, defaults dropped —
//! is the game's id: it names its tablebase directory and is recorded in
//! every tier header. A setup (start position) is not a rule: it changes
//! where play starts, not the value of any position, so it is left out of
//! the name and a setup variant reads the tables of its rules.

use super::SpecError;

/// One documented parameter of a game family.
pub struct ParamDoc {
    /// The key, e.g. `board`.
    pub key: &'static str,
    /// The accepted values, e.g. `lone|any` or `N`.
    pub values: &'static str,
    /// One sentence on what it does and its default.
    pub help: &'static str,
}

/// A variant string split into its preset id and `key=value` pairs (in the
/// order given; no key twice).
pub struct RawSpec<'a> {
    /// The preset id before the `:`.
    pub base: &'a str,
    /// The `key=value` pairs after it.
    pub params: Vec<(&'a str, &'a str)>,
}

/// Split `GAME[:key=value,...]`; the error names what is malformed.
///
/// # Errors
///
/// [`SpecError::Malformed`] for a parameter without `=`, an empty key or
/// value, or a key given twice.
pub fn split(spec: &str) -> Result<RawSpec<'_>, SpecError> {
    let spec = spec.trim();
    let Some((base, rest)) = spec.split_once(':') else {
        return Ok(RawSpec {
            base: spec,
            params: Vec::new(),
        });
    };
    let mut params: Vec<(&str, &str)> = Vec::new();
    for item in rest.split(',') {
        let Some((k, v)) = item.split_once('=') else {
            return Err(SpecError::Malformed {
                message: format!(
                    "malformed parameter '{item}' in variant '{spec}': expected key=value (GAME:key=value,key=value)"
                ),
            });
        };
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty() || v.is_empty() {
            return Err(SpecError::Malformed {
                message: format!(
                    "malformed parameter '{item}' in variant '{spec}': empty key or value"
                ),
            });
        }
        if params.iter().any(|&(pk, _)| pk == k) {
            return Err(SpecError::Malformed {
                message: format!("parameter '{k}' given twice in variant '{spec}'"),
            });
        }
        params.push((k, v));
    }
    Ok(RawSpec { base, params })
}

/// The error for a key the family does not know.
pub fn unknown_key(game: &str, key: &str, docs: &[ParamDoc]) -> SpecError {
    SpecError::UnknownKey {
        game: game.to_string(),
        key: key.to_string(),
        allowed: docs.iter().map(|d| d.key).collect(),
    }
}

/// The error for a value outside a key's range.
pub fn bad_value(key: &str, value: &str, allowed: &str) -> SpecError {
    SpecError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}

/// `WxH` (files × ranks), each at least 1.
///
/// # Errors
///
/// [`SpecError::BadValue`] for anything but `WxH` with at least 2 and at
/// most 64 points and at most 26 files.
pub fn parse_board(value: &str) -> Result<(u32, u32), SpecError> {
    let bad = || {
        bad_value(
            "board",
            value,
            "WxH, e.g. 5x5, at most 64 points, W at most 26",
        )
    };
    let (w, h) = value.split_once('x').ok_or_else(bad)?;
    let parse = |s: &str| -> Result<u32, SpecError> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || s.len() > 3 {
            return Err(bad());
        }
        s.parse().map_err(|_| bad())
    };
    let (w, h) = (parse(w)?, parse(h)?);
    if w == 0 || h == 0 || w > 26 || w * h > 64 || w * h < 2 {
        return Err(SpecError::Unsupported {
            message: format!(
                "board {w}x{h} is not supported: at least 2 and at most 64 points (one bit each in a 64-bit board), at most 26 files"
            ),
        });
    }
    Ok((w, h))
}

/// A count in `lo..=hi`.
///
/// # Errors
///
/// [`SpecError::BadValue`] for anything but a whole number in range.
pub fn parse_count(key: &str, value: &str, lo: u32, hi: u32) -> Result<u32, SpecError> {
    let allowed = format!("a whole number from {lo} to {hi}");
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) || value.len() > 3 {
        return Err(bad_value(key, value, &allowed));
    }
    let n: u32 = value.parse().map_err(|_| bad_value(key, value, &allowed))?;
    if n < lo || n > hi {
        return Err(bad_value(key, value, &allowed));
    }
    Ok(n)
}

/// One of a fixed list of words; returns its position in `words`.
///
/// # Errors
///
/// [`SpecError::BadValue`] (naming the words) for any other value.
pub fn parse_word(key: &str, value: &str, words: &[&str]) -> Result<usize, SpecError> {
    words
        .iter()
        .position(|&w| w == value)
        .ok_or_else(|| bad_value(key, value, &words.join(", ")))
}

/// The canonical name: `base` alone, or `base:` and the pairs sorted by key.
pub fn canonical(base: &str, mut pairs: Vec<(&str, String)>) -> String {
    if pairs.is_empty() {
        return base.to_string();
    }
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    let body: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{base}:{}", body.join(","))
}

/// Text for `--help`: the syntax and every family's parameters.
pub fn help_text() -> String {
    let mut s = String::from(
        "VARIANTS: wherever a game id is expected, a variant may be given as\n\
         GAME:key=value,key=value (e.g. three-cannons:immobility=static,\n\
         cannon-chess:board=4x4,tiao=any). The preset ids are the defaults the\n\
         parameters modify; weiming has none. A variant's tablebases go to\n\
         DIR/<name>/, the name being the preset and the non-default parameters\n\
         with keys sorted (':' written '@' in the directory name). setup= only\n\
         moves the start position and uses the tables of its rules.\n",
    );
    for (family, ids, docs) in [
        (
            "cannon-chess, cannon-chess-4x4",
            "",
            super::cannon_chess::PARAMS,
        ),
        ("two-cannons, three-cannons", "", super::cannons::PARAMS),
    ] {
        s.push_str(&format!("\n{family}{ids}:\n"));
        for d in docs {
            s.push_str(&format!("  {}={}\n      {}\n", d.key, d.values, d.help));
        }
    }
    s
}

/// Position-string board part of a setup value, with the side to move
/// appended if the value has none (`first` is the letter of the side that
/// moves first).
pub fn setup_position(value: &str, first: char) -> String {
    let v = value.trim();
    if v.split_whitespace().count() >= 2 {
        v.to_string()
    } else {
        format!("{v} {first}")
    }
}

/// The `count` points of a row of `w` points taken from both ends inward
/// (a, last, b, second last, …), as file numbers.
pub fn from_ends(w: u32, count: u32) -> Vec<u32> {
    let mut v = Vec::new();
    let (mut lo, mut hi) = (0i64, w as i64 - 1);
    while (v.len() as u32) < count && lo <= hi {
        v.push(lo as u32);
        if (v.len() as u32) < count && hi > lo {
            v.push(hi as u32);
        }
        lo += 1;
        hi -= 1;
    }
    v.sort_unstable();
    v
}

/// `count` points centred on a row of `w` (mirror-symmetric when the
/// parities allow: a centred run, or for an even count on an odd row a
/// centred run of count + 1 without its middle point).
pub fn centred(w: u32, count: u32) -> Vec<u32> {
    if (w - count).is_multiple_of(2) {
        let a = (w - count) / 2;
        (a..a + count).collect()
    } else if count.is_multiple_of(2) && count < w {
        let a = (w - count - 1) / 2;
        let mid = a + count / 2;
        (a..a + count + 1).filter(|&x| x != mid).collect()
    } else {
        let a = (w - count) / 2;
        (a..a + count).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_errors() {
        let r = split("three-cannons:immobility=static,board=5x5").unwrap();
        assert_eq!(r.base, "three-cannons");
        assert_eq!(r.params, [("immobility", "static"), ("board", "5x5")]);
        assert!(split("weiming").unwrap().params.is_empty());
        for bad in ["x:", "x:a", "x:a=", "x:=1", "x:a=1,a=2", "x:a=1,"] {
            assert!(split(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn values() {
        assert_eq!(parse_board("4x5").unwrap(), (4, 5));
        assert_eq!(parse_board("8x8").unwrap(), (8, 8));
        assert_eq!(parse_board("13x4").unwrap(), (13, 4));
        for bad in [
            "4", "x5", "4x", "0x5", "9x8", "4X5", "-1x3", "27x1", "1x1", "13x5",
        ] {
            assert!(parse_board(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_count("k", "12", 0, 20).unwrap(), 12);
        assert!(parse_count("k", "21", 0, 20).is_err());
        assert!(parse_count("k", "+1", 0, 20).is_err());
        assert_eq!(parse_word("t", "any", &["lone", "any"]).unwrap(), 1);
        let e = parse_word("t", "all", &["lone", "any"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("'t'") && e.contains("lone, any"), "{e}");
    }

    #[test]
    fn canonical_sorts_keys() {
        assert_eq!(canonical("g", vec![]), "g");
        assert_eq!(
            canonical("g", vec![("tiao", "any".into()), ("board", "5x5".into())]),
            "g:board=5x5,tiao=any"
        );
    }

    #[test]
    fn setup_patterns() {
        assert_eq!(from_ends(5, 2), [0, 4]);
        assert_eq!(from_ends(4, 2), [0, 3]);
        assert_eq!(from_ends(4, 4), [0, 1, 2, 3]);
        assert_eq!(from_ends(5, 3), [0, 1, 4]);
        assert_eq!(centred(5, 2), [1, 3]);
        assert_eq!(centred(5, 3), [1, 2, 3]);
        assert_eq!(centred(4, 2), [1, 2]);
        assert_eq!(centred(4, 3), [0, 1, 2]);
        assert_eq!(centred(5, 5), [0, 1, 2, 3, 4]);
    }
}
