//! One pass over the whole tablebase, tier by tier (in reverse solve order,
//! together with the reachability search): every statistic of the report
//! that needs all positions. Counts are weighted so that they count
//! positions, not slots (see [`ReportGame`]).

use std::cmp::Reverse;
use std::path::Path;

use indicatif::ProgressBar;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::checkpoint::Checkpoint;
use super::reach::Reach;
use super::ReportGame;
use qibase::tablebase::{TierStats, TierStore};
use qibase::{Packed, Value, Wdl};
use qibase::{Side, TierKey};

/// Slots handled per rayon task.
const CHUNK: usize = 1 << 14;

/// Wins, draws and losses (side to move's view), in positions.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Counts {
    pub fn add(&mut self, v: Value, w: u64) {
        match v {
            Value::Win(_) => self.wins += w,
            Value::Draw => self.draws += w,
            Value::Loss(_) => self.losses += w,
        }
    }
    pub fn total(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
    pub fn merge(&mut self, o: &Counts) {
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
    }
}

/// A position chosen as an example: (tier, slot, variant).
pub type PosRef = (TierKey, u64, u32);

/// Example candidates are compared by a key, smallest wins, so the choice
/// does not depend on the order in which threads finish.
type Cand = Option<(Reverse<u16>, u64, u32)>;

fn better(a: Cand, b: Cand) -> Cand {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Everything the report knows about one tier.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TierResult {
    pub tier: TierKey,
    pub name: String,
    /// Index slots of the tier, and those that hold a position.
    pub slots: u64,
    pub used_slots: u64,
    /// All positions, and by side to move (0 first player, 1 second).
    pub all: Counts,
    pub by_side: [Counts; 2],
    /// Positions reachable from the start.
    pub reach: Counts,
    pub reach_by_side: [Counts; 2],
    /// Reached (slot, variant) pairs.
    pub reach_slots: u64,
    pub max_win: u16,
    pub max_loss: u16,
    /// Positions per remoteness (index) among wins and losses.
    pub win_hist: Vec<u64>,
    pub loss_hist: Vec<u64>,
    /// Longest win in the tier (smallest slot among equals), and among reachable positions.
    pub longest_win: Option<(u16, u64, u32)>,
    pub longest_reach_win: Option<(u16, u64, u32)>,
    /// Positions lost for the side to move whose side-swapped twin is lost too;
    /// those where both have a legal move (remoteness > 0 both); example with
    /// the longest shorter loss.
    pub mutual: u64,
    pub mutual_nontrivial: u64,
    pub mutual_reach: u64,
    pub mutual_example: Option<(u16, u64, u32)>,
    /// Weiming: positions with the lock clear whose locked twin has another
    /// value / another outcome; transitions [free outcome][locked outcome]
    /// (win, draw, loss).
    pub lock_changed: u64,
    pub lock_changed_wdl: u64,
    pub lock_transitions: [[u64; 3]; 3],
    /// Heat map: weight per class, and per class, kind and point.
    pub heat_weight: [u64; 2],
    pub heat: [[Vec<u64>; 3]; 2],
    /// From the tier file.
    pub header: TierStats,
    pub file_bytes: u64,
}

fn wdl_index(v: Value) -> usize {
    match v.wdl() {
        Wdl::Win => 0,
        Wdl::Draw => 1,
        Wdl::Loss => 2,
    }
}

fn bump(h: &mut Vec<u64>, r: u16, w: u64) {
    let r = r as usize;
    if h.len() <= r {
        h.resize(r + 1, 0);
    }
    h[r] += w;
}

fn merge_hist(a: &mut Vec<u64>, b: &[u64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

#[derive(Clone)]
struct Acc {
    used_slots: u64,
    all: Counts,
    by_side: [Counts; 2],
    reach: Counts,
    reach_by_side: [Counts; 2],
    reach_slots: u64,
    win_hist: Vec<u64>,
    loss_hist: Vec<u64>,
    longest_win: Cand,
    longest_reach_win: Cand,
    mutual: u64,
    mutual_nontrivial: u64,
    mutual_reach: u64,
    mutual_example: Cand,
    lock_changed: u64,
    lock_changed_wdl: u64,
    lock_transitions: [[u64; 3]; 3],
    heat_weight: [u64; 2],
    heat: [[Vec<u64>; 3]; 2],
}

impl Acc {
    fn new(points: usize) -> Acc {
        let z = || vec![0u64; points];
        Acc {
            used_slots: 0,
            all: Counts::default(),
            by_side: Default::default(),
            reach: Counts::default(),
            reach_by_side: Default::default(),
            reach_slots: 0,
            win_hist: Vec::new(),
            loss_hist: Vec::new(),
            longest_win: None,
            longest_reach_win: None,
            mutual: 0,
            mutual_nontrivial: 0,
            mutual_reach: 0,
            mutual_example: None,
            lock_changed: 0,
            lock_changed_wdl: 0,
            lock_transitions: [[0; 3]; 3],
            heat_weight: [0; 2],
            heat: [[z(), z(), z()], [z(), z(), z()]],
        }
    }

    fn merge(mut self, o: Acc) -> Acc {
        self.used_slots += o.used_slots;
        self.all.merge(&o.all);
        for s in 0..2 {
            self.by_side[s].merge(&o.by_side[s]);
            self.reach_by_side[s].merge(&o.reach_by_side[s]);
        }
        self.reach.merge(&o.reach);
        self.reach_slots += o.reach_slots;
        merge_hist(&mut self.win_hist, &o.win_hist);
        merge_hist(&mut self.loss_hist, &o.loss_hist);
        self.longest_win = better(self.longest_win, o.longest_win);
        self.longest_reach_win = better(self.longest_reach_win, o.longest_reach_win);
        self.mutual += o.mutual;
        self.mutual_nontrivial += o.mutual_nontrivial;
        self.mutual_reach += o.mutual_reach;
        self.mutual_example = better(self.mutual_example, o.mutual_example);
        self.lock_changed += o.lock_changed;
        self.lock_changed_wdl += o.lock_changed_wdl;
        for a in 0..3 {
            for b in 0..3 {
                self.lock_transitions[a][b] += o.lock_transitions[a][b];
            }
        }
        for c in 0..2 {
            self.heat_weight[c] += o.heat_weight[c];
            for k in 0..3 {
                for (x, y) in self.heat[c][k].iter_mut().zip(&o.heat[c][k]) {
                    *x += y;
                }
            }
        }
        self
    }
}

fn side_index(s: Side) -> usize {
    match s {
        Side::First => 0,
        Side::Second => 1,
    }
}

/// Statistics of one tier from its values and the finished reachability bits.
pub fn tier_stats<G: ReportGame>(
    g: &G,
    t: TierKey,
    values: &[Packed],
    reach: &Reach,
) -> TierResult {
    let points = g.point_names().len();
    let kinds = g.piece_kinds().len();
    let variants = g.variants();
    let acc = values
        .par_chunks(CHUNK)
        .enumerate()
        .fold(
            || Acc::new(points),
            |mut acc, (c, chunk)| {
                for (j, &pk) in chunk.iter().enumerate() {
                    let Some(v) = Value::unpack(pk) else { continue };
                    let i = (c * CHUNK + j) as u64;
                    let p0 = g.unrank(t, i);
                    // Unused slots (symmetry reduction) hold "don't care"
                    // values in the tablebase: skip them by their rank.
                    if g.rank(t, &p0) != i {
                        continue;
                    }
                    // The slot's positions, split evenly over its variants
                    // (cannon chess: X to move and the colour exchange).
                    let w = g.orbit_size(&p0) / u64::from(variants);
                    acc.used_slots += 1;
                    for var in 0..variants {
                        let p = g.with_variant(&p0, var);
                        let side = side_index(g.side_to_move(&p));
                        acc.all.add(v, w);
                        acc.by_side[side].add(v, w);
                        let reached = reach.reached(t, i, var);
                        if reached {
                            acc.reach.add(v, w);
                            acc.reach_by_side[side].add(v, w);
                            acc.reach_slots += 1;
                        }
                        match v {
                            Value::Win(r) => {
                                bump(&mut acc.win_hist, r, w);
                                let cand = Some((Reverse(r), i, var));
                                acc.longest_win = better(acc.longest_win, cand);
                                if reached {
                                    acc.longest_reach_win = better(acc.longest_reach_win, cand);
                                }
                            }
                            Value::Loss(r) => {
                                bump(&mut acc.loss_hist, r, w);
                                let q = g.side_swapped(&p);
                                let vq = Value::unpack(values[g.rank(t, &q) as usize]);
                                let over = g.rule_end(&p).is_some() || g.rule_end(&q).is_some();
                                if let (Some(Value::Loss(rq)), false) = (vq, over) {
                                    acc.mutual += w;
                                    if r > 0 && rq > 0 {
                                        acc.mutual_nontrivial += w;
                                    }
                                    if reached {
                                        acc.mutual_reach += w;
                                    }
                                    acc.mutual_example = better(
                                        acc.mutual_example,
                                        Some((Reverse(r.min(rq)), i, var)),
                                    );
                                }
                            }
                            Value::Draw => {}
                        }
                        if let Some(q) = g.locked_twin(&p) {
                            if let Some(vq) = Value::unpack(values[g.rank(t, &q) as usize]) {
                                if vq != v {
                                    acc.lock_changed += w;
                                }
                                if vq.wdl() != v.wdl() {
                                    acc.lock_changed_wdl += w;
                                }
                                acc.lock_transitions[wdl_index(v)][wdl_index(vq)] += w;
                            }
                        }
                        if let Some(cl) = g.heat_class(&p, v) {
                            acc.heat_weight[cl] += w;
                            let bits = g.piece_bits(&p);
                            for (k, &b) in bits.iter().enumerate().take(kinds) {
                                let mut b = b;
                                while b != 0 {
                                    let pt = b.trailing_zeros() as usize;
                                    b &= b - 1;
                                    acc.heat[cl][k][pt] += w;
                                }
                            }
                        }
                    }
                }
                acc
            },
        )
        .reduce(|| Acc::new(points), Acc::merge);
    let unpack = |c: Cand| c.map(|(Reverse(r), i, v)| (r, i, v));
    TierResult {
        tier: t,
        name: g.tier_name(t),
        slots: values.len() as u64,
        used_slots: acc.used_slots,
        all: acc.all,
        by_side: acc.by_side,
        reach: acc.reach,
        reach_by_side: acc.reach_by_side,
        reach_slots: acc.reach_slots,
        max_win: acc.win_hist.len().saturating_sub(1) as u16,
        max_loss: acc.loss_hist.len().saturating_sub(1) as u16,
        win_hist: acc.win_hist,
        loss_hist: acc.loss_hist,
        longest_win: unpack(acc.longest_win),
        longest_reach_win: unpack(acc.longest_reach_win),
        mutual: acc.mutual,
        mutual_nontrivial: acc.mutual_nontrivial,
        mutual_reach: acc.mutual_reach,
        mutual_example: unpack(acc.mutual_example),
        lock_changed: acc.lock_changed,
        lock_changed_wdl: acc.lock_changed_wdl,
        lock_transitions: acc.lock_transitions,
        heat_weight: acc.heat_weight,
        heat: acc.heat,
        header: TierStats::default(),
        file_bytes: 0,
    }
}

/// The results of the whole pass, tiers in reverse solve order (most
/// material first).
pub struct Pass {
    pub tiers: Vec<TierResult>,
}

/// Run the pass: reachability and statistics, tier by tier, one tier's
/// values in memory at a time, resuming from and saving to `checkpoint`.
/// `bar` counts the slots of the tiers done and names the tier and step
/// under way.
pub fn run<G: ReportGame>(
    g: &G,
    dir: &Path,
    bar: &ProgressBar,
    checkpoint: &mut Checkpoint,
) -> Result<Pass, String> {
    let order: Vec<TierKey> = g.tiers(None).into_iter().rev().collect();
    bar.set_length(order.iter().map(|&t| g.tier_size(t)).sum());
    let mut reach = Reach::new(g);
    let mut out = checkpoint.resume(g, &order, &mut reach)?;
    if !out.is_empty() {
        let line = format!(
            "resuming the report after {} of {} tiers from the progress of an interrupted run",
            out.len(),
            order.len()
        );
        bar.suspend(|| eprintln!("{line}"));
    }
    for r in &out {
        reach.drop_tier(r.tier);
        bar.inc(r.slots);
    }
    let store = TierStore::new(g, dir);
    for &t in &order[out.len()..] {
        bar.set_message(format!("tier {}: reachability", g.tier_name(t)));
        reach.complete_tier(g, t);
        bar.set_message(format!("tier {}: statistics", g.tier_name(t)));
        let file = store.open(t).map_err(|e| crate::hint::hint(&e))?;
        let values = file.read_all().map_err(|e| crate::hint::hint(&e))?;
        let mut r = tier_stats(g, t, &values, &reach);
        drop(values);
        bar.inc(r.slots);
        r.header = file.meta().stats.clone();
        r.file_bytes = file.file_len();
        reach.drop_tier(t);
        out.push(r);
        bar.set_message(format!("tier {}: saving progress", g.tier_name(t)));
        checkpoint.after_tier(g, &order, &out, &reach)?;
    }
    Ok(Pass { tiers: out })
}

impl Pass {
    /// Sum of per-tier counts.
    pub fn total(&self, f: impl Fn(&TierResult) -> Counts) -> Counts {
        let mut c = Counts::default();
        for t in &self.tiers {
            c.merge(&f(t));
        }
        c
    }

    pub fn tier(&self, t: TierKey) -> &TierResult {
        self.tiers
            .iter()
            .find(|r| r.tier == t)
            .expect("tier in pass")
    }

    /// Histogram over all tiers.
    pub fn hist(&self, f: impl Fn(&TierResult) -> &Vec<u64>) -> Vec<u64> {
        let mut h = Vec::new();
        for t in &self.tiers {
            merge_hist(&mut h, f(t));
        }
        h
    }

    /// The longest win (first in report tier order among equals).
    pub fn longest(
        &self,
        f: impl Fn(&TierResult) -> Option<(u16, u64, u32)>,
    ) -> Option<(u16, PosRef)> {
        let mut best: Option<(u16, PosRef)> = None;
        for t in &self.tiers {
            if let Some((r, i, v)) = f(t) {
                if best.is_none_or(|(b, _)| r > b) {
                    best = Some((r, (t.tier, i, v)));
                }
            }
        }
        best
    }
}
