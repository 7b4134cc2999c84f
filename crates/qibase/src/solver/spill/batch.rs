//! How many slots a batch of requests covers.
//!
//! The memory a batch takes is set by its requests, not its slots, and
//! the requests per slot vary by tier and within a tier by a large factor
//! (a run of unused slots asks nothing; a run of positions with many
//! captures asks about many children). A fixed guess of requests per
//! slot either wastes the budget or, on a tier whose positions have more
//! children than guessed, overshoots it by the ratio. Following the last
//! batch's rate is no better: after a run of unused slots it predicts
//! almost nothing and the next batch takes in far too many slots.
//!
//! So a batch is filled in rounds. Each round covers the slots that half
//! the room left in the batch holds at the highest rate seen so far (with
//! an eighth of headroom, and never below the guess the caller starts
//! from), and the batch is answered once the room left is too small for a
//! round that gives every thread a chunk. A round overshoots the batch
//! only when its slots ask more than twice the rate of any before them.

use crate::solver::state::CHUNK;

/// Rates are kept in sixteenths of a request per slot.
const SCALE: usize = 16;

/// Rounds of slots that fill batches of a bounded number of requests.
pub(crate) struct BatchSlots {
    /// Requests one batch may hold.
    requests: usize,
    /// Requests per slot assumed: the guess, or the highest rate a round
    /// has asked with its headroom if that is more; in sixteenths.
    rate: usize,
    /// The smallest round worth running: a chunk for every thread.
    least: usize,
}

impl BatchSlots {
    /// Batches of at most about `requests` requests, from slots assumed to
    /// ask at least `per_slot` requests each.
    pub(crate) fn new(requests: usize, per_slot: usize) -> Self {
        BatchSlots {
            requests,
            rate: (per_slot * SCALE).max(1),
            least: CHUNK * rayon::current_num_threads(),
        }
    }

    /// Slots of the next round of a batch that holds `asked` requests so
    /// far; `None` when the batch is full. An empty batch always takes a
    /// round of at least a chunk a thread.
    pub(crate) fn round(&self, asked: usize) -> Option<usize> {
        let room = self.requests.saturating_sub(asked).saturating_mul(SCALE);
        let slots = room / self.rate / 2;
        if asked == 0 {
            Some(slots.max(self.least))
        } else if slots < self.least {
            None
        } else {
            Some(slots)
        }
    }

    /// A round covered `slots` slots and asked `asked` requests.
    pub(crate) fn observe(&mut self, slots: usize, asked: usize) {
        if slots == 0 {
            return;
        }
        let seen = asked.saturating_mul(SCALE).div_ceil(slots);
        self.rate = self.rate.max(seen + seen.div_ceil(8));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fills one batch from slots asking `per_slot(slot)` requests each;
    /// the requests it holds and the slots it covers.
    fn fill(b: &mut BatchSlots, from: usize, per_slot: &dyn Fn(usize) -> usize) -> (usize, usize) {
        let (mut at, mut asked) = (from, 0);
        while let Some(slots) = b.round(asked) {
            let n: usize = (at..at + slots).map(per_slot).sum();
            b.observe(slots, n);
            asked += n;
            at += slots;
        }
        (asked, at - from)
    }

    #[test]
    fn a_batch_stays_within_its_requests_when_the_rate_jumps() {
        let budget = 1 << 24;
        // A long run of unused slots, then positions asking 30 each (the
        // guess is 16): the unused run must not make a batch take in
        // millions of positions, and the jump must not overshoot.
        let rate = |s: usize| if s < 1 << 24 { 0 } else { 30 };
        let mut b = BatchSlots::new(budget, 16);
        let mut at = 0;
        let mut fullest = 0;
        while at < (1 << 25) {
            let (asked, slots) = fill(&mut b, at, &rate);
            assert!(asked <= budget, "{asked} at {at}");
            fullest = fullest.max(asked);
            at += slots;
        }
        // Batches are not starved either: once the rate is known, each
        // is filled to within two rounds of a chunk a thread.
        let least = CHUNK * rayon::current_num_threads();
        assert!(fullest >= budget - 2 * least * 34, "{fullest}");
    }

    #[test]
    fn rates_below_the_guess_and_absurd_ones() {
        let budget = 1 << 22;
        let least = CHUNK * rayon::current_num_threads();
        // Fewer requests than the guess: rounds are sized by the guess,
        // and the batch goes on until its requests fill it.
        let mut b = BatchSlots::new(budget, 16);
        let (asked, slots) = fill(&mut b, 0, &|s| usize::from(s % 4 == 0));
        assert!(asked <= budget && asked >= budget - 32 * least, "{asked}");
        assert_eq!(slots.div_ceil(4), asked);
        // Four times the guess: the first round overshoots its half of
        // the room at most twice, and later batches stay within budget.
        let mut b = BatchSlots::new(budget, 16);
        let (asked, slots) = fill(&mut b, 0, &|_| 64);
        assert!(asked <= budget * 2, "{asked}");
        let (asked, _) = fill(&mut b, slots, &|_| 64);
        assert!(asked <= budget, "{asked}");
        // Never less than a chunk a thread a round, even at an absurd
        // rate (the budget cannot be kept; the work still gets done).
        let mut b = BatchSlots::new(16, 16);
        assert_eq!(fill(&mut b, 0, &|_| 1000).1, least);
    }
}
