//! The live status line.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use libafl::HasMetadata;
use libafl::corpus::Corpus;
use libafl::state::{HasCorpus, HasExecutions, HasLastFoundTime, HasSolutions};
use libafl_bolts::current_time;

use crate::choice::ChoiceInput;
use crate::corpus::valid_entries;
use crate::feedback::CoverageHistory;

/// Redraws at most this often on a terminal.
const DRAW_INTERVAL: Duration = Duration::from_millis(250);
/// Writes a log line this often when stderr is not a terminal (CI logs, `nohup`).
const LOG_INTERVAL: Duration = Duration::from_secs(10);

/// Shows execs/s, edges, corpus size, valid share, faults and the time since the last find:
/// an indicatif line on a terminal, a `tracing` line every ten seconds otherwise, nothing when
/// quiet.
pub struct Status {
    bar: Option<ProgressBar>,
    log: bool,
    started: Instant,
    next: Instant,
    /// Executions at the last redraw, for the current rate; `None` until the first one.
    last_execs: Option<(Instant, u64)>,
    /// Calls since the clock was last read.
    calls: u32,
}

impl Status {
    pub fn new(show: bool, started: Instant) -> Self {
        let terminal = show && std::io::stderr().is_terminal();
        let bar = terminal.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("valid template"));
            bar
        });
        Self {
            bar,
            log: show && !terminal,
            started,
            next: Instant::now()
                + if terminal {
                    DRAW_INTERVAL
                } else {
                    LOG_INTERVAL
                },
            last_execs: None,
            calls: 0,
        }
    }

    /// Cheap enough to call after every execution: it only reads the clock until a redraw is
    /// due.
    pub fn tick<S>(&mut self, state: &S)
    where
        S: HasExecutions
            + HasMetadata
            + HasCorpus<ChoiceInput>
            + HasSolutions<ChoiceInput>
            + HasLastFoundTime,
    {
        if self.bar.is_none() && !self.log {
            return;
        }
        // Reading the clock costs tens of nanoseconds; once per 64 executions is plenty.
        self.calls += 1;
        if self.calls < 64 {
            return;
        }
        self.calls = 0;
        let now = Instant::now();
        if now < self.next {
            return;
        }
        self.next = now
            + if self.bar.is_some() {
                DRAW_INTERVAL
            } else {
                LOG_INTERVAL
            };
        let line = self.line(state, now);
        match &self.bar {
            Some(bar) => {
                bar.set_message(line);
                bar.tick();
            }
            None => tracing::info!("{line}"),
        }
    }

    fn line<S>(&mut self, state: &S, now: Instant) -> String
    where
        S: HasExecutions
            + HasMetadata
            + HasCorpus<ChoiceInput>
            + HasSolutions<ChoiceInput>
            + HasLastFoundTime,
    {
        let execs = *state.executions();
        // After a restart the first line has no window yet: show the whole run's rate.
        let (then, before) = self.last_execs.unwrap_or((self.started, 0));
        let window = now.duration_since(then).as_secs_f64();
        let rate = if window > 0.0 {
            (execs - before.min(execs)) as f64 / window
        } else {
            0.0
        };
        self.last_execs = Some((now, execs));
        let edges = state
            .metadata::<CoverageHistory>()
            .map_or(0, |h| h.all_edges.max(h.valid_edges));
        let corpus = state.corpus();
        let valid = valid_entries(corpus);
        let share = 100.0 * valid as f64 / corpus.count().max(1) as f64;
        let since = current_time().saturating_sub(*state.last_found_time());
        format!(
            "{:>6}  execs {} ({:.0}/s)  edges {edges}  corpus {} ({share:.0}% valid)  faults {}  last find {}s ago",
            format_elapsed(self.started.elapsed()),
            execs,
            rate,
            corpus.count(),
            state.solutions().count(),
            since.as_secs()
        )
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

pub(super) fn format_elapsed(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}
