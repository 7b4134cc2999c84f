//! `qibase solve VARIANT --estimate`: the size of a solve before it starts,
//! and the checks that refuse a variant the solver cannot handle — up front,
//! with one clear line, instead of a panic hours in.
//!
//! The solver's limits are the library's ([`qibase::solver::check_limits`]:
//! the slots of a tier, the in-tier moves of a position); this adds that
//! the working set of the largest tier must fit in memory. `--estimate`
//! answers for every variant that parses, also one this machine cannot
//! solve: it then says what the solve would need. Boards over 64 points
//! are refused when the variant is parsed.

use super::CliError;
use crate::report::markdown::int as group;
use qibase::games::VariantSizes;
use qibase::meminfo;
use qibase::solver::{
    BudgetPlan, LimitError, SolvePlan, TierPlan, MAX_IN_TIER_CHILDREN as MAX_COUNTER,
    MAX_TIER_SLOTS,
};

/// The size of a solve: its plan, and the sums.
pub struct Estimate {
    pub plan: SolvePlan,
    pub positions: u64,
    pub slots: u64,
    /// Bound on the distinct in-tier moves of any position.
    pub max_moves: u32,
    /// Why the solver cannot take the variant at all, if it cannot.
    pub refusal: Option<String>,
}

impl Estimate {
    fn tiers(&self) -> &[TierPlan] {
        self.plan.tiers()
    }

    fn largest(&self) -> Option<&TierPlan> {
        self.tiers().iter().max_by_key(|t| t.slots)
    }

    fn memory(&self) -> (u64, u64) {
        let lo = self.tiers().iter().map(|t| t.memory).max().unwrap_or(0);
        let hi = self.tiers().iter().map(|t| t.memory_max).max().unwrap_or(0);
        (lo, hi)
    }

    fn disk(&self) -> u64 {
        self.tiers().iter().fold(0, |s, t| s.saturating_add(t.disk))
    }

    /// The one-line refusal of a solve here: over the solver's limits, or
    /// more memory than this machine has (without a memory budget; with
    /// one, the plan decides what fits).
    pub fn fits_here(&self, id: &str) -> Result<(), CliError> {
        match self.plan.budget() {
            Some(_) => self.solvable(),
            None => self.solvable().and_then(|()| self.fits_memory(id)),
        }
    }

    /// The refusal of a variant over the solver's limits.
    fn solvable(&self) -> Result<(), CliError> {
        match &self.refusal {
            Some(why) => Err(CliError::input(why.clone())),
            None => Ok(()),
        }
    }

    /// The refusal of a solve in memory whose largest tier needs more
    /// memory than this machine has.
    fn fits_memory(&self, id: &str) -> Result<(), CliError> {
        let (need, _) = self.memory();
        if let Some(total) = meminfo().map(|m| m.total) {
            if need > total {
                return Err(CliError::input(format!(
                    "{id} cannot be solved here: its largest tier needs at least {} of memory, this machine has {}; try --max-pieces or --memory",
                    bytes(need),
                    bytes(total)
                )));
            }
        }
        Ok(())
    }
}

/// Sizes of every tier of `v` (or of the subset), and how a solve under
/// `budget` takes each.
pub fn estimate(v: &VariantSizes, max_pieces: Option<u32>, budget: Option<u64>) -> Estimate {
    let plan = SolvePlan::new(v, max_pieces, budget);
    let (positions, slots) = plan.tiers().iter().fold((0u64, 0u64), |(p, s), t| {
        (p.saturating_add(t.positions), s.saturating_add(t.slots))
    });
    Estimate {
        plan,
        positions,
        slots,
        max_moves: v.max_in_tier_moves(),
        refusal: None,
    }
}

/// The estimate of `v`, with the reason the solver cannot take it at all
/// if it cannot ([`Estimate::fits_here`] adds this machine's memory).
pub fn check(v: &VariantSizes, max_pieces: Option<u32>, budget: Option<u64>) -> Estimate {
    let mut e = estimate(v, max_pieces, budget);
    let too_large = v
        .tiers(max_pieces)
        .into_iter()
        .find(|&t| v.tier_size(t) > MAX_TIER_SLOTS)
        .map(|t| LimitError::TierTooLarge {
            tier: v.tier_name(t),
            slots: v.tier_size(t),
        });
    let limit = too_large.or(
        (e.max_moves > MAX_COUNTER).then_some(LimitError::TooManyChildren {
            tier: None,
            children: e.max_moves,
        }),
    );
    e.refusal = match (v.refusal(), limit) {
        (Some(why), _) => Some(format!("{why}: it cannot be solved or played")),
        (None, Some(limit)) => Some(refusal(v.id(), &limit)),
        (None, None) => None,
    };
    e
}

/// The one line that refuses a variant over the solver's limits.
fn refusal(id: &str, limit: &LimitError) -> String {
    match limit {
        LimitError::TierTooLarge { tier, slots } => format!(
            "{id} cannot be solved: tier {tier} has {} index slots, over the solver's limit of 2^46 ({}); try --max-pieces or a smaller variant",
            count(*slots),
            qibase::solver::MAX_TIER_SLOTS
        ),
        LimitError::TooManyChildren { children, .. } => format!(
            "{id} cannot be solved: a position may have up to {children} distinct moves, more than the solver's 7-bit counter holds ({MAX_COUNTER})"
        ),
    }
}

/// Bytes one of `ranks` ranks sends the others while solving a tier of
/// `slots` slots whose positions have at most `max_moves` distinct moves,
/// at most. Each rank holds a share of the slots; each position of its
/// share asks for the values of its lower-tier children (no more than its
/// moves): an 8-byte request and a 2-byte reply each, of which the other
/// ranks hold a share `(ranks - 1) / ranks`; and each decided position
/// sends one 16-bit region offset per distinct parent (no more parents
/// than a position has un-moves, bounded as its moves are), to the same
/// share. (The finished tier goes to disk as each rank's part, not to the
/// other ranks.)
pub fn exchange_per_rank(slots: u64, max_moves: u32, ranks: u64) -> u64 {
    if ranks <= 1 {
        return 0;
    }
    let share = slots.div_ceil(ranks) as f64;
    let to_others = (ranks - 1) as f64 / ranks as f64;
    let lower = share * max_moves as f64 * (8.0 + 2.0) * to_others;
    let updates = share * max_moves as f64 * 2.0 * to_others;
    (lower + updates).min(u64::MAX as f64) as u64
}

/// Bytes one of `ranks` ranks holds while solving a tier that needs
/// `memory` in one process: its share of the tier's state words and of
/// the slices of the tiers it reads (every rank keeps only the slots it
/// owns), plus the messages of a round (tens of megabytes, not counted).
pub fn memory_per_rank(memory: u64, ranks: u64) -> u64 {
    memory.div_ceil(ranks.max(1))
}

/// Print the estimate (the `--estimate` output); with `ranks`, for a
/// solve by that many MPI ranks (docs/cluster.md).
pub fn print(v: &VariantSizes, e: &Estimate, ranks: Option<u64>) {
    let (id, title) = (v.id(), v.title());
    println!("{id} ({title})");
    match ranks {
        None => println!(
            "{:>8} {:>16} {:>18} {:>12} {:>12}",
            "tier", "slots", "positions", "memory", "disk"
        ),
        Some(_) => println!(
            "{:>8} {:>16} {:>18} {:>14} {:>16} {:>12}",
            "tier", "slots", "positions", "memory/rank", "exchange/rank", "disk"
        ),
    }
    for t in e.tiers() {
        match ranks {
            None => println!(
                "{:>8} {:>16} {:>18} {:>12} {:>12}",
                t.name,
                count(t.slots),
                count(t.positions),
                bytes(t.memory),
                bytes(t.disk)
            ),
            Some(n) => println!(
                "{:>8} {:>16} {:>18} {:>14} {:>16} {:>12}",
                t.name,
                count(t.slots),
                count(t.positions),
                bytes(memory_per_rank(t.memory, n)),
                bytes(exchange_per_rank(t.slots, e.max_moves, n)),
                bytes(t.disk)
            ),
        }
    }
    let (lo, hi) = e.memory();
    let largest = e.largest().map_or("none".to_string(), |t| {
        format!("{} ({} slots)", t.name, count(t.slots))
    });
    let machine = meminfo().map_or(String::new(), |m| {
        format!(
            "; this machine: {} total, {} available",
            bytes(m.total),
            bytes(m.available)
        )
    });
    println!(
        "estimate: {} tiers, {} positions, {} index slots, largest tier {largest}, memory {} to {} (with worst-case queues), disk at most {}{machine}; at most {} distinct moves a position (counter holds {MAX_COUNTER})",
        e.tiers().len(),
        count(e.positions),
        count(e.slots),
        bytes(lo),
        bytes(hi),
        bytes(e.disk()),
        e.max_moves
    );
    if let Some(n) = ranks {
        let most = e
            .tiers()
            .iter()
            .map(|t| exchange_per_rank(t.slots, e.max_moves, n))
            .fold(0u64, u64::saturating_add);
        println!(
            "with {n} ranks: each rank needs the memory/rank above (its slices of a tier and of the tiers it reads; with worst-case queues at most {}) and sends the others at most {} in all; each rank writes its part of a tier, rank 0 merges them into the tier file",
            bytes(memory_per_rank(hi, n)),
            bytes(most)
        );
    }
    match e.solvable().and_then(|()| e.fits_memory(id)) {
        Ok(()) => println!("fits this machine"),
        Err(why) => println!("does not fit: {}", why.message),
    }
}

/// Print how a solve under the plan's budget takes each tier
/// (`--estimate --memory SIZE`): in memory, out of core in so many
/// windows, or not at all; and the scratch disk the out-of-core tiers
/// need.
pub fn print_budget(e: &Estimate) {
    let Some(budget) = e.plan.budget() else {
        return;
    };
    // Budgets and regions can be below a mebibyte.
    let size = |b: u64| {
        if b < 1 << 20 {
            format!("{:.1} KiB", b as f64 / 1024.0)
        } else {
            bytes(b)
        }
    };
    println!("under --memory {}:", size(budget));
    let mut spilled = 0usize;
    for t in e.tiers() {
        let how = match t.budget {
            BudgetPlan::InMemory => "in memory".to_string(),
            BudgetPlan::OutOfCore { windows } => {
                spilled += 1;
                format!("out of core, {windows} windows")
            }
            BudgetPlan::TooSmall { need, .. } => format!("needs at least {}", size(need)),
        };
        println!("{:>8} {how}", t.name);
    }
    match e.plan.too_small() {
        Some((tier, need, _)) => println!(
            "the budget is too small: tier {} needs at least {}",
            tier.name,
            size(need)
        ),
        None => println!(
            "{spilled} of {} tiers out of core; scratch disk at least {} (beside the tables)",
            e.tiers().len(),
            bytes(e.plan.scratch_bytes())
        ),
    }
}

/// A count with thousands separators; `u64::MAX` stands for a count that
/// saturated (tiers of huge variants pass 2^64 slots).
fn count(n: u64) -> String {
    if n == u64::MAX {
        "over 2^64".to_string()
    } else {
        group(n)
    }
}

fn bytes(b: u64) -> String {
    if b == u64::MAX {
        return "over 2^64 bytes".to_string();
    }
    const MIB: f64 = (1u64 << 20) as f64;
    if b as f64 >= 1024.0 * MIB {
        format!("{:.1} GiB", b as f64 / (1024.0 * MIB))
    } else {
        format!("{:.1} MiB", b as f64 / MIB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_limits() {
        let sizes = |spec: &str| VariantSizes::of(spec).unwrap();
        let e = check(&sizes("three-cannons"), Some(5), None);
        assert!(e.fits_here("three-cannons").is_ok());
        assert_eq!(e.slots, 22_612_634);
        assert_eq!(e.positions, 163_037_800);
        assert_eq!(e.largest().unwrap().name, "k5");
        // k5 itself (2 B/slot) and k4 loaded (2 B/slot).
        assert_eq!(e.memory().0, 2 * 16_801_092 + 2 * 4_666_970);
        // Cannon chess on 32 points, 15 a side: numbering tables too large
        // to build, tiers far over the solver's limit; still estimated.
        let huge = check(&sizes("cannon-chess:board=8x4,pieces=15"), None, None);
        let why = huge.refusal.as_deref().unwrap();
        assert!(
            why.contains("numbering-table") && why.contains("cannot be solved or played"),
            "{why}"
        );
        assert_eq!(
            huge.tiers().len(),
            16 * 17 / 2,
            "every a v b with 15 >= a >= b"
        );
        assert!(huge.slots > 1 << 46);
        // The tier 1v1 of any grid: ordered pairs of points, one per
        // orbit of the mover's point (the eight symmetries of the square
        // board have 10 orbits of points on 8x8), times the 63 others.
        let board64 = VariantSizes::of("cannon-chess:board=8x8,pieces=15").unwrap();
        assert!(board64.refusal().is_some());
        let t11 = board64
            .tiers(Some(1))
            .into_iter()
            .find(|&t| board64.tier_name(t) == "1v1")
            .unwrap();
        assert_eq!(board64.tier_size(t11), 10 * 63);
        // Past 2^64 slots: saturated, and said so.
        let e64 = check(&board64, None, None);
        assert_eq!(e64.slots, u64::MAX);
        assert_eq!(count(e64.slots), "over 2^64");
        assert_eq!(bytes(e64.disk()), "over 2^64 bytes");
        assert!(e64.refusal.is_some());
        // A mistake other than the tables' size is still an error.
        assert!(VariantSizes::of("cannon-chess:board=9x9").is_err());
        assert!(VariantSizes::of("cannon-chess:board=8x8,pieces=33").is_err());
        // Tiers over 2^32 slots: estimated with 8-byte queue entries, and
        // refused only for the memory they need.
        let e = check(&sizes("cannon-chess:board=8x4,pieces=7"), None, None);
        assert_eq!(e.refusal, None);
        let big = e.tiers().iter().find(|t| t.slots > 1 << 32).unwrap();
        assert_eq!(big.memory_max - big.memory, 8 * big.slots);
        assert!(big.disk > big.slots / 2 && big.disk < big.slots);
        let small = e.tiers().iter().find(|t| t.slots < 1 << 32).unwrap();
        assert_eq!(small.memory_max - small.memory, 4 * small.slots);
        if meminfo().is_some_and(|m| m.total < e.memory().0) {
            let err = e.fits_here("cannon-chess").unwrap_err().message;
            assert!(err.contains("cannot be solved here"), "{err}");
        }
        // The exchange of a rank: nothing alone; with two ranks, half of
        // each of its positions' lower-tier requests and replies and of
        // its parent updates go to the other.
        assert_eq!(exchange_per_rank(1000, 10, 1), 0);
        assert_eq!(exchange_per_rank(1000, 10, 2), 500 * 10 * (8 + 2 + 2) / 2);
        assert_eq!(memory_per_rank(1001, 2), 501);
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(group(12), "12");
    }
}
