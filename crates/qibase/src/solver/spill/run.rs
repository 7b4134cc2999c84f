//! A whole solve under a memory budget: tier by tier as in memory, each
//! tier solved in memory when it fits the budget and out of core when
//! not; the values of finished tiers that later tiers read kept as raw
//! scratch files (made from the tier files when a resumed solve skips a
//! tier).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::{
    checkpoint, in_memory_tuning, plan_under_budget, solve_spilled, BudgetPlan, Plan, RawArray,
    RawLower, Scratch, Start,
};
use crate::game::{Game, TierKey, Tiers};
use crate::solver::{
    deps_of, peak_rss_bytes, solve_tier, solved_on_disk, tell, tier_meta, SingleProcess,
    SolveError, SolveObserver, SolveOptions, TierOptions, TierReport,
};
use crate::tablebase::{self, TbError, TierMeta, TierStore};
use crate::tier_values::TierValues;
use crate::value::Packed;

/// Bytes as a person reads them (KiB, MiB, GiB).
pub(in crate::solver) fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 4] = ["bytes", "KiB", "MiB", "GiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} bytes")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

/// How each tier of a solve under `budget` will be solved: `None` in
/// memory, `Some(plan)` out of core; an error for the first tier the
/// budget cannot take.
fn plans<G: Tiers>(g: &G, tiers: &[TierKey], budget: u64) -> Result<Vec<Option<Plan>>, SolveError> {
    tiers
        .iter()
        .map(|&t| {
            let n = g.tier_size(t);
            let deps: u64 = g.tier_deps(t).iter().map(|&d| g.tier_size(d)).sum();
            match plan_under_budget(n, deps, budget) {
                BudgetPlan::InMemory => Ok(None),
                BudgetPlan::OutOfCore { .. } => Ok(Some(
                    Plan::for_tier(n, budget).expect("the budget holds a region"),
                )),
                BudgetPlan::TooSmall { need, region_slots } => Err(SolveError::MemoryTooSmall {
                    tier: g.tier_name(t),
                    budget,
                    need,
                    region_slots,
                }),
            }
        })
        .collect()
}

/// [`crate::solver::solve_game`] under `opts.memory` (one process).
pub(in crate::solver) fn solve_tiers_spilled<G: Game>(
    g: &G,
    opts: &SolveOptions,
    budget: u64,
    observer: &dyn SolveObserver,
    reports: &mut Vec<TierReport>,
) -> Result<(), SolveError> {
    let tiers = g.tiers(opts.max_pieces);
    let plans = plans(g, &tiers, budget)?;
    let store = TierStore::new(g, &opts.dir);
    let Some(&first) = tiers.first() else {
        return Ok(());
    };
    let game_dir = store.path(first);
    let game_dir = game_dir.parent().unwrap_or(Path::new("."));
    let scratch = Scratch::new(game_dir.join(".spill"))?;
    // Raw values of finished tiers still needed by later ones.
    let mut raws: HashMap<TierKey, Arc<RawArray>> = HashMap::new();
    for (pos, &t) in tiers.iter().enumerate() {
        let name = g.tier_name(t);
        let path = store.path(t);
        let slots = g.tier_size(t);
        if let Some(stats) = solved_on_disk(&store, t, observer, &SingleProcess) {
            // A checkpoint left after the tier file was written.
            scratch.discard(&name);
            reports.push(TierReport::skipped(g, t, stats));
            continue;
        }
        if observer.should_stop() {
            return Err(SolveError::Stopped { next: name });
        }
        let still_needed = deps_of(g, &tiers[pos..]);
        raws.retain(|k, _| still_needed.contains(k));
        let work = scratch.work(&name);
        let raw_path = scratch.raw(&name);
        let identity = format!(
            "{} {} {:016x} {name} {slots}",
            g.id(),
            g.variant_spec(),
            g.rules_hash()
        );
        // An earlier solve's checkpoint of this tier, with its state file,
        // is resumed from; anything else starts over. A checkpoint is past
        // the initial pass, the only reader of the lower tiers: a resume
        // makes none of their raw files.
        let resumed = match plans[pos] {
            Some(_) => match checkpoint::load(&work, &identity)? {
                Some(c) => RawArray::open(&raw_path, slots)?.map(|raw| (raw, c)),
                None => None,
            },
            None => None,
        };
        if resumed.is_none() {
            for d in g.tier_deps(t) {
                if let std::collections::hash_map::Entry::Vacant(e) = raws.entry(d) {
                    e.insert(Arc::new(raw_from_file(&store, d, scratch.path())?));
                }
            }
        }
        observer.tier_started(&name, slots);
        let t0 = Instant::now();
        let progress = |e| tell(observer, e);
        let stop = || observer.should_stop();
        let opts = TierOptions::default().progress(&progress).stop(&stop);
        let windows = plans[pos].map_or(0, |p| p.windows);
        let mut resumed_seconds = 0.0;
        let (mut raw, mut stats, touches) = match plans[pos] {
            None => {
                let held: Vec<(TierKey, Vec<Packed>)> = g
                    .tier_deps(t)
                    .into_iter()
                    .map(|d| Ok((d, read_whole(&raws[&d])?)))
                    .collect::<Result<_, TbError>>()?;
                let mut lower = TierValues::new();
                for (d, v) in &held {
                    lower.add(*d, v);
                }
                let opts = opts.tuning(in_memory_tuning(budget));
                let Some(solved) = solve_tier(g, t, &lower, &opts)? else {
                    return Err(SolveError::Stopped { next: name });
                };
                drop(held);
                let raw = RawArray::zeroed(&raw_path, slots)?;
                raw.write(0, Packed::slice_as_bits(&solved.values))?;
                (raw, solved.stats, solved.touches)
            }
            Some(plan) => {
                let (mut raw, start) = match resumed {
                    Some((raw, c)) => {
                        observer.tier_resumed(&name, c.level.next_level);
                        (raw, Start::Resume(c))
                    }
                    None => {
                        scratch.discard(&name);
                        std::fs::create_dir_all(&work)
                            .map_err(|e| TbError::io(&work, "cannot create spill directory", e))?;
                        // The lower tiers no later tier reads are handed
                        // over whole: the solve deletes their raw files
                        // once its initial pass is done with them.
                        let later = deps_of(g, &tiers[pos + 1..]);
                        let lower = RawLower {
                            tiers: g
                                .tier_deps(t)
                                .into_iter()
                                .map(|d| {
                                    let raw = if later.contains(&d) {
                                        raws[&d].clone()
                                    } else {
                                        raws.remove(&d).expect("made above")
                                    };
                                    (d, raw)
                                })
                                .collect(),
                        };
                        (RawArray::zeroed(&raw_path, slots)?, Start::Fresh(lower))
                    }
                };
                // Kept if the solve stops: a checkpoint refers to it.
                raw.keep_on_drop(true);
                let solved = solve_spilled(g, t, &raw, &work, &identity, start, &plan, &opts);
                let Some(solved) = solved? else {
                    return Err(SolveError::Stopped { next: name });
                };
                resumed_seconds = solved.stats.init_seconds + solved.stats.propagate_seconds;
                (raw, solved.stats, solved.touches)
            }
        };
        // A resumed tier counts the time of the runs before.
        stats.seconds = t0.elapsed().as_secs_f64().max(resumed_seconds);
        stats.threads = rayon::current_num_threads();
        stats.peak_rss = peak_rss_bytes().unwrap_or(0);
        let meta = tier_meta(g, t, &stats);
        reports.push(TierReport {
            tier: t,
            name: name.clone(),
            slots,
            positions: g.tier_positions(t),
            stats,
            touches,
            write_wait_seconds: 0.0,
            skipped: false,
            exchanged_bytes: 0,
            windows,
        });
        observer.tier_solved(&reports[reports.len() - 1]);
        let w0 = Instant::now();
        write_from_raw(&path, &meta, &raw)?;
        // The tier is on disk: its checkpoint has done its work.
        raw.keep_on_drop(false);
        let _ = std::fs::remove_dir_all(&work);
        let r = reports.last_mut().expect("just pushed");
        r.stats.write_seconds = w0.elapsed().as_secs_f64();
        r.write_wait_seconds = r.stats.write_seconds;
        if deps_of(g, &tiers[pos + 1..]).contains(&t) {
            raws.insert(t, Arc::new(raw));
        }
    }
    Ok(())
}

/// A raw scratch copy of tier `d`'s values, decoded from its file a
/// batch of blocks at a time.
pub(super) fn raw_from_file<G: Game>(
    store: &TierStore<G>,
    d: TierKey,
    scratch: &Path,
) -> Result<RawArray, TbError> {
    let file = store.open(d)?;
    let n = file.meta().positions;
    let raw = RawArray::zeroed(
        &scratch.join(format!("{}.raw", store.game().tier_name(d))),
        n,
    )?;
    file.for_each_batch(|start, values| raw.write(start, Packed::slice_as_bits(values)))?;
    Ok(raw)
}

fn read_whole(raw: &RawArray) -> Result<Vec<Packed>, TbError> {
    let mut words = crate::hugemem::zeroed_u16(raw.len() as usize);
    raw.read(0, &mut words)?;
    Ok(Packed::vec_from_bits(words))
}

/// Write the tier file from the raw values, read a batch at a time.
fn write_from_raw(path: &Path, meta: &TierMeta, raw: &RawArray) -> Result<(), TbError> {
    tablebase::write_tier_batched(path, meta, |start, out| {
        raw.read(start, Packed::slice_as_bits_mut(out))
    })
    .map(|_| ())
}
