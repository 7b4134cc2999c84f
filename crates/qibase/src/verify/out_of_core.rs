//! `verify` of a tier too large to hold in memory with the tiers it reads
//! (the largest tier of `two-cannons:board=6x5` and the one below it take
//! 25.5 GiB as values): the same local check as [`check_tier`], with the
//! values read from raw files instead of memory.
//!
//! The tier is checked a window of slots at a time. Each position's rule
//! end, or its children, are found as in memory; the children's values
//! are asked for in batches of requests, grouped by block of the tier's
//! (or a lower tier's) raw file, each block's span read once, and each
//! answer folded into its asker's accumulators (shortest win through a
//! child's loss, a draw seen, longest child win, a child with no value).
//! The folds commute, so no answer needs to come back in order, and the
//! best move's value follows from them: a win one ply longer than the
//! shortest loss among the children, else a draw if a child is one, else
//! a loss one ply longer than the longest win.
//!
//! [`check_tier`]: crate::verify::check_tier

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use rayon::prelude::*;

use super::check::{CheckReport, Inconsistency};
use crate::game::{TierKey, Tiers};
use crate::raw::{answer_requests, RawArray, Request};
use crate::solver::{check_window, raw_from_file, Answers, BatchSlots, CHUNK};
use crate::tablebase::{TbError, TierStore};
use crate::value::{Packed, Value};

/// Requests per position guessed for a window's first batch; the batches
/// after it follow what the one before asked ([`BatchSlots`]).
const REQUESTS_PER_SLOT: usize = 16;

/// What a slot of the window is: not a position, ended by its rule (the
/// rule's packed value beside it), a position without moves, or one whose
/// children were asked for.
const UNUSED: u8 = 0;
const RULED: u8 = 1;
const NO_MOVES: u8 = 2;
const ASKED: u8 = 3;

/// Check tier `t` of the tablebase in `store` with at most about
/// `budget` bytes of memory: its values and those of the tiers it reads
/// are copied to raw files in `scratch` (removed at the end), then checked
/// window by window. Keeps at most `limit` examples; `progress` is told
/// how many slots each window went through.
///
/// # Errors
///
/// A tier file that cannot be read, or a scratch file that cannot be
/// written or read.
pub fn check_tier_out_of_core<G: crate::game::Game>(
    store: &TierStore<G>,
    t: TierKey,
    scratch: &Path,
    budget: u64,
    limit: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<CheckReport, TbError> {
    let g = store.game();
    std::fs::create_dir_all(scratch)
        .map_err(|e| TbError::io(scratch, "cannot create scratch directory", e))?;
    let mut keys = vec![t];
    keys.extend(g.tier_deps(t));
    let raws: Vec<RawArray> = keys
        .iter()
        .map(|&k| raw_from_file(store, k, scratch))
        .collect::<Result<_, _>>()?;
    let tables: Vec<(TierKey, &RawArray)> = keys.iter().copied().zip(raws.iter()).collect();
    let (window, batch) = check_window(budget);
    let window = window.max(CHUNK as u64);
    check_raw(
        g,
        t,
        &tables,
        window as usize,
        batch as usize,
        limit,
        progress,
    )
}

/// The check of tier `tables[0]` against its own values and those of
/// the lower tiers after it, windows of `window` slots, batches of about
/// `batch` requests.
fn check_raw<G: Tiers>(
    g: &G,
    t: TierKey,
    tables: &[(TierKey, &RawArray)],
    window: usize,
    batch: usize,
    limit: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<CheckReport, TbError> {
    let n = g.tier_size(t) as usize;
    let window = window.clamp(1, n.max(1));
    let raws: Vec<&RawArray> = tables.iter().map(|&(_, r)| r).collect();
    let mut stored = vec![0u16; window];
    let mut kind = vec![0u8; window];
    let mut rule = vec![0u16; window];
    let answers = Answers::new(window);
    let missing: Vec<AtomicBool> = (0..window).map(|_| AtomicBool::new(false)).collect();
    let mut batch = BatchSlots::new(batch, REQUESTS_PER_SLOT);
    let mut report = CheckReport::default();
    for lo in (0..n).step_by(window) {
        let len = (n - lo).min(window);
        tables[0].1.read(lo as u64, &mut stored[..len])?;
        kind[..len].fill(UNUSED);
        answers.clear(len);
        missing[..len].iter().for_each(|a| a.store(false, Relaxed));
        let mut at = lo;
        while at < lo + len {
            // A batch: rounds of chunks (each chunk's kinds, rule values
            // and requests) until its requests fill it or the window ends.
            let mut requests = Vec::new();
            let mut asked = 0;
            while let Some(slots) = batch.round(asked).filter(|_| at < lo + len) {
                let end = (at + slots).min(lo + len);
                let parts: Vec<(usize, Asked)> = (at..end)
                    .into_par_iter()
                    .step_by(CHUNK)
                    .map(|c| {
                        let hi = (c + CHUNK).min(end);
                        (c, ask(g, t, c..hi, lo, tables, &missing))
                    })
                    .collect();
                let before = asked;
                for (c, (marks, chunk_asked)) in parts {
                    for (k, (what, r)) in marks.into_iter().enumerate() {
                        kind[c - lo + k] = what;
                        rule[c - lo + k] = r;
                    }
                    asked += chunk_asked.len();
                    requests.push(chunk_asked);
                }
                batch.observe(end - at, asked - before);
                at = end;
            }
            answer_requests(&raws, requests, |word, asker, _, _| {
                if !answers.fold_known(word, asker as usize) {
                    missing[asker as usize].store(true, Relaxed);
                }
            })?;
        }
        // Compare, in parallel by chunk.
        let parts: Vec<CheckReport> = (0..len)
            .into_par_iter()
            .step_by(CHUNK)
            .map(|c| {
                let mut part = CheckReport::default();
                for k in c..(c + CHUNK).min(len) {
                    let expected = match kind[k] {
                        UNUSED => continue,
                        RULED => Packed::from_bits(rule[k]).value(),
                        NO_MOVES => Some(Value::Loss(0)),
                        _ if missing[k].load(Relaxed) => None,
                        _ => Some(answers.value(k)),
                    };
                    part.checked += 1;
                    let got = Packed::from_bits(stored[k]).value();
                    if got.is_none() || got != expected {
                        part.inconsistent += 1;
                        if part.examples.len() < limit {
                            part.examples.push(Inconsistency {
                                index: (lo + k) as u64,
                                stored: got,
                                expected,
                            });
                        }
                    }
                }
                part
            })
            .collect();
        for p in parts {
            report.checked += p.checked;
            report.inconsistent += p.inconsistent;
            report.examples.extend(p.examples);
        }
        progress(len as u64);
    }
    report.examples.sort_by_key(|e| e.index);
    report.examples.truncate(limit);
    Ok(report)
}

/// Per slot of a chunk its kind and rule value; the chunk's requests.
type Asked = (Vec<(u8, u16)>, Vec<Request>);

/// The kind (and rule value) of each slot of `range`, and the requests
/// for the children of its positions (askers numbered from `lo`). A child
/// outside its table (a damaged table's rank), or of a tier not loaded,
/// is marked missing at once.
fn ask<G: Tiers>(
    g: &G,
    t: TierKey,
    range: std::ops::Range<usize>,
    lo: usize,
    tables: &[(TierKey, &RawArray)],
    missing: &[AtomicBool],
) -> Asked {
    let mut marks = vec![(UNUSED, 0u16); range.len()];
    let mut requests = Vec::new();
    let mut used = Vec::new();
    let mut moves = Vec::new();
    g.used_slots(t, range.start as u64..range.end as u64, &mut used);
    for (i, p) in used {
        let at = i as usize - lo;
        let mark = &mut marks[i as usize - range.start];
        if let Some(end) = g.rule_end(&p) {
            *mark = (RULED, end.value.pack().to_bits());
            continue;
        }
        moves.clear();
        g.moves(&p, &mut moves);
        if moves.is_empty() {
            *mark = (NO_MOVES, 0);
            continue;
        }
        *mark = (ASKED, 0);
        for m in &moves {
            let q = g.apply(&p, m);
            let ct = g.tier_of(&q);
            let r = g.rank(ct, &q);
            match tables.iter().position(|&(k, _)| k == ct) {
                Some(table) if r < tables[table].1.len() => {
                    requests.push(((table as u64) << 56 | r, at as u32));
                }
                _ => missing[at].store(true, Relaxed),
            }
        }
    }
    // The vector grew by doubling: give back its unused room (the
    // allocator shrinks it in place), so that a batch's requests take
    // what the budget counts for them.
    requests.shrink_to_fit();
    (marks, requests)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::solve_plain;
    use crate::tier_values::TierValues;
    use crate::verify::check_tier;

    /// On every tier of a subset, with windows and batches far smaller
    /// than the tier, the out-of-core check finds what the in-memory one
    /// finds: nothing on the solved table, and the same slots (with the
    /// same expected values) once some values are damaged.
    #[test]
    fn the_out_of_core_check_finds_what_the_in_memory_one_finds() {
        let dir = std::env::temp_dir().join(format!("qibase-check-ooc-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let any = crate::games::AnyGame::from_id("cannon-chess-4x4").unwrap();
        crate::with_game!(any, |g| {
            let mut done: Vec<(TierKey, Vec<Packed>, RawArray)> = Vec::new();
            for t in g.tiers(Some(3)) {
                let mut lower = TierValues::new();
                for d in g.tier_deps(t) {
                    lower.add(d, &done.iter().find(|x| x.0 == d).unwrap().1);
                }
                let mut values = solve_plain(g, t, &lower).values;
                let n = values.len() as u64;
                let name = dir.join(format!("{}.raw", g.tier_name(t)));
                let raw = RawArray::zeroed(&name, n).unwrap();
                for damaged in [false, true] {
                    if damaged {
                        // Every 97th used slot: a draw turned to a win and
                        // anything else to a draw.
                        for (k, v) in values.iter_mut().enumerate() {
                            if k % 97 == 5 && v.value().is_some() {
                                *v = if *v == Packed::DRAW {
                                    Value::Win(1).pack()
                                } else {
                                    Packed::DRAW
                                };
                            }
                        }
                    }
                    raw.write(0, Packed::slice_as_bits(&values)).unwrap();
                    let mut tables = vec![(t, &raw)];
                    for d in g.tier_deps(t) {
                        tables.push((d, &done.iter().find(|x| x.0 == d).unwrap().2));
                    }
                    let plain = check_tier(g, t, &values, &lower, usize::MAX, &|_| {});
                    let spilled = check_raw(g, t, &tables, 1000, 700, usize::MAX, &|_| {}).unwrap();
                    let what = format!("tier {} damaged {damaged}", g.tier_name(t));
                    assert_eq!(spilled.checked, plain.checked, "{what}");
                    assert_eq!(spilled.inconsistent, plain.inconsistent, "{what}");
                    let mut want = plain.examples.clone();
                    want.sort_by_key(|e| e.index);
                    assert_eq!(spilled.examples, want, "{what}");
                    if damaged && n > 200 {
                        assert!(spilled.inconsistent > 0, "{what}");
                    }
                }
                // The lower tiers are kept undamaged.
                let values = solve_plain(g, t, &lower).values;
                raw.write(0, Packed::slice_as_bits(&values)).unwrap();
                done.push((t, values, raw));
            }
        });
        let _ = std::fs::remove_dir_all(&dir);
    }
}
