//! One execution: choices → tree → text → target, and the target's oracles.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

use libafl::executors::ExitKind;
use libafl_bolts::rands::StdRand;

use crate::choice::{ChoiceInput, Replay};
use crate::feedback::{run_caught, wrong_answer};
use crate::grammar::Grammar;
use crate::mutators::{ReplayedMutant, SharedSampler};
use crate::observer::{ExecutionClass, LastExecution};
use crate::sampler::{Bounds, Sampler};
use crate::target::{LinkedTarget, Target, Verdict, memory_limit};
use crate::text::Renderer;

/// Replays an input in repairing mode (mutants are raw values until the sampler has decided
/// what they mean), renders it into a reused buffer, and runs the target under
/// `catch_unwind` with the memory limit armed. What it replayed and the verdict go into the
/// shared [`LastExecution`] record for the feedbacks; nothing is sampled twice.
pub struct Harness {
    /// Shared with the structure-aware mutators' [`ParentTrees`](crate::mutators::ParentTrees):
    /// both replay the same grammar under the same bounds, one sample at a time, so one cache
    /// of per-saturated-set analyses serves both (half the memory a long run's caches reach, and
    /// a parent's sets are the ones its own execution computed).
    sampler: SharedSampler,
    /// A mutant the mutators already replayed, run without replaying it again.
    replayed: ReplayedMutant,
    renderer: Renderer<'static>,
    /// Draws the fresh choices past the end of a mutant (and all of them for a generated
    /// input, which is an empty sequence).
    rng: StdRand,
    replay: Rc<RefCell<LastExecution>>,
    linked: LinkedTarget,
    target: Box<dyn Target>,
    memory_limit: Option<usize>,
    max_len: usize,
    /// Set while the run's seeds are executed: a seed is the user's input (or an entry the
    /// run saved before), run whatever its length, so that none is dropped.
    pub running_seeds: Rc<Cell<bool>>,
    /// Set when measuring the engine's overhead (see `overhead`).
    pub recorder: Option<super::overhead::SharedRecorder>,
    /// Whether to run the target's oracles after its verdict (`--oracles`).
    pub oracles: bool,
    /// Whether to time the target's runs: only the slow-path criterion reads the time, and
    /// the clock costs every execution.
    pub times_target: bool,
    /// Gives a transient peak's memory back after the execution that freed it, so that one
    /// large input does not grow an overnight run for good.
    freed_peak: memory_limit::FreedPeak,
}

impl Harness {
    pub fn new(
        grammar: &'static Grammar,
        bounds: Bounds,
        seed: u64,
        replay: Rc<RefCell<LastExecution>>,
        linked: LinkedTarget,
        memory_limit: Option<usize>,
        max_len: usize,
    ) -> Result<Self, crate::diagnostic::Diagnostic> {
        Ok(Self {
            sampler: Rc::new(RefCell::new(Sampler::new(grammar, bounds)?)),
            replayed: ReplayedMutant::default(),
            renderer: Renderer::new(grammar),
            rng: StdRand::with_seed(seed),
            replay,
            linked,
            target: (linked.make)(),
            memory_limit,
            max_len,
            running_seeds: Rc::default(),
            recorder: None,
            times_target: false,
            oracles: true,
            freed_peak: memory_limit::FreedPeak::default(),
        })
    }

    /// The sampler, for the mutators' [`ParentTrees::sharing`](crate::mutators::ParentTrees::sharing).
    pub fn shared_sampler(&self) -> SharedSampler {
        Rc::clone(&self.sampler)
    }

    /// Where the mutators hand over a mutant they replayed already
    /// ([`ParentTrees::handing_to`](crate::mutators::ParentTrees::handing_to)).
    pub fn replayed_mutant(&self) -> ReplayedMutant {
        self.replayed.clone()
    }

    /// Tells the overhead recorder that this execution's fault was caught here: the process
    /// goes on, and the recorder needs no copy in the state for a restart.
    fn fault_caught(&self) {
        if let Some(recorder) = &self.recorder {
            recorder.borrow_mut().fault_caught();
        }
    }

    pub fn run(&mut self, input: &ChoiceInput) -> ExitKind {
        {
            // Taken out of the shared record while it is rebuilt, not borrowed: the timeout
            // can fire here (a huge mutant), and the fault handler then reads the record.
            let mut taken = std::mem::take(&mut *self.replay.borrow_mut());
            let replay = &mut taken;
            if !self
                .replayed
                .take_for(input.choices.as_slice(), &mut replay.sample)
            {
                // Repairing replay cannot fail; fresh choices are drawn within the bounds.
                let _ = self.sampler.borrow_mut().sample(
                    input.choices.as_slice(),
                    Replay::Repair,
                    &mut self.rng,
                    &mut replay.sample,
                );
            }
            // Shared, not copied: most inputs have none, the others one reference count.
            replay.words = input.words.clone();
            let limit = if self.running_seeds.get() {
                usize::MAX
            } else {
                self.max_len
            };
            let whole = self.renderer.render_words_within(
                &replay.sample.tree,
                &replay.words,
                &mut replay.text,
                limit,
            );
            if !whole {
                replay.validity = ExecutionClass::TooLong;
                *self.replay.borrow_mut() = taken;
                return ExitKind::Ok;
            }
            // The choices as replayed, fresh ones included: the bare loop must run the very
            // same programs, not others drawn from its own random choices.
            if let Some(recorder) = &self.recorder {
                recorder
                    .borrow_mut()
                    .record(replay.sample.choices.as_slice());
            }
            *self.replay.borrow_mut() = taken;
        }
        let replay = self.replay.borrow();
        let target = &mut self.target;
        let oracles = self.oracles;
        if let Some(limit) = self.memory_limit {
            memory_limit::arm(limit);
        }
        let started = self.times_target.then(Instant::now);
        // The oracles run inside the same catch and budget: a printer that panics or loops
        // is the target's fault.
        let result = run_caught(|| {
            let text = replay.text.as_bytes();
            let verdict = target.run(text);
            let violation = if oracles {
                target.check(text, &verdict)
            } else {
                None
            };
            (verdict, violation)
        });
        let target_time = started.map_or(Duration::ZERO, |s| s.elapsed());
        memory_limit::disarm();
        drop(replay);
        self.replay.borrow_mut().target_time = target_time;
        self.freed_peak.after_execution();
        match result {
            Ok((verdict, violation)) => {
                self.replay.borrow_mut().validity = match verdict {
                    Verdict::Valid => ExecutionClass::Valid,
                    Verdict::Invalid(_) => ExecutionClass::Invalid,
                    Verdict::Reject => ExecutionClass::Reject,
                };
                match violation {
                    Some(violation) => {
                        wrong_answer::record(violation);
                        self.fault_caught();
                        ExitKind::Crash
                    }
                    None => ExitKind::Ok,
                }
            }
            Err(_) => {
                // A panic may have left the target half-updated: start from a fresh one.
                self.target = (self.linked.make)();
                self.fault_caught();
                ExitKind::Crash
            }
        }
    }
}
