//! The engine's overhead, measured against a bare loop over the same inputs.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use libafl_bolts::rands::StdRand;
use serde::{Deserialize, Serialize};

use crate::choice::Replay;
use crate::grammar::Grammar;
use crate::sampler::{Bounds, Sample, Sampler};
use crate::target::LinkedTarget;
use crate::text::render_into;

/// CPU time (user and system) this process has used. Both loops are timed in CPU time, not
/// wall time: they run one after the other, and on a shared machine the load in the two
/// windows differs, which would skew a wall-clock ratio either way.
fn cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid out-pointer; the clock id is a constant the kernel knows.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// Records `limit` inputs the harness executes, after the first `skip`, with the CPU time it
/// took the whole fuzzer (mutation, scheduling, feedback, corpus) to get through them. The
/// start of a run saves an input every few executions, later ones rarely; skipping lets a
/// measurement show the steady state an overnight campaign spends its time in.
#[derive(Debug)]
pub struct Recorder {
    skip: usize,
    skipped: usize,
    limit: usize,
    inputs: Vec<Vec<u32>>,
    started: Option<Duration>,
    finished: Option<Duration>,
}

impl Recorder {
    pub fn new(limit: usize, skip: usize) -> Self {
        Self {
            skip,
            skipped: 0,
            limit,
            inputs: Vec::with_capacity(limit.min(1 << 20)),
            started: None,
            finished: None,
        }
    }

    /// Called by the harness for each execution, with the choices it replayed, before the
    /// target runs.
    pub fn record(&mut self, choices: &[u32]) {
        if self.skipped < self.skip {
            self.skipped += 1;
        } else if self.inputs.len() < self.limit {
            self.started.get_or_insert_with(cpu_time);
            self.inputs.push(choices.to_vec());
        } else if self.finished.is_none() {
            self.finished = Some(cpu_time());
        }
    }
}

/// Executions per CPU second of the fuzzer and of the bare loop, over the same inputs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    pub inputs: usize,
    pub fuzz_execs_per_sec: f64,
    pub bare_execs_per_sec: f64,
    /// fuzz / bare: the share of the bare rate the fuzzer keeps.
    pub ratio: f64,
}

/// Replays what `recorder` saw (the complete choices of each execution, so the replay draws
/// nothing fresh and runs the same programs) through the bare pipeline (replay, render,
/// target) in this process, and compares the rates. The bare loop does exactly the work without
/// which there would be no execution at all; everything else the fuzzer does is overhead.
pub fn measure(
    recorder: &Recorder,
    grammar: &Grammar,
    bounds: Bounds,
    target: LinkedTarget,
) -> Option<Overhead> {
    let (Some(started), Some(finished)) = (recorder.started, recorder.finished) else {
        return None;
    };
    let fuzz_secs = finished.saturating_sub(started).as_secs_f64();
    let mut sampler = Sampler::new(grammar, bounds).ok()?;
    let mut rng = StdRand::with_seed(0);
    let mut sample = Sample::default();
    let mut text = String::new();
    let mut instance = (target.make)();
    let bare_started = cpu_time();
    for choices in &recorder.inputs {
        let _ = sampler.sample(choices, Replay::Repair, &mut rng, &mut sample);
        render_into(grammar, &sample.tree, &mut text);
        let outcome = catch_unwind(AssertUnwindSafe(|| instance.run(text.as_bytes())));
        if outcome.is_err() {
            instance = (target.make)();
        }
    }
    let bare_secs = cpu_time().saturating_sub(bare_started).as_secs_f64();
    let n = recorder.inputs.len() as f64;
    let fuzz = n / fuzz_secs.max(1e-9);
    let bare = n / bare_secs.max(1e-9);
    Some(Overhead {
        inputs: recorder.inputs.len(),
        fuzz_execs_per_sec: fuzz,
        bare_execs_per_sec: bare,
        ratio: fuzz / bare,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_the_window_after_the_skipped_executions() {
        let mut recorder = Recorder::new(2, 3);
        for i in 0..3 {
            recorder.record(&[i]);
        }
        assert!(
            recorder.started.is_none(),
            "nothing recorded while skipping"
        );
        for i in 3..10 {
            recorder.record(&[i]);
        }
        assert_eq!(recorder.inputs, vec![vec![3], vec![4]]);
        assert!(recorder.started.is_some() && recorder.finished.is_some());
    }
}
