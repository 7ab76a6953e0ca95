//! The engine's overhead, measured against a bare loop over the same inputs.
//!
//! It stays in the engine, unlike the Nautilus baseline (`fuzzer/baseline`): it measures the
//! loop from inside, as a field of the harness, an observer in the executor's tuple and
//! metadata in the state that crosses restarts, so a crate outside would need the loop to take
//! foreign harness hooks and observers; and it needs no dependency the engine lacks.

use std::borrow::Cow;
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::time::Duration;

use libafl::HasMetadata;
use libafl::executors::ExitKind;
use libafl::observers::Observer;
use libafl_bolts::{Error, Named};

use libafl_bolts::rands::StdRand;
use serde::{Deserialize, Serialize};

use crate::choice::Replay;
use crate::grammar::Grammar;
use crate::sampler::{Bounds, Sample, Sampler};
use crate::target::LinkedTarget;
use crate::text::Renderer;

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
///
/// The CPU clock is read once every [`CHECKPOINT_INPUTS`] inputs, not once per input: reading
/// it is a system call (about 0.6 µs here, where the vDSO has no CPU clocks), which the bare
/// loop does not pay per input, and per input it was 0.6% of a starlark window.
///
/// An input that faults is left out of both loops, with the inputs recorded since the last
/// reading of the clock and the time from that reading to the next recorded input (their
/// runs, the fault handling, a restart): the bare loop could not survive a signal, and a
/// hang's second of CPU would swamp the window. The inputs left out with it ran, but their
/// time cannot be told from the fault's without a reading per input; both loops leave them
/// out, so each still times exactly the inputs the other runs. A crash or hang ends the
/// fuzzing process, so [`OverheadObserver`] puts the recorder into the LibAFL state, which
/// travels to the restarted process: the recording goes on across restarts, which a loaded
/// machine makes likely (a timeout is wall-clock).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Recorder {
    skip: usize,
    skipped: usize,
    limit: usize,
    inputs: RecordedInputs,
    /// CPU time of the window up to the last reading of the clock.
    spent: Duration,
    /// The last reading of the clock in this segment (a fault ends a segment).
    checkpoint: Option<Checkpoint>,
    /// Whether the input now running was recorded.
    current: bool,
    /// CPU time of the whole window, once it is full.
    finished: Option<Duration>,
    /// Faulting inputs left out.
    excluded: usize,
    /// Inputs that did not fault, left out with a fault (see above).
    left_out_with_faults: usize,
    /// Whether the fault of the input now running was caught in this process (a panic, a
    /// wrong answer), which goes on fuzzing: then the state needs no copy of the recorder.
    #[serde(skip)]
    caught: bool,
}
libafl_bolts::impl_serdeany!(Recorder);

/// A reading of the process's CPU clock, taken just before recorded input number `inputs`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Checkpoint {
    time: Duration,
    inputs: usize,
}

/// Recorded inputs between two readings of the CPU clock: few enough that the inputs a fault
/// takes with it are a small share of a window (some 30 a fault, a few faults in 30,000
/// inputs), many enough that the readings cost nothing measurable.
const CHECKPOINT_INPUTS: usize = 64;

impl Recorder {
    pub fn new(limit: usize, skip: usize) -> Self {
        Self {
            skip,
            skipped: 0,
            limit,
            inputs: RecordedInputs::default(),
            spent: Duration::ZERO,
            checkpoint: None,
            current: false,
            finished: None,
            excluded: 0,
            left_out_with_faults: 0,
            caught: false,
        }
    }

    /// Called by the harness for each execution, with the choices it replayed, before the
    /// target runs.
    pub fn record(&mut self, choices: &[u32]) {
        self.current = false;
        self.caught = false;
        if self.skipped < self.skip {
            self.skipped += 1;
        } else if self.inputs.len() < self.limit {
            let recorded = self.inputs.len();
            if self
                .checkpoint
                .is_none_or(|last| recorded - last.inputs >= CHECKPOINT_INPUTS)
            {
                let now = cpu_time();
                if let Some(last) = self.checkpoint {
                    self.spent += now.saturating_sub(last.time);
                }
                self.checkpoint = Some(Checkpoint {
                    time: now,
                    inputs: recorded,
                });
            }
            self.current = true;
            self.inputs.push(choices);
        } else if self.finished.is_none() {
            let now = cpu_time();
            let open = self
                .checkpoint
                .map_or(Duration::ZERO, |last| now.saturating_sub(last.time));
            self.finished = Some(self.spent + open);
        }
    }

    /// Makes room for the inputs still to be recorded, before the window starts or goes on
    /// after a restart: the recording is the measurement's, not the engine's, and growing it
    /// inside the window charged the fuzzing loop with the kernel zeroing its fresh pages
    /// (about 100 MB of choices in a 30,000-input starlark window), which the bare loop never
    /// pays.
    pub fn prepare(&mut self) {
        let left = self.limit.saturating_sub(self.inputs.len());
        let inputs = left.min(MAX_PREPARED_INPUTS);
        self.inputs.reserve(inputs, inputs * EXPECTED_CHOICES);
    }

    /// The input now running faulted, and the harness caught the fault: the process goes on.
    pub fn fault_caught(&mut self) {
        self.caught = true;
    }

    /// The input now running faulted: drop it with the inputs recorded since the last reading
    /// of the clock, and close the segment there.
    pub fn exclude_current(&mut self) {
        if !std::mem::take(&mut self.current) {
            return;
        }
        let Some(last) = self.checkpoint.take() else {
            return;
        };
        let dropped = self.inputs.len() - last.inputs;
        self.inputs.truncate(last.inputs);
        self.excluded += 1;
        self.left_out_with_faults += dropped - 1;
    }
}

/// Choices per recorded input that [`Recorder::prepare`] makes room for: the first 1,103
/// starlark entries drawn as splice donors in a run (seed 1, 3,3,3) averaged 907 choices, and
/// the run's mutants are of their size; a window of longer ones grows the room as it goes.
const EXPECTED_CHOICES: usize = 1024;

/// The most inputs [`Recorder::prepare`] makes room for (256 MB of choices): a window of
/// millions of inputs grows its recording as it goes rather than taking gigabytes up front.
const MAX_PREPARED_INPUTS: usize = 1 << 16;

/// The recorded inputs' choices end to end, one allocation instead of one per input.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct RecordedInputs {
    choices: Vec<u32>,
    /// Where each input's choices end in `choices`.
    ends: Vec<usize>,
}

impl RecordedInputs {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn push(&mut self, choices: &[u32]) {
        self.choices.extend_from_slice(choices);
        self.ends.push(self.choices.len());
    }

    /// Keeps the first `inputs` inputs.
    fn truncate(&mut self, inputs: usize) {
        self.ends.truncate(inputs);
        self.choices
            .truncate(self.ends.last().copied().unwrap_or(0));
    }

    fn iter(&self) -> impl Iterator<Item = &[u32]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(start, end)| &self.choices[start..end])
    }

    /// Room for `inputs` more inputs of `choices` choices in all, its pages touched now so
    /// that recording does not fault them in.
    fn reserve(&mut self, inputs: usize, choices: usize) {
        let len = self.choices.len();
        self.choices.resize(len + choices, 0);
        self.choices.truncate(len);
        let ends = self.ends.len();
        self.ends.resize(ends + inputs, 0);
        self.ends.truncate(ends);
    }
}

/// Shared between the harness, which records, and [`OverheadObserver`], which sees faults.
pub type SharedRecorder = Rc<RefCell<Recorder>>;

/// Tells the recorder about faulting executions and, when a fault ends the process (a signal,
/// a timeout), puts it into the state that the restarted process resumes from. LibAFL's crash
/// and timeout handlers run the observers' `post_exec` before they save the state. A fault the
/// harness caught (a panic, a wrong answer) ends nothing, and the copy (every recorded input,
/// megabytes late in the window) cost the fuzzing loop a share of the window's time that the
/// bare loop never pays: 1.1% of a starlark window with seven caught faults.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct OverheadObserver {
    #[serde(skip)]
    recorder: Option<SharedRecorder>,
}

impl OverheadObserver {
    pub fn new(recorder: Option<SharedRecorder>) -> Self {
        Self { recorder }
    }
}

impl Named for OverheadObserver {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("overhead");
        &NAME
    }
}

impl<I, S: HasMetadata> Observer<I, S> for OverheadObserver {
    fn post_exec(&mut self, state: &mut S, _input: &I, exit_kind: &ExitKind) -> Result<(), Error> {
        if let Some(recorder) = &self.recorder
            && *exit_kind != ExitKind::Ok
        {
            let mut recorder = recorder.borrow_mut();
            recorder.exclude_current();
            if !recorder.caught {
                state.add_metadata(recorder.clone());
            }
        }
        Ok(())
    }
}

/// Executions per CPU second of the fuzzer and of the bare loop, over the same inputs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    pub inputs: usize,
    pub fuzz_execs_per_sec: f64,
    pub bare_execs_per_sec: f64,
    /// Faulting inputs left out of both loops (see [`Recorder`]).
    #[serde(default)]
    pub excluded: usize,
    /// Inputs that did not fault, left out of both loops with a fault (see [`Recorder`]).
    #[serde(default)]
    pub left_out_with_faults: usize,
    /// fuzz / bare: the share of the bare rate the fuzzer keeps.
    pub ratio: f64,
    /// Whether both loops ran the target's oracles (`--oracles`).
    #[serde(default)]
    pub oracles: bool,
}

/// Replays what `recorder` saw (the complete choices of each execution, so the replay draws
/// nothing fresh and runs the same programs) through the bare pipeline (replay, render,
/// target) in this process, and compares the rates. The bare loop does exactly the work without
/// which there would be no execution at all; everything else the fuzzer does is overhead.
/// With `oracles` (the run's `--oracles`), the bare loop also runs the target's oracles on
/// each verdict, as the harness did: they are the target's code (its printer, its second
/// implementation), and a run that checks answers pays for them with or without an engine.
pub fn measure(
    recorder: &Recorder,
    grammar: &Grammar,
    bounds: Bounds,
    target: LinkedTarget,
    oracles: bool,
) -> Option<Overhead> {
    let fuzz_secs = recorder.finished?.as_secs_f64();
    let mut sampler = Sampler::new(grammar, bounds).ok()?;
    let mut rng = StdRand::with_seed(0);
    let mut sample = Sample::default();
    let mut text = String::new();
    // One renderer for the loop, as the harness keeps one: building one per text (the free
    // `render_into`) made the bare loop slower than the pipeline it stands for.
    let renderer = Renderer::new(grammar);
    let mut instance = (target.make)();
    let bare_started = cpu_time();
    for choices in recorder.inputs.iter() {
        let _ = sampler.sample(choices, Replay::Repair, &mut rng, &mut sample);
        renderer.render_into(&sample.tree, &mut text);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let verdict = instance.run(text.as_bytes());
            if oracles {
                let _ = instance.check(text.as_bytes(), &verdict);
            }
        }));
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
        excluded: recorder.excluded,
        left_out_with_faults: recorder.left_out_with_faults,
        ratio: fuzz / bare,
        oracles,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::target::{Target, Verdict, Violation};

    static RUNS: AtomicUsize = AtomicUsize::new(0);
    static CHECKS: AtomicUsize = AtomicUsize::new(0);

    struct Counting;

    impl Target for Counting {
        fn run(&mut self, _input: &[u8]) -> Verdict {
            RUNS.fetch_add(1, Ordering::Relaxed);
            Verdict::Valid
        }

        fn check(&mut self, _input: &[u8], _verdict: &Verdict) -> Option<Violation> {
            CHECKS.fetch_add(1, Ordering::Relaxed);
            None
        }
    }

    #[test]
    fn the_bare_loop_runs_the_oracles_exactly_when_the_run_did() {
        let grammar = Grammar::from_text("g", "s = \"a\" | \"b\" ;").unwrap();
        let bounds = Bounds::new(1, 1, 3).unwrap();
        let mut recorder = Recorder::new(4, 0);
        for i in 0..5 {
            recorder.record(&[i % 2]);
        }
        let target = LinkedTarget {
            name: "counting",
            make: || Box::new(Counting),
        };
        let without = measure(&recorder, &grammar, bounds, target, false).unwrap();
        assert_eq!(RUNS.load(Ordering::Relaxed), 4);
        assert_eq!(CHECKS.load(Ordering::Relaxed), 0);
        assert!(!without.oracles);
        let with = measure(&recorder, &grammar, bounds, target, true).unwrap();
        assert_eq!(RUNS.load(Ordering::Relaxed), 8);
        assert_eq!(CHECKS.load(Ordering::Relaxed), 4);
        assert!(with.oracles);
    }

    #[test]
    fn records_the_window_after_the_skipped_executions() {
        let mut recorder = Recorder::new(2, 3);
        for i in 0..3 {
            recorder.record(&[i]);
        }
        assert!(
            recorder.checkpoint.is_none(),
            "nothing recorded while skipping"
        );
        for i in 3..10 {
            recorder.record(&[i]);
        }
        assert_eq!(recorder.inputs.iter().collect::<Vec<_>>(), [[3], [4]]);
        assert!(recorder.finished.is_some());
    }

    #[test]
    fn a_fault_takes_the_inputs_since_the_clocks_last_reading_and_recording_goes_on_after_a_restart()
     {
        let n = CHECKPOINT_INPUTS;
        let mut recorder = Recorder::new(3 * n, 0);
        // The clock is read before inputs 0 and n; input n + 2 faults.
        for i in 0..n + 3 {
            recorder.record(&[i as u32]);
        }
        recorder.exclude_current();
        assert_eq!(
            recorder.inputs.len(),
            n,
            "the inputs since the reading before input n are not the ones left out"
        );
        assert_eq!((recorder.excluded, recorder.left_out_with_faults), (1, 2));
        // The restarted process continues from the copy in the state.
        let mut restarted = recorder.clone();
        restarted.exclude_current();
        assert_eq!(restarted.excluded, 1, "a fault is left out once");
        for i in 0..3 * n {
            restarted.record(&[1000 + i as u32]);
        }
        let firsts: Vec<u32> = restarted.inputs.iter().map(|c| c[0]).collect();
        assert_eq!(firsts.len(), 3 * n);
        assert_eq!(firsts[..n], (0..n as u32).collect::<Vec<_>>());
        assert_eq!(firsts[n..], (1000..1000 + 2 * n as u32).collect::<Vec<_>>());
        assert!(restarted.finished.is_some());
        // A fault in an unrecorded execution (past the window) changes nothing.
        restarted.exclude_current();
        assert_eq!(restarted.inputs.len(), 3 * n);
        assert_eq!(restarted.excluded, 1);
    }

    /// A fault the harness caught ends nothing: it is left out like any fault, but the state
    /// gets no copy of the recorder (every recorded input, a cost the bare loop never pays).
    /// A fault that ends the process (a signal, a timeout) leaves the restarted one a copy.
    #[test]
    fn only_a_fault_that_ends_the_process_copies_the_recorder_into_the_state() {
        let recorder: SharedRecorder = Rc::new(RefCell::new(Recorder::new(10, 0)));
        let mut observer = OverheadObserver::new(Some(Rc::clone(&recorder)));
        let mut state = libafl::state::NopState::<()>::new();
        recorder.borrow_mut().record(&[1]);
        recorder.borrow_mut().fault_caught();
        observer
            .post_exec(&mut state, &(), &ExitKind::Crash)
            .unwrap();
        assert_eq!(recorder.borrow().excluded, 1);
        assert!(
            state.metadata::<Recorder>().is_err(),
            "a caught fault copied"
        );
        recorder.borrow_mut().record(&[2]);
        observer
            .post_exec(&mut state, &(), &ExitKind::Timeout)
            .unwrap();
        let copy = state
            .metadata::<Recorder>()
            .expect("no copy for the restart");
        assert_eq!(copy.excluded, 2);
        recorder.borrow_mut().record(&[3]);
        observer.post_exec(&mut state, &(), &ExitKind::Ok).unwrap();
        assert_eq!(recorder.borrow().excluded, 2, "a clean run was left out");
    }
}
