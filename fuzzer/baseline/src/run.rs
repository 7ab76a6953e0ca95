//! One baseline run: the supervisor that prepares the output directory and launches the
//! fuzzing processes under LibAFL's restarting manager, and the loop each of them runs.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};

use libafl::HasMetadata;
use libafl::HasNamedMetadata;
use libafl::corpus::{Corpus, InMemoryCorpus};
use libafl::events::SimpleRestartingEventManager;
use libafl::executors::hooks::inprocess::HasTimeout;
use libafl::executors::hooks::timer::TimerStruct;
use libafl::executors::inprocess::HasInProcessHooks;
use libafl::executors::{ExitKind, InProcessExecutor};
use libafl::feedback_or;
use libafl::feedbacks::nautilus::{NautilusChunksMetadata, NautilusFeedback};
use libafl::feedbacks::{MapFeedbackMetadata, MaxMapFeedback, StateInitializer};
use libafl::fuzzer::{Fuzzer, StdFuzzer};
use libafl::generators::{NautilusContext, NautilusGenerator};
use libafl::inputs::NautilusInput;
use libafl::monitors::NopMonitor;
use libafl::mutators::{
    HavocScheduledMutator, Mutator, NautilusRandomMutator, NautilusRecursionMutator,
    NautilusSpliceMutator,
};
use libafl::observers::{CanTrack, HitcountsIterableMapObserver};
use libafl::schedulers::QueueScheduler;
use libafl::stages::StdMutationalStage;
use libafl::state::{HasCorpus, HasExecutions, StdState};
use libafl_bolts::rands::StdRand;
use libafl_bolts::shmem::{ShMemProvider, StdShMemProvider};
use libafl_bolts::tuples::tuple_list;
use libafl_bolts::{Error, Named};
use serde::{Deserialize, Serialize};

use bonsai::bounds::Bounds;
use bonsai::diagnostic::{Diagnostic, Diagnostics};
use bonsai::feedback::{SeenFaults, flush_fault_log, prepare_capture, run_caught};
use bonsai::layout::{CRASHES_DIR, FAULTS_JSON, HANGS_DIR, QUEUE_DIR, SUMMARY_JSON};
use bonsai::peer::CoveragePoint;
use bonsai::target::{LinkedTarget, Verdict, require_instrumented};

use crate::faults::{FaultStore, fault_counts};
use crate::timeline::{Timeline, ValidCount, ValidEntries};

/// Nautilus's default tree size in LibAFL's examples is 15 nodes per generated tree; that
/// yields inputs far shorter than Bonsai's at (3,3,3), so the baseline defaults to a size
/// that gives inputs of comparable length (see `benches/generate.rs` for the matching).
pub const DEFAULT_TREE_SIZE: usize = 100;

#[derive(Clone)]
pub struct BaselineConfig {
    pub target: LinkedTarget,
    pub grammar: PathBuf,
    /// Only m applies: each pool offers its first m values.
    pub bounds: Bounds,
    pub out: PathBuf,
    pub seed: u64,
    pub time: Option<Duration>,
    pub execs: Option<u64>,
    pub timeout: Duration,
    pub tree_size: usize,
}

/// What the baseline reports; the corpus is in `OUT/queue/*.txt`, the faults in
/// `OUT/crashes/` and `OUT/hangs/`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct BaselineSummary {
    pub execs: u64,
    pub execs_per_sec: f64,
    pub edges: usize,
    pub corpus: usize,
    /// Share of valid inputs in the corpus, 0..1, as `bonsai fuzz` reports it.
    pub valid_share: f64,
    /// Distinct faults saved: `crashes + hangs`.
    pub faults: usize,
    /// Distinct crashes (panics, signals, out-of-memory) and hangs, by signature.
    pub crashes: usize,
    pub hangs: usize,
    /// Faulting executions, duplicates included.
    pub fault_executions: u64,
    pub out: PathBuf,
}

type State =
    StdState<InMemoryCorpus<NautilusInput>, NautilusInput, StdRand, InMemoryCorpus<NautilusInput>>;

pub fn run(config: BaselineConfig) -> Result<BaselineSummary, Diagnostics> {
    require_instrumented(config.target.name)?;
    let grammar = bonsai::import::load(&config.grammar)?.grammar;
    let rules = bonsai::convert::nautilus_rules(&grammar, config.bounds)?;
    if bonsai::has_entries(&config.out) {
        return Err(Diagnostic::error("the output directory is not empty")
            .in_file(&config.out)
            .into());
    }
    for dir in [QUEUE_DIR, CRASHES_DIR, HANGS_DIR] {
        bonsai::create_dir(&config.out.join(dir))?;
    }
    let summary_path = config.out.join(SUMMARY_JSON);
    // Creates coverage.csv with its header and the line at the origin.
    bonsai::peer::resume_offset(&config.out, None);
    bonsai::peer::quiet_library_backtraces();
    // As in Bonsai's loop: the fuzzing processes forked from here start with the parsed debug
    // information, so describing a fault's stack costs no rereading after each restart.
    bonsai::feedback::warm_symbol_cache();
    let started = Instant::now();
    let context: &'static NautilusContext =
        Box::leak(Box::new(NautilusContext::new(config.tree_size, &rules)));
    let launched = catch_unwind(AssertUnwindSafe(|| {
        let mut shmem = StdShMemProvider::new()?;
        SimpleRestartingEventManager::<NautilusInput, NopMonitor, State, StdShMemProvider>::launch(
            NopMonitor::new(),
            &mut shmem,
            true,
        )
    }));
    match launched {
        Ok(Ok((state, mut manager))) => {
            let code = match fuzz(&config, context, state, &mut manager, started) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("error: baseline stopped: {e}");
                    2
                }
            };
            std::process::exit(code);
        }
        Ok(Err(Error::ShuttingDown)) => {}
        Ok(Err(e)) => return Err(Diagnostic::error(format!("cannot run the baseline: {e}")).into()),
        Err(_) => {
            return Err(
                Diagnostic::error("the baseline process died and could not be restarted").into(),
            );
        }
    }
    let text = std::fs::read_to_string(&summary_path).map_err(|_| {
        Diagnostic::error("the baseline ended without a summary").in_file(&config.out)
    })?;
    serde_json::from_str(&text).map_err(|e| {
        Diagnostic::error(format!("unreadable summary: {e}"))
            .in_file(&summary_path)
            .into()
    })
}

fn fuzz<EM>(
    config: &BaselineConfig,
    context: &'static NautilusContext,
    state: Option<State>,
    manager: &mut EM,
    started: Instant,
) -> Result<(), Error>
where
    EM: libafl::events::EventFirer<NautilusInput, State>
        + libafl::events::EventRestarter<State>
        + libafl::events::EventReceiver<NautilusInput, State>
        + libafl::events::ProgressReporter<State>
        + libafl::events::SendExiting
        + libafl::events::HasEventManagerId
        + libafl::events::AwaitRestartSafe,
{
    // SAFETY: the counter regions are registered before `main` and live for the process.
    let counters = unsafe { libafl_targets::counters_maps_observer("edges") };
    let edges = HitcountsIterableMapObserver::new(counters).track_indices();
    let last_valid = Rc::new(Cell::new(false));
    let mut feedback = feedback_or!(
        MaxMapFeedback::new(&edges),
        NautilusFeedback::new(context),
        ValidEntries::new(Rc::clone(&last_valid))
    );
    let mut objective = FaultStore::new(&config.out, context, started);
    let fresh = state.is_none();
    let mut state = restored_or_new(state, config.seed, &mut feedback, &mut objective)?;
    let edges_name = edges.name().clone();
    let mut fuzzer = StdFuzzer::new(QueueScheduler::new(), feedback, objective);
    let mut harness = harness(config.target, context, Rc::clone(&last_valid));
    let mut executor = InProcessExecutor::builder()
        .harness(&mut harness)
        .observers(tuple_list!(edges))
        .timeout(config.timeout)
        // LibAFL's crash dump (registers, memory maps, a backtrace of its own handler) is
        // built inside the signal handler for every fault, and printed when LibAFL's log is
        // on; the saved fault has the target's frames already.
        .crashdump(false)
        .fuzzer(&mut fuzzer)
        .state(&mut state)
        .event_mgr(manager)
        .build()?;
    // Bonsai's loop checks the clock in batches (a hang is an input that runs between one
    // and two timeouts); the same here, so that "a hang" means the same on both sides.
    *executor.inprocess_hooks_mut().timer_mut() = TimerStruct::batch_mode(config.timeout);
    capture_faults_as_bonsai_does(config.timeout);
    let mut timeline = Timeline::open(&config.out);
    if fresh {
        let mut generator = NautilusGenerator::new(context);
        state.generate_initial_inputs_forced(
            &mut fuzzer,
            &mut executor,
            &mut generator,
            manager,
            8,
        )?;
    }
    let mutator = mutator(context);
    let mut stages = tuple_list!(StdMutationalStage::new(mutator));
    loop {
        if timeline.due() {
            timeline.log(point(&state, &edges_name, started));
        }
        if config.budget_spent(*state.executions(), started) {
            break;
        }
        fuzzer.fuzz_one(&mut stages, &mut executor, &mut state, manager)?;
    }
    drop(executor);
    bonsai::feedback::stack_samples::stop();
    flush_fault_log(&mut state, &config.out.join(FAULTS_JSON));
    let last = point(&state, &edges_name, started);
    timeline.log(last);
    write_queue(config, context, &state)?;
    write_summary(config, &state, last)?;
    manager.send_exiting()?;
    Ok(())
}

impl BaselineConfig {
    /// Whether the run has used its budget: `--execs` executions or `--time`, whichever comes
    /// first.
    fn budget_spent(&self, execs: u64, started: Instant) -> bool {
        self.execs.is_some_and(|max| execs >= max)
            || self.time.is_some_and(|t| started.elapsed() >= t)
    }
}

/// Bonsai's loop's fault capture, installed after the executor (whose handlers it wraps):
/// panics are caught in the harness, their message, location and stack recorded, and the
/// stack sampled for hangs, so that both fuzzers bucket faults alike; and the same guard, so
/// that both survive a timeout inside `malloc`.
fn capture_faults_as_bonsai_does(timeout: Duration) {
    prepare_capture(timeout);
    bonsai::peer::install_signal_guard();
}

/// The state LibAFL saved before a restart, or a new one; either way with the metadata
/// Nautilus's mutators look for.
fn restored_or_new<F, O>(
    state: Option<State>,
    seed: u64,
    feedback: &mut F,
    objective: &mut O,
) -> Result<State, Error>
where
    F: StateInitializer<State>,
    O: StateInitializer<State>,
{
    let mut state = match state {
        Some(state) => state,
        None => StdState::new(
            StdRand::with_seed(seed),
            InMemoryCorpus::new(),
            InMemoryCorpus::new(),
            feedback,
            objective,
        )?,
    };
    if !state.has_metadata::<NautilusChunksMetadata>() {
        state.add_metadata(NautilusChunksMetadata::new("/tmp".into()));
    }
    Ok(state)
}

/// Runs one input on the target, with its oracles as in Bonsai's loop, so that both fuzzers
/// save the same wrong answers; a panic ends with a fresh target instance, as the one that
/// panicked may be left in any state.
fn harness(
    linked: LinkedTarget,
    context: &'static NautilusContext,
    last_valid: Rc<Cell<bool>>,
) -> impl FnMut(&NautilusInput) -> ExitKind {
    let mut target = (linked.make)();
    let mut bytes = Vec::new();
    move |input: &NautilusInput| {
        input.unparse(context, &mut bytes);
        let result = run_caught(|| {
            let verdict = target.run(&bytes);
            let violation = target.check(&bytes, &verdict);
            (verdict, violation)
        });
        match result {
            Ok((verdict, violation)) => {
                last_valid.set(verdict == Verdict::Valid);
                match violation {
                    Some(violation) => {
                        bonsai::feedback::wrong_answer::record(violation);
                        ExitKind::Crash
                    }
                    None => ExitKind::Ok,
                }
            }
            Err(_) => {
                last_valid.set(false);
                target = (linked.make)();
                ExitKind::Crash
            }
        }
    }
}

/// The mutators of LibAFL's Nautilus examples, weighted as there: random subtree, recursion
/// and splice, under a havoc scheduler that stacks up to 4.
fn mutator(context: &'static NautilusContext) -> impl Mutator<NautilusInput, State> {
    HavocScheduledMutator::with_max_stack_pow(
        tuple_list!(
            NautilusRandomMutator::new(context),
            NautilusRandomMutator::new(context),
            NautilusRandomMutator::new(context),
            NautilusRandomMutator::new(context),
            NautilusRecursionMutator::new(context),
            NautilusSpliceMutator::new(context),
            NautilusSpliceMutator::new(context),
            NautilusSpliceMutator::new(context),
        ),
        2,
    )
}

/// The corpus as text, `queue/NNNNNN.txt` in corpus order, for `bonsai replay` to measure.
fn write_queue(
    config: &BaselineConfig,
    context: &'static NautilusContext,
    state: &State,
) -> Result<(), Error> {
    let mut bytes = Vec::new();
    let corpus = state.corpus();
    for (n, id) in corpus.ids().enumerate() {
        let input = corpus.cloned_input_for_id(id)?;
        input.unparse(context, &mut bytes);
        bonsai::write_atomic(
            &config.out.join(QUEUE_DIR).join(format!("{n:06}.txt")),
            &bytes,
        )
        .map_err(|d| Error::illegal_state(d.to_string()))?;
    }
    Ok(())
}

/// `summary.json`, from the run's last point, which the supervisor reads back: the fuzzing
/// process has no other way to tell it.
fn write_summary(config: &BaselineConfig, state: &State, last: CoveragePoint) -> Result<(), Error> {
    let summary = BaselineSummary {
        execs: last.execs,
        execs_per_sec: last.execs as f64 / last.secs.max(1e-9),
        edges: last.edges as usize,
        corpus: last.corpus as usize,
        valid_share: last.valid as f64 / last.corpus.max(1) as f64,
        faults: (last.crashes + last.hangs) as usize,
        crashes: last.crashes as usize,
        hangs: last.hangs as usize,
        fault_executions: state.metadata::<SeenFaults>().map_or(0, |s| s.occurrences),
        out: config.out.clone(),
    };
    bonsai::write_atomic(
        &config.out.join(SUMMARY_JSON),
        serde_json::to_string(&summary)
            .expect("plain data")
            .as_bytes(),
    )
    .map_err(|d| Error::illegal_state(d.to_string()))
}

/// Where the run stands, as a line of `coverage.csv`: the same columns as `bonsai fuzz`'s, the
/// edges being those of the map feedback's history (the run's own count, like Bonsai's).
fn point(state: &State, edges_name: &str, started: Instant) -> CoveragePoint {
    let (crashes, hangs) = fault_counts(state.metadata::<SeenFaults>().ok());
    CoveragePoint {
        secs: started.elapsed().as_secs_f64(),
        execs: *state.executions(),
        edges: state
            .named_metadata::<MapFeedbackMetadata<u8>>(edges_name)
            .map_or(0, |m| m.history_map.iter().filter(|&&v| v != 0).count()) as u64,
        corpus: state.corpus().count() as u64,
        valid: state.metadata::<ValidCount>().map_or(0, |v| v.0),
        crashes,
        hangs,
        kpaths: None,
    }
}
