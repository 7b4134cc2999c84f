//! The in-memory mode of a solve: each tier solved in memory, the values
//! of the finished tiers that later tiers read held whole, each tier's
//! file written beside the next tier's solve.

use std::collections::HashMap;
use std::sync::Arc;

use super::driver::{Callbacks, Mode, Solved, Step};
use super::plan::How;
use super::propagate::Tuning;
use super::tier::solve_tier;
use super::write::Write;
use super::SolveError;
use super::TierOptions;
use crate::game::{Game, TierKey, Tiers};
use crate::tablebase::{self, TierMeta, TierStore};
use crate::tier_values::TierValues;
use crate::value::Packed;

/// Solve every tier of `g` (or of the subset) in memory, without files.
/// Used by tests and small games; returns each tier's packed values.
///
/// # Panics
///
/// If a tier is over one of the solver's [limits](super::check_limits) (see
/// [`solve_tier`]).
pub fn solve_in_memory<G: Tiers>(g: &G, max_pieces: Option<u32>) -> HashMap<TierKey, Vec<Packed>> {
    let mut done: HashMap<TierKey, Vec<Packed>> = HashMap::new();
    for t in g.tiers(max_pieces) {
        let mut lower = TierValues::new();
        for d in g.tier_deps(t) {
            lower.add(d, &done[&d]);
        }
        let solved = solve_tier(g, t, &lower, &TierOptions::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .expect("never asked to stop");
        done.insert(t, solved.values);
    }
    done
}

/// Solve tier `t` in memory from the values of the tiers it reads, with
/// `tuning`: the tier solver of every mode that holds a whole tier.
pub(super) fn solve_in_core<G: Tiers>(
    g: &G,
    t: TierKey,
    lower: &TierValues,
    tuning: Tuning,
    cb: &Callbacks,
) -> Result<Option<Solved<Vec<Packed>>>, SolveError> {
    let solved = solve_tier(g, t, lower, &cb.tier_options().tuning(tuning))?;
    Ok(solved.map(|s| Solved {
        out: s.values,
        stats: s.stats,
        touches: s.touches,
        windows: 0,
        resumed_seconds: 0.0,
    }))
}

/// Every tier in memory, the finished ones whole.
pub(super) struct InMemory<'a, G: Game> {
    store: &'a TierStore<'a, G>,
}

impl<'a, G: Game> InMemory<'a, G> {
    pub fn new(store: &'a TierStore<'a, G>) -> InMemory<'a, G> {
        InMemory { store }
    }
}

impl<G: Game> Mode for InMemory<'_, G> {
    type Held = Arc<Vec<Packed>>;
    type Out = Arc<Vec<Packed>>;

    fn read(&mut self, d: TierKey) -> Result<Self::Held, SolveError> {
        Ok(Arc::new(self.store.load(d)?))
    }

    fn solve(
        &mut self,
        at: &Step,
        held: &mut HashMap<TierKey, Self::Held>,
        cb: &Callbacks,
    ) -> Result<Option<Solved<Self::Out>>, SolveError> {
        let Some(How::InMemory(tuning)) = at.plan.how() else {
            unreachable!("a plan without a budget solves every tier in memory")
        };
        let g = self.store.game();
        let mut lower = TierValues::new();
        for d in g.tier_deps(at.tier) {
            lower.add(d, &held[&d]);
        }
        let solved = solve_in_core(g, at.tier, &lower, tuning, cb)?;
        Ok(solved.map(|s| Solved {
            out: Arc::new(s.out),
            stats: s.stats,
            touches: s.touches,
            windows: s.windows,
            resumed_seconds: s.resumed_seconds,
        }))
    }

    fn write(
        &mut self,
        at: &Step,
        meta: TierMeta,
        out: &mut Self::Out,
    ) -> Result<Write, SolveError> {
        // The next tier reads this one from memory, not from the file, so
        // the write can run beside it.
        let (path, values) = (self.store.path(at.tier), Arc::clone(out));
        Ok(Write::Spawn(Box::new(move || {
            tablebase::write_tier(&path, &meta, &values)
        })))
    }

    fn keep(out: Self::Out) -> Self::Held {
        out
    }
}
