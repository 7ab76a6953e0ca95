//! Trimming each new corpus entry right after it is saved, to the smallest input (within a
//! test budget) that still brings what it was saved for.
//!
//! Why in the loop: a fuzzer keeps the first input that reaches an edge, and that input carries
//! whatever its mutation happened to produce around the construct that mattered. Reducing the
//! whole queue after the run (fuzz-then-reduce) makes a corpus small at the price of a long
//! reduction; trimming each entry as it comes costs a bounded number of runs per entry, charged
//! to the run's own time and executions, so a campaign's corpus comes out small with no
//! reduction step, and smaller entries mutate and run faster for the rest of the run (AFL
//! trims every new queue entry for the same reasons).
//!
//! The criterion is the one the fuzz-then-reduce baseline reduces every input by
//! (`reduce::queue_reduction`): the edges the entry brought to the corpus when it was saved, and its
//! validity when it was the first valid input to cover some of them
//! ([`Contribution`]). The reduction is HDD on the entry's choice sequence (`reduce::Hdd`),
//! top level first, so the budget goes to the cuts that remove the most. Each candidate runs
//! in-process like any other execution; a candidate that faults is handed to the fuzzer's
//! objective, so a crash found while trimming is saved like any other.
//!
//! Small programs hang compilers surprisingly often (starlark's type checker loops on
//! `a = (a,)`, which is what minimal derivations of an assignment make), and each hang costs
//! the run a timeout and a restart. Candidates therefore run under a short timeout of their
//! own (a tenth of the run's); one that runs past it counts as not keeping the criterion, is
//! not reported as a hang (it was not shown to run past the user's timeout), and its text is
//! remembered so that no later trim runs it again (`feedback::SlowTrimCandidates`).
//!
//! The two timeouts are two LibAFL timers, the candidates' swapped in for the length of a trim.
//! Both arm and disarm around every execution (a run that trims does not use LibAFL's batch
//! timer, which stays armed across executions): a batch timer swapped out while armed would
//! fire during the trim and cut a candidate short, and one swapped in with stale bookkeeping
//! would not arm at all.

use std::time::{Duration, Instant};

use libafl::HasMetadata;
use libafl::corpus::{Corpus, CorpusId};
use libafl::executors::hooks::inprocess::HasTimeout;
use libafl::executors::hooks::timer::TimerStruct;
use libafl::executors::inprocess::HasInProcessHooks;
use libafl::executors::{ExitKind, HasObservers};
use libafl::feedbacks::MapIndexesMetadata;
use libafl::fuzzer::{Evaluator, ExecutesInput};
use libafl::state::HasCorpus;
use libafl_bolts::Error;
use libafl_bolts::tuples::{Handle, Handled, MatchNameRef};
use serde::{Deserialize, Serialize};

use crate::choice::ChoiceInput;
use crate::corpus::EntryInfo;
use crate::feedback::{Contribution, SlowTrimCandidates};
use crate::grammar::Grammar;
use crate::observer::{EdgeObserver, ExecutionClass, ReplayObserver};
use crate::provenance::{LastMutation, Mutation};
use crate::reduce::{Candidate, Hdd, Judge};
use crate::sampler::{Bounds, Sample};

/// The share of the run's wall time trimming may take. Past it, a new entry's trim is deferred
/// until the loop has fuzzed long enough to make up the difference: early in a run entries
/// come faster than they can be trimmed, and the search must not stall for them, but a node of
/// a lattice saves most of its entries in its first seconds, and they are the ones the nodes
/// above it start from.
pub const MAX_TRIM_SHARE: f64 = 0.5;

/// Runs of the target one entry's trim may take in a campaign's nodes by default: enough for
/// HDD's top levels on a typical entry (a few hundred bytes), about a tenth of a second on
/// starlark. `bonsai fuzz` keeps entries as found unless asked (`--trim-tests`): whether
/// trimming also pays for a single long run's coverage has not been measured yet.
pub const DEFAULT_TRIM_TESTS: u64 = 100;

/// What trimming did in this run. State metadata, so that it survives restarts and reaches the
/// summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrimStats {
    /// Entries whose trim was started.
    pub entries: u64,
    /// Of those, entries replaced by a smaller input.
    pub smaller: u64,
    /// Bytes of the trimmed entries before and after.
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// Runs of the target spent trimming.
    pub tests: u64,
    pub seconds: f64,
    /// New entries kept untrimmed because trimming had used its share of the time and had not
    /// caught up by the end of the run.
    pub skipped: u64,
    /// Entries whose trim had to wait for the share, then or later (trimmed or not).
    #[serde(default)]
    pub deferred: u64,
    /// Candidates that ran past the trim's timeout (each cost a restart).
    #[serde(default)]
    pub timeouts: u64,
}
libafl_bolts::impl_serdeany!(TrimStats);

/// Entries waiting for their trim, oldest first. State metadata, like [`TrimStats`]: a
/// restart keeps the queue (an entry whose [`Contribution`] did not survive is passed over).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct DeferredTrims(std::collections::VecDeque<CorpusId>);
libafl_bolts::impl_serdeany!(DeferredTrims);

/// The timeout of a trim's candidates, given the run's: a tenth, but at least 10 ms.
pub fn trim_timeout(run_timeout: Duration) -> Duration {
    (run_timeout / 10)
        .max(Duration::from_millis(10))
        .min(run_timeout)
}

/// Trims entries of one run: one reducer for the run's grammar and bounds, the observers a
/// candidate's edges and verdict are read from, and the timer the candidates run under.
pub struct Trimmer {
    hdd: Hdd<'static>,
    bounds: Bounds,
    max_tests: u64,
    edges: Handle<EdgeObserver>,
    replay: Handle<ReplayObserver>,
    run_started: Instant,
    timer: TimerStruct,
}

/// What one in-process run of a candidate showed.
enum Ran {
    /// It crashed or hung; the candidate, to hand to the objective.
    Faulted(ChoiceInput),
    /// It ended: the target's verdict and the edges it covered, in index order.
    Finished {
        verdict: ExecutionClass,
        edges: Vec<u32>,
    },
}

/// The loop's parts a candidate runs through, borrowed for the length of one trim.
struct Runs<'a, E, EM, S, Z> {
    fuzzer: &'a mut Z,
    executor: &'a mut E,
    state: &'a mut S,
    manager: &'a mut EM,
}

impl<E, EM, S, Z> Runs<'_, E, EM, S, Z>
where
    E: HasObservers,
    E::Observers: MatchNameRef,
    Z: ExecutesInput<E, EM, ChoiceInput, S>,
{
    /// Runs `candidate` once in-process through the fuzzer's executor and reads what the
    /// observers saw.
    fn execute(
        &mut self,
        candidate: ChoiceInput,
        (edges, replay): &(Handle<EdgeObserver>, Handle<ReplayObserver>),
    ) -> Result<Ran, Error> {
        let ran = self
            .fuzzer
            .execute_input(self.state, self.executor, self.manager, &candidate)?;
        if ran != ExitKind::Ok {
            return Ok(Ran::Faulted(candidate));
        }
        let observers = self.executor.observers();
        let verdict = observers
            .get(replay)
            .ok_or_else(|| Error::key_not_found("replay observer"))?
            .replay()
            .validity;
        let edges = observers
            .get(edges)
            .ok_or_else(|| Error::key_not_found("edge observer"))?
            .edges()
            .collect();
        Ok(Ran::Finished { verdict, edges })
    }
}

impl Trimmer {
    pub fn new(
        grammar: &'static Grammar,
        bounds: Bounds,
        max_tests: u64,
        timeout: Duration,
        edges: &EdgeObserver,
        replay: &ReplayObserver,
        run_started: Instant,
    ) -> Result<Self, crate::diagnostic::Diagnostic> {
        Ok(Self {
            hdd: Hdd::new(grammar, bounds)?,
            bounds,
            max_tests,
            edges: edges.handle(),
            replay: replay.handle(),
            run_started,
            timer: TimerStruct::new(timeout),
        })
    }

    /// Trims the entry `id` if it was saved for new edges and has not been trimmed yet. Its
    /// [`Contribution`] is taken off first, so that an entry whose trim is cut short by a
    /// fault (and the restart after it) is never trimmed again.
    pub fn trim<E, EM, S, Z>(
        &mut self,
        id: CorpusId,
        fuzzer: &mut Z,
        executor: &mut E,
        state: &mut S,
        manager: &mut EM,
    ) -> Result<(), Error>
    where
        E: HasObservers + HasInProcessHooks<ChoiceInput, S>,
        E::Observers: MatchNameRef,
        S: HasCorpus<ChoiceInput> + HasMetadata,
        Z: ExecutesInput<E, EM, ChoiceInput, S> + Evaluator<E, EM, ChoiceInput, S>,
    {
        std::mem::swap(executor.inprocess_hooks_mut().timer_mut(), &mut self.timer);
        let trimmed = self.trim_entry(id, fuzzer, executor, state, manager);
        std::mem::swap(executor.inprocess_hooks_mut().timer_mut(), &mut self.timer);
        let faulted = trimmed?;
        // A candidate that crashed in-process: run once more, under the run's own timeout,
        // through the objective, which saves it if the fault is new.
        if let Some(input) = faulted {
            fuzzer.evaluate_input(state, executor, manager, &input)?;
        }
        Ok(())
    }

    /// Whether trimming has used its share of the run's time so far.
    fn over_share<S: HasMetadata>(&self, state: &mut S) -> bool {
        let seconds = state
            .metadata::<TrimStats>()
            .map_or(0.0, |stats| stats.seconds);
        seconds > MAX_TRIM_SHARE * self.run_started.elapsed().as_secs_f64()
    }

    /// Trims deferred entries, oldest first, as far as the share allows. Called between
    /// parents, so a run that saves nothing new late still catches up on its early entries.
    pub fn trim_deferred<E, EM, S, Z>(
        &mut self,
        fuzzer: &mut Z,
        executor: &mut E,
        state: &mut S,
        manager: &mut EM,
    ) -> Result<(), Error>
    where
        E: HasObservers + HasInProcessHooks<ChoiceInput, S>,
        E::Observers: MatchNameRef,
        S: HasCorpus<ChoiceInput> + HasMetadata,
        Z: ExecutesInput<E, EM, ChoiceInput, S> + Evaluator<E, EM, ChoiceInput, S>,
    {
        while !self.over_share(state) {
            let Some(id) = state
                .metadata_mut::<DeferredTrims>()
                .ok()
                .and_then(|deferred| deferred.0.pop_front())
            else {
                return Ok(());
            };
            let stats = state.metadata_or_insert_with(TrimStats::default);
            stats.skipped = stats.skipped.saturating_sub(1);
            if state.corpus().get(id).is_ok() {
                self.trim(id, fuzzer, executor, state, manager)?;
            }
        }
        Ok(())
    }

    /// The trim itself; returns a candidate that faulted, if one did.
    fn trim_entry<E, EM, S, Z>(
        &mut self,
        id: CorpusId,
        fuzzer: &mut Z,
        executor: &mut E,
        state: &mut S,
        manager: &mut EM,
    ) -> Result<Option<ChoiceInput>, Error>
    where
        E: HasObservers,
        E::Observers: MatchNameRef,
        S: HasCorpus<ChoiceInput> + HasMetadata,
        Z: ExecutesInput<E, EM, ChoiceInput, S>,
    {
        let Some((mut goal, input)) = self.claim(id, state)? else {
            return Ok(None);
        };
        let started = Instant::now();
        *state.metadata_or_insert_with(LastMutation::default) = LastMutation {
            mutation: Mutation::Trim,
            existing: None,
            repair: false,
        };
        let entry = Trimming {
            bounds: input.bounds.unwrap_or(self.bounds),
            input,
        };
        let handles = (self.edges.clone(), self.replay.clone());
        let mut runs = Runs {
            fuzzer,
            executor,
            state,
            manager,
        };
        // The entry once more, as it is: an edge it brought only because of what ran before it
        // in this process (a cache, a hash seed's collisions) cannot be asked of a candidate,
        // so only the edges it brings again are required, as the fuzz-then-reduce baseline
        // requires only what two runs agree on.
        let mut tests = 1;
        let keeps_something = match runs.execute(entry.input.clone(), &handles)? {
            Ran::Faulted(_) => false,
            Ran::Finished { verdict, edges } => {
                goal.edges.retain(|e| edges.binary_search(e).is_ok());
                !goal.edges.is_empty() && (!goal.must_be_valid || verdict == ExecutionClass::Valid)
            }
        };
        let mut faulted = None;
        if keeps_something {
            let shrunk = self.shrink(id, &entry, &goal, &mut runs)?;
            tests += shrunk.tests;
            faulted = shrunk.faulted;
            if let Some(trimmed) = shrunk.trimmed {
                replace_entry(runs.state, id, &entry, trimmed)?;
            }
        }
        let stats = runs.state.metadata_or_insert_with(TrimStats::default);
        stats.entries += 1;
        stats.tests += tests;
        stats.seconds += started.elapsed().as_secs_f64();
        Ok(faulted)
    }

    /// The entry's goal and input, taken off it, if it was saved for new edges and has not
    /// been trimmed yet; when trimming is over its share, the entry waits in the deferred list
    /// instead, its goal left on it.
    fn claim<S>(
        &self,
        id: CorpusId,
        state: &mut S,
    ) -> Result<Option<(Contribution, ChoiceInput)>, Error>
    where
        S: HasCorpus<ChoiceInput> + HasMetadata,
    {
        let wanted = state
            .corpus()
            .get(id)?
            .borrow()
            .has_metadata::<Contribution>();
        if !wanted {
            return Ok(None);
        }
        if self.over_share(state) {
            let stats = state.metadata_or_insert_with(TrimStats::default);
            stats.skipped += 1;
            stats.deferred += 1;
            state
                .metadata_or_insert_with(DeferredTrims::default)
                .0
                .push_back(id);
            return Ok(None);
        }
        let mut testcase = state.corpus().get(id)?.borrow_mut();
        let Some(goal) = testcase.metadata_map_mut().remove::<Contribution>() else {
            return Ok(None);
        };
        let Some(input) = testcase.input().clone() else {
            return Ok(None);
        };
        Ok(Some((*goal, input)))
    }

    /// HDD on the entry's choices, each candidate run in-process and judged by `goal`; the
    /// smallest candidate replaces the entry if [`Self::confirm`] says so.
    fn shrink<E, EM, S, Z>(
        &mut self,
        id: CorpusId,
        entry: &Trimming,
        goal: &Contribution,
        runs: &mut Runs<'_, E, EM, S, Z>,
    ) -> Result<Shrunk, Error>
    where
        E: HasObservers,
        E::Observers: MatchNameRef,
        S: HasCorpus<ChoiceInput> + HasMetadata,
        Z: ExecutesInput<E, EM, ChoiceInput, S>,
    {
        let handles = (self.edges.clone(), self.replay.clone());
        let mut faulted = None;
        let mut failure = None;
        let criterion = |candidate: &Candidate<'_>| {
            let Some(derivation) = candidate.derivation else {
                return false;
            };
            if failure.is_some() {
                return false;
            }
            let slow = runs
                .state
                .metadata::<SlowTrimCandidates>()
                .is_ok_and(|slow| slow.contains(candidate.text));
            if slow {
                return false;
            }
            match runs.execute(entry.candidate(derivation.choices.as_slice()), &handles) {
                Ok(Ran::Finished { verdict, edges }) => goal.holds(verdict, &edges),
                Ok(Ran::Faulted(input)) => {
                    faulted.get_or_insert(input);
                    false
                }
                Err(e) => {
                    failure = Some(e);
                    false
                }
            }
        };
        let mut judge = Judge::new(criterion).with_max_tests(self.max_tests);
        self.hdd.set_words(entry.input.words.clone());
        let reduced = self.hdd.reduce(entry.input.choices.as_slice(), &mut judge);
        let mut tests = judge.tests();
        drop(judge);
        if let Some(e) = failure {
            return Err(e);
        }
        let mut trimmed = None;
        if let Ok(smallest) = reduced {
            let confirmed;
            (trimmed, confirmed) = self.confirm(id, entry, goal, smallest, runs)?;
            tests += confirmed;
        }
        Ok(Shrunk {
            tests,
            faulted,
            trimmed,
        })
    }

    /// The smallest candidate HDD found, if it is smaller than the entry and, run once more for
    /// what the entry's metadata will say about it, still holds the goal; a run that no longer
    /// does leaves the entry as found. Also the tests this took (0 or 1).
    fn confirm<E, EM, S, Z>(
        &self,
        id: CorpusId,
        entry: &Trimming,
        goal: &Contribution,
        (sample, text): (Sample, String),
        runs: &mut Runs<'_, E, EM, S, Z>,
    ) -> Result<(Option<Trimmed>, u64), Error>
    where
        E: HasObservers,
        E::Observers: MatchNameRef,
        S: HasCorpus<ChoiceInput> + HasMetadata,
        Z: ExecutesInput<E, EM, ChoiceInput, S>,
    {
        let before = runs
            .state
            .corpus()
            .get(id)?
            .borrow()
            .metadata::<EntryInfo>()?
            .size();
        if text.len() >= before {
            return Ok((None, 0));
        }
        let handles = (self.edges.clone(), self.replay.clone());
        let Ran::Finished { verdict, edges } =
            runs.execute(entry.candidate(sample.choices.as_slice()), &handles)?
        else {
            return Ok((None, 1));
        };
        if !goal.holds(verdict, &edges) {
            return Ok((None, 1));
        }
        let trimmed = Trimmed {
            sample,
            text,
            before,
            valid: verdict == ExecutionClass::Valid,
            edges,
        };
        Ok((Some(trimmed), 1))
    }
}

/// The entry being trimmed: its input, and the bounds its candidates are sampled under.
struct Trimming {
    input: ChoiceInput,
    bounds: Bounds,
}

impl Trimming {
    /// A candidate in the entry's own words, as every candidate must speak them.
    fn candidate(&self, choices: &[u32]) -> ChoiceInput {
        ChoiceInput::new(choices.to_vec().into(), self.bounds).with_words(self.input.words.clone())
    }
}

/// What HDD did to an entry: the tests it ran, a candidate that faulted (for the objective),
/// and the smaller input that keeps the goal, if it found one.
struct Shrunk {
    tests: u64,
    faulted: Option<ChoiceInput>,
    trimmed: Option<Trimmed>,
}

/// A smaller input that keeps an entry's goal: its choices and text, the entry's size before,
/// and what its last run showed.
struct Trimmed {
    sample: Sample,
    text: String,
    before: usize,
    valid: bool,
    edges: Vec<u32>,
}

/// Puts the trimmed input in the entry's place, under the same corpus id, with metadata that
/// describes the new input (and the size it was trimmed from), and counts it.
fn replace_entry<S>(
    state: &mut S,
    id: CorpusId,
    entry: &Trimming,
    trimmed: Trimmed,
) -> Result<(), Error>
where
    S: HasCorpus<ChoiceInput> + HasMetadata,
{
    let Trimmed {
        sample,
        text,
        before,
        valid,
        edges,
    } = trimmed;
    let mut testcase = state.corpus().get(id)?.borrow().clone();
    *testcase.input_mut() =
        Some(ChoiceInput::new(sample.choices, entry.bounds).with_words(entry.input.words.clone()));
    let info = testcase.metadata_mut::<EntryInfo>()?;
    info.trimmed_from = Some(info.trimmed_from.unwrap_or(before));
    info.set_text(text);
    info.valid = valid;
    info.edges = edges.len() as u32;
    testcase.add_metadata(MapIndexesMetadata::new(
        edges.into_iter().map(|e| e as usize).collect(),
    ));
    let after = testcase.metadata::<EntryInfo>()?.size();
    state.corpus_mut().replace(id, testcase)?;
    let stats = state.metadata_or_insert_with(TrimStats::default);
    stats.smaller += 1;
    stats.bytes_before += before as u64;
    stats.bytes_after += after as u64;
    Ok(())
}
