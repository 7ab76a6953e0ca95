//! The fuzzing process's loop, assembled from LibAFL's parts and ours: observers, feedbacks,
//! the state (fresh, or restored after a restart), scheduler, mutators, stages and executor;
//! seeds and fresh inputs first, then fuzzing until a stop condition, then the summary.

use std::cell::RefCell;
use std::rc::Rc;

use libafl::HasMetadata;
use libafl::corpus::Corpus;
use libafl::corpus::HasCurrentCorpusId;
use libafl::events::{
    AwaitRestartSafe, EventFirer, EventReceiver, EventRestarter, HasEventManagerId,
    ProgressReporter, SendExiting,
};
use libafl::executors::InProcessExecutor;
use libafl::executors::hooks::inprocess::HasTimeout;
use libafl::executors::hooks::timer::TimerStruct;
use libafl::executors::inprocess::HasInProcessHooks;
use libafl::fuzzer::{Evaluator, Fuzzer, StdFuzzer};
use libafl::mutators::SingleChoiceScheduledMutator;
use libafl::schedulers::Scheduler;
use libafl::state::{HasCorpus, HasRand, StdState};
use libafl_bolts::Error;
use libafl_bolts::rands::{Rand, StdRand};
use libafl_bolts::tuples::tuple_list;
use serde::{Deserialize, Serialize};

use super::coverage_log::CoverageLog;
use super::executed_events::SendsExecuted;
use super::fatal::FatalChannel;
use super::harness::Harness;
use super::overhead::{OverheadObserver, Recorder, measure};
use super::prepared::Prepared;
use super::stage::ChildrenStage;
use super::status::Status;
use super::stop::Stop;
use super::summary::summarize;
use super::trim::Trimmer;
use crate::choice::ChoiceInput;
use crate::corpus::{DiskCorpus, Role, SUMMARY};
use crate::feedback::{FaultFeedback, ValidityFeedback};
use crate::layout::FAULTS_JSON;
use crate::mutators::{
    HavocMutator, LastMutation, Mutation, ParentTrees, RecursionMutator, RegenerateMutator,
    RepetitionEdit, RepetitionMutator, ShrinkMutator, SpliceMutator, Switched,
};
use crate::observer::{EdgeObserver, LastExecution, ReplayObserver};
use crate::schedule::{Energy, MinimizerQueue, Ownership, SchedulerKind, ZestScheduler};
use crate::target::memory_limit;

pub(super) type State = StdState<DiskCorpus, ChoiceInput, StdRand, DiskCorpus>;

/// What the loop needs of its event manager: LibAFL's simple restarting manager for one core,
/// its LLMP restarting manager for a client of a multi-core run.
pub(super) trait LoopManager:
    EventFirer<ChoiceInput, State>
    + EventRestarter<State>
    + EventReceiver<ChoiceInput, State>
    + ProgressReporter<State>
    + SendExiting
    + AwaitRestartSafe
    + HasEventManagerId
{
}

impl<T> LoopManager for T where
    T: EventFirer<ChoiceInput, State>
        + EventRestarter<State>
        + EventReceiver<ChoiceInput, State>
        + ProgressReporter<State>
        + SendExiting
        + AwaitRestartSafe
        + HasEventManagerId
{
}

/// Progress that must survive LibAFL's restarts: how far seeding got, how often the process
/// was restarted.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct RunProgress {
    pub(super) seeds_done: usize,
    pub(super) generated: usize,
    pub(super) restarts: u64,
}
libafl_bolts::impl_serdeany!(RunProgress);

/// The fuzzing process: set up (or restore) the LibAFL state and run until a stop condition.
/// When it cannot go on, the supervisor learns why through `fatal`, and LibAFL that this end
/// is not a crash to restart from.
pub(super) fn fuzz<EM: LoopManager>(
    prepared: &Prepared,
    state: Option<State>,
    mut manager: EM,
    fatal: &FatalChannel,
) -> Result<(), Error> {
    let result = fuzz_in(prepared, state, &mut manager);
    if let Err(e) = &result {
        if !fatal.send(e) {
            eprintln!("error: fuzzing stopped: {e}");
        }
        let _ = manager.send_exiting();
    }
    result
}

fn fuzz_in<EM: LoopManager>(
    prepared: &Prepared,
    state: Option<State>,
    manager: &mut EM,
) -> Result<(), Error> {
    let config = &prepared.config;
    let replay = Rc::new(RefCell::new(LastExecution::default()));
    let replay_observer = ReplayObserver::new(Rc::clone(&replay));
    let edges = EdgeObserver::from_registered_counters();
    let mut feedback = ValidityFeedback::new(
        config.criteria,
        config.grain,
        &edges,
        &replay_observer,
        config.bounds,
        prepared.started,
    )
    .with_grammar_paths(config.grammar_feedback)
    // The ceiling: a quarter of the timeout. Slower inputs are nearly hangs, and each of
    // their mutants would cost as much.
    .with_slow_paths(config.keep_slow.then_some(config.timeout / 4))
    .with_shipping(config.client.is_some() && config.share_coverage);
    let mut manager = SendsExecuted::new(
        manager,
        Rc::clone(&replay),
        config.bounds,
        feedback.import_rule(),
    );
    let manager = &mut manager;
    let mut objective = FaultFeedback::new(
        &replay_observer,
        &edges,
        config.bounds,
        prepared.started,
        prepared.log_dir.join(FAULTS_JSON),
    );
    let fingerprint = prepared.grammar.fingerprint();
    let mut state = match state {
        Some(mut state) => {
            state.metadata_or_insert_with(RunProgress::default).restarts += 1;
            // The restart came from a child of the current parent that crashed or hung. Such
            // parents tend to produce more of the same (a hang costs a timeout plus a
            // restart each time), so the rest of its turn is given up.
            state.clear_corpus_id()?;
            state
        }
        None => {
            let mut state = StdState::new(
                StdRand::with_seed(config.seed),
                shared_if(
                    DiskCorpus::new(&prepared.out.root, Role::Queue, fingerprint),
                    config.client.is_some(),
                ),
                shared_if(
                    DiskCorpus::new(&prepared.out.root, Role::Faults, fingerprint),
                    config.client.is_some(),
                ),
                &mut feedback,
                &mut objective,
            )?;
            state.add_metadata(prepared.seen.clone());
            state.add_metadata(RunProgress::default());
            state.add_metadata(Ownership::new(edges.size()));
            state
        }
    };
    let parts = LoopParts {
        feedback,
        objective,
        replay,
        replay_observer,
        edges,
    };
    match config.scheduler {
        SchedulerKind::Zest => {
            let scheduler = ZestScheduler::new(parts.edges.size(), config.children)
                .with_newest_first(config.newest_first);
            fuzz_with(prepared, &mut state, manager, scheduler, parts)
        }
        SchedulerKind::Minimizer => {
            let scheduler = MinimizerQueue::new(&parts.edges);
            fuzz_with(prepared, &mut state, manager, scheduler, parts)
        }
    }
}

fn shared_if(corpus: DiskCorpus, shared: bool) -> DiskCorpus {
    if shared { corpus.shared() } else { corpus }
}

/// What the loop is built from besides its scheduler: the feedbacks that built the state, and
/// the observers they read, which the executor takes over.
struct LoopParts {
    feedback: ValidityFeedback,
    objective: FaultFeedback,
    replay: Rc<RefCell<LastExecution>>,
    replay_observer: ReplayObserver,
    edges: EdgeObserver,
}

fn fuzz_with<CS, EM>(
    prepared: &Prepared,
    state: &mut State,
    manager: &mut EM,
    scheduler: CS,
    parts: LoopParts,
) -> Result<(), Error>
where
    CS: Scheduler<ChoiceInput, State> + Energy<State>,
    EM: LoopManager,
{
    let LoopParts {
        feedback,
        objective,
        replay,
        replay_observer,
        mut edges,
    } = parts;
    let config = &prepared.config;
    let bounds = config.bounds;
    let mut fuzzer = StdFuzzer::new(scheduler, feedback, objective);
    let harness_seed = state.rand_mut().next();
    let limit = config.memory_limit.filter(|_| memory_limit::installed());
    let mut harness = Harness::new(
        prepared.grammar,
        bounds,
        harness_seed,
        Rc::clone(&replay),
        config.target,
        limit,
        config.max_len,
    )
    .map_err(|d| Error::illegal_argument(d.to_string()))?;
    let shared_sampler = harness.shared_sampler();
    let replayed_mutant = harness.replayed_mutant();
    harness.times_target = config.keep_slow;
    harness.oracles = config.oracles;
    // Building the target ran its constructor (starlark registers its whole standard library),
    // whose edges would otherwise count as the first input's coverage: edges no input reaches
    // when it is replayed on its own.
    edges.clear_all();
    // A restarted process resumes the recording its predecessor left in the state.
    harness.recorder = config.measure_overhead.map(|limit| {
        let mut recorder = state
            .metadata::<Recorder>()
            .cloned()
            .unwrap_or_else(|_| Recorder::new(limit, config.measure_overhead_after));
        recorder.prepare();
        Rc::new(RefCell::new(recorder))
    });
    let overhead_observer = OverheadObserver::new(harness.recorder.clone());
    let trimmer = if config.trim_tests > 0 {
        Some(
            Trimmer::new(
                prepared.grammar,
                bounds,
                config.trim_tests,
                super::trim::trim_timeout(config.timeout),
                &edges,
                &replay_observer,
                prepared.started,
            )
            .map_err(|d| Error::illegal_argument(d.to_string()))?,
        )
    } else {
        None
    };
    let running_seeds = Rc::clone(&harness.running_seeds);
    let mut run_one = |input: &ChoiceInput| harness.run(input);
    let mut executor = InProcessExecutor::builder()
        .harness(&mut run_one)
        .observers(tuple_list!(replay_observer, edges, overhead_observer))
        .timeout(config.timeout)
        // LibAFL's crash dump (registers, memory maps, a backtrace of its own handler) is
        // built inside the signal handler for every fault, and printed when LibAFL's log is
        // on; the saved fault has the target's frames already.
        .crashdump(false)
        .fuzzer(&mut fuzzer)
        .state(state)
        .event_mgr(manager)
        .build()?;
    // Checking the clock in the target's hot loop instead of re-arming a timer per execution:
    // the timeout fires between t and 2t, and two system calls per execution are saved. Not
    // when the run trims: see `trim` for why its timers arm per execution.
    if config.trim_tests == 0 {
        *executor.inprocess_hooks_mut().timer_mut() = TimerStruct::batch_mode(config.timeout);
    }
    // After the executor: building it installed the panic hook and the handlers these wrap.
    crate::feedback::prepare_capture(config.timeout);
    super::signal_guard::install();

    let trees = ParentTrees::sharing(prepared.grammar, bounds, shared_sampler)
        .handing_to(replayed_mutant)
        .shared();
    let on = config.mutators.as_deref();
    let mutator = SingleChoiceScheduledMutator::new(tuple_list!(
        Switched::new(HavocMutator::default(), on),
        Switched::new(RegenerateMutator::new(Rc::clone(&trees)), on),
        Switched::new(
            SpliceMutator::new(Rc::clone(&trees)).with_last_execution(Rc::clone(&replay)),
            on
        ),
        Switched::new(
            RepetitionMutator::new(Rc::clone(&trees), RepetitionEdit::Delete),
            on
        ),
        Switched::new(
            RepetitionMutator::new(Rc::clone(&trees), RepetitionEdit::Duplicate),
            on
        ),
        Switched::new(ShrinkMutator::new(Rc::clone(&trees)), on),
        Switched::new(RecursionMutator::new(Rc::clone(&trees), config.max_len), on),
    ));
    let stop = Stop::new(config.stop, prepared.started);
    let status = Status::new(config.show_status, prepared.started);
    let timeline = CoverageLog::open(
        &prepared.log_dir,
        config.criteria,
        prepared.started,
        prepared.coverage_offset,
    );
    let mut stages = tuple_list!(ChildrenStage::new(mutator, stop, status, timeline, trimmer));

    // Seeds first (resuming where a restart interrupted them), then fresh inputs.
    loop {
        let progress = state.metadata_or_insert_with(RunProgress::default).clone();
        let seeds_done = progress.seeds_done;
        if seeds_done < prepared.seeds.len() {
            let seed = &prepared.seeds[seeds_done];
            state
                .metadata_or_insert_with(RunProgress::default)
                .seeds_done += 1;
            *state.metadata_or_insert_with(LastMutation::default) = LastMutation {
                mutation: Mutation::Seed,
                existing: seed.existing,
                repair: seed.needs_meta,
            };
            running_seeds.set(true);
            let result = fuzzer.evaluate_input(state, &mut executor, manager, &seed.input);
            running_seeds.set(false);
            result?;
            continue;
        }
        let want = if prepared.seeds.is_empty() {
            config.initial_inputs
        } else {
            0
        };
        if progress.generated >= want || stages.0.stop.reached(state).is_some() {
            break;
        }
        state
            .metadata_or_insert_with(RunProgress::default)
            .generated += 1;
        let added = generate_one(&mut fuzzer, state, &mut executor, manager)?;
        if let (Some(id), Some(trimmer)) = (added, stages.0.trimmer.as_mut()) {
            trimmer.trim(id, &mut fuzzer, &mut executor, state, manager)?;
        }
        stages.0.status.tick(state);
        stages.0.timeline.tick(state);
    }

    let reason = loop {
        if let Some(reason) = stages.0.stop.reached(state) {
            break reason;
        }
        if state.corpus().count() == 0 {
            // Nothing kept yet (every input rejected, or none valid under --valid-only):
            // keep generating, as Zest does.
            let added = generate_one(&mut fuzzer, state, &mut executor, manager)?;
            if let (Some(id), Some(trimmer)) = (added, stages.0.trimmer.as_mut()) {
                trimmer.trim(id, &mut fuzzer, &mut executor, state, manager)?;
            }
            stages.0.status.tick(state);
            stages.0.timeline.tick(state);
            continue;
        }
        fuzzer.fuzz_one(&mut stages, &mut executor, state, manager)?;
    };
    stages.0.status.finish();
    crate::feedback::stack_samples::stop();
    crate::feedback::flush_fault_log(state, &prepared.log_dir.join(FAULTS_JSON));
    let mut summary = summarize(prepared, state, &reason.to_string());
    stages.0.timeline.finish(&summary);
    drop(executor);
    if let Some(recorder) = &harness.recorder {
        summary.overhead = measure(
            &recorder.borrow(),
            prepared.grammar,
            bounds,
            config.target,
            config.oracles,
        );
    }
    let json = serde_json::to_string(&summary).expect("plain data serializes");
    crate::write_atomic(&prepared.log_dir.join(SUMMARY), json.as_bytes())
        .map_err(|d| Error::os_error(std::io::Error::other(d), "writing the summary"))?;
    // Tells the supervisor that this exit is the end of the run, not a crash to restart from.
    manager.send_exiting()?;
    Ok(())
}

/// An empty choice sequence is a fresh sample: the harness draws every decision, so a
/// generated input is sampled once, not once to generate and again to execute. Returns the
/// entry it became, if it was kept.
fn generate_one<E, EM, Z>(
    fuzzer: &mut Z,
    state: &mut State,
    executor: &mut E,
    manager: &mut EM,
) -> Result<Option<libafl::corpus::CorpusId>, Error>
where
    Z: Evaluator<E, EM, ChoiceInput, State>,
{
    *state.metadata_or_insert_with(LastMutation::default) = LastMutation {
        mutation: Mutation::Generate,
        existing: None,
        repair: false,
    };
    let (_, added) = fuzzer.evaluate_input(state, executor, manager, &ChoiceInput::default())?;
    Ok(added)
}
