//! Progress bars for a solve: the CLI's [`SolveObserver`].

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use qibase::solver::{SolveObserver, TierReport};
use qibase::tablebase::TbError;

/// One bar per tier on stderr (hidden with `--quiet`): slots of the initial
/// pass, then the propagation level as the bar's message.
pub struct SolveBars {
    visible: bool,
    bar: Mutex<ProgressBar>,
}

impl SolveBars {
    /// Bars shown on stderr if `visible`, none otherwise.
    pub fn new(visible: bool) -> SolveBars {
        SolveBars {
            visible,
            bar: Mutex::new(ProgressBar::hidden()),
        }
    }

    /// The current tier's bar (a cheap handle: the bar is shared).
    fn bar(&self) -> ProgressBar {
        self.bar.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl SolveObserver for SolveBars {
    fn tier_started(&self, name: &str, slots: u64) {
        if !self.visible {
            return;
        }
        let b = ProgressBar::new(slots);
        b.set_style(
            ProgressStyle::with_template(
                "{prefix:>6} [{elapsed_precise}] {bar:30} {human_pos}/{human_len} slots {rate} eta {eta} {msg}",
            )
            .expect("valid progress template")
            .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.2} M/s", s.per_sec() / 1e6);
            }),
        );
        b.set_prefix(name.to_string());
        b.set_message("initial pass");
        *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = b;
    }

    fn tier_resumed(&self, name: &str, level: u64) {
        let line = format!(
            "resuming tier {name} at level {level} from the checkpoint of an interrupted solve"
        );
        // Above the bar when it is drawn (a hidden bar's println prints
        // nothing).
        self.bar().suspend(|| eprintln!("{line}"));
    }

    fn initial(&self, slots: u64) {
        self.bar().inc(slots);
    }

    fn level(&self, level: u16, decided: u64) {
        self.bar()
            .set_message(format!("level {level}: {decided} positions propagated"));
    }

    fn tier_solved(&self, _report: &TierReport) {
        self.bar().finish_and_clear();
    }

    fn resolving(&self, name: &str, why: &TbError) {
        eprintln!("re-solving tier {name}: {}", crate::hint::hint(why));
    }
}
