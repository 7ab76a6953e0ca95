//! The entry point of a fuzzing run, shared by `bonsai fuzz` and the lattice.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::time::Instant;

use libafl::HasMetadata;
use libafl::corpus::Corpus;
use libafl::corpus::HasCurrentCorpusId;
use libafl::events::{
    AwaitRestartSafe, ClientDescription, EventConfig, EventFirer, EventReceiver, EventRestarter,
    HasEventManagerId, ManagerKind, ProgressReporter, SendExiting, ShouldSaveState,
    SimpleRestartingEventManager, setup_restarting_mgr_llmp,
};
use libafl::executors::InProcessExecutor;
use libafl::executors::hooks::inprocess::HasTimeout;
use libafl::executors::hooks::timer::TimerStruct;
use libafl::executors::inprocess::HasInProcessHooks;
use libafl::fuzzer::{Evaluator, Fuzzer, StdFuzzer};
use libafl::monitors::NopMonitor;
use libafl::mutators::SingleChoiceScheduledMutator;
use libafl::schedulers::Scheduler;
use libafl::state::{HasCorpus, HasExecutions, HasRand, StdState};
use libafl_bolts::Error;
use libafl_bolts::core_affinity::CoreId;
use libafl_bolts::rands::{Rand, StdRand};
use libafl_bolts::shmem::ShMemProvider;
use libafl_bolts::tuples::tuple_list;
use serde::{Deserialize, Serialize};

use super::client::ClientRole;
use super::config::FuzzConfig;
use super::coverage_log::{CoverageLog, resume_offset};
use super::executed_events::{Received, SendsExecuted};
use super::fatal::FatalChannel;
use super::harness::Harness;
use super::overhead::{OverheadObserver, Recorder, measure};
use super::shmem::RunShMemProvider;
use super::stage::ChildrenStage;
use super::status::Status;
use super::stop::Stop;
use super::summary::Summary;
use super::trim::{TrimStats, Trimmer};
use crate::choice::ChoiceInput;
use crate::corpus::{
    DiskCorpus, Manifest, OutDir, Repaired, Role, SUMMARY, Seed, Seeds, repair, valid_entries,
};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::dir_lock::DirLock;
use crate::feedback::{CoverageHistory, FaultFeedback, SaveCriteria, SeenFaults, ValidityFeedback};
use crate::grammar::Grammar;
use crate::layout::{CLIENT_PID, FAULTS_JSON, QUEUE_DIR};
use crate::mutators::{
    HavocMutator, LastMutation, Mutation, ParentTrees, RecursionMutator, RegenerateMutator,
    RepetitionEdit, RepetitionMutator, ShrinkMutator, SpliceMutator, Switched,
};
use crate::observer::{EdgeObserver, LastExecution, ReplayObserver};
use crate::schedule::{Energy, MinimizerQueue, Ownership, SchedulerKind, ZestScheduler};
use crate::target::{memory_limit, require_instrumented};

type State = StdState<DiskCorpus, ChoiceInput, StdRand, DiskCorpus>;
type Manager = SimpleRestartingEventManager<ChoiceInput, NopMonitor, State, RunShMemProvider>;

/// What the loop needs of its event manager: LibAFL's simple restarting manager for one core,
/// its LLMP restarting manager for a client of a multi-core run.
trait LoopManager:
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
struct RunProgress {
    seeds_done: usize,
    generated: usize,
    restarts: u64,
}
libafl_bolts::impl_serdeany!(RunProgress);

/// Everything the fuzzing process inherits from the supervisor across `fork`.
struct Prepared {
    config: FuzzConfig,
    grammar: &'static Grammar,
    out: OutDir,
    seeds: Vec<Seed>,
    seeds_skipped: usize,
    seen: SeenFaults,
    started: Instant,
    map_size: usize,
    /// Where `coverage.csv` left off in earlier runs of this output directory.
    coverage_offset: (f64, u64),
    /// Where `coverage.csv` and `summary.json` go: the output directory, or a client's own
    /// directory under it in a multi-core run.
    log_dir: std::path::PathBuf,
}

/// Runs one fuzzing campaign and returns its summary.
///
/// The calling process becomes a supervisor: LibAFL's restarting manager forks the fuzzing
/// process, and forks a fresh one from the saved state whenever the target aborts, overflows
/// its stack or hangs (panics are caught without a restart). The fuzzing process never
/// returns: it writes `OUT/summary.json` and exits, and this function reads the summary back.
/// Everything on disk is written as the run goes, so a killed run loses nothing it saved, and
/// calling `run` again with the same `out` resumes from the saved queue. Once the fuzzing
/// process has ended, the supervisor gives each new fault bucket a reduced reproducer (see
/// `triage`). One run at a time writes into `out`: a second is refused
/// ([`DirLock`]).
pub fn run(mut config: FuzzConfig) -> Result<Summary, Diagnostics> {
    let started = Instant::now();
    let log_dir = log_dir(&config);
    let coverage = log_dir.join(super::COVERAGE_CSV);
    let execs_logged = || super::last_coverage_point(&coverage).map_or(0, |p| p.execs);
    let execs_at_start = execs_logged();
    let mut relaunches = 0;
    // Taken by the first launch once the grammar has been checked, and held until the run
    // (relaunches and crash reduction included) is over.
    let mut lock = None;
    loop {
        let lost = match run_once(&config, &mut lock)? {
            Launched::Finished(mut summary) => {
                // Executions of fuzzing processes that were lost are in the log, not in the
                // last process's count.
                summary.execs = summary
                    .execs
                    .max(execs_logged().saturating_sub(execs_at_start));
                summary.restarts += relaunches;
                if relaunches > 0 {
                    // The file is the fuzzing process's view, which knows nothing of the
                    // launches before it; a campaign reads the file, not this return value.
                    let json = serde_json::to_string(&*summary).expect("plain data serializes");
                    crate::write_atomic(&log_dir.join(SUMMARY), json.as_bytes())?;
                }
                return Ok(*summary);
            }
            Launched::Lost(lost) => lost,
        };
        let remaining_time = config
            .stop
            .time
            .map(|t| t.saturating_sub(started.elapsed()));
        if relaunches >= MAX_RELAUNCHES || remaining_time.is_some_and(|t| t.is_zero()) {
            return Err(Diagnostic::error(format!(
                "the fuzzing process was lost ({lost}) and could not be restarted; \
                 everything saved so far is in the output directory, and running again resumes it"
            ))
            .into());
        }
        relaunches += 1;
        tracing::warn!(
            "the fuzzing process was lost ({lost}); resuming from the saved queue \
             ({relaunches} of at most {MAX_RELAUNCHES} times)"
        );
        config.stop.time = remaining_time;
        config.stop.execs = config.stop.execs.map(|n| {
            n.saturating_sub(execs_logged().saturating_sub(execs_at_start))
                .max(1)
        });
        // The restarting manager finds its channel to the supervisor through this variable; a
        // new launch must create a new one, as the first did.
        // SAFETY: the supervisor is single-threaded; nothing reads the environment meanwhile.
        unsafe { std::env::remove_var(RESTARTER_CHANNEL) };
    }
}

/// The lock of `dir`, waiting up to `patience` for a holder that is about to end.
fn acquire_within(
    dir: &std::path::Path,
    patience: std::time::Duration,
) -> Result<DirLock, Diagnostic> {
    let deadline = Instant::now() + patience;
    loop {
        match DirLock::acquire(dir, "bonsai fuzz") {
            Ok(lock) => return Ok(lock),
            Err(e) if Instant::now() >= deadline => return Err(e),
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(100)),
        }
    }
}

/// Where a run writes `coverage.csv` and `summary.json`.
fn log_dir(config: &FuzzConfig) -> std::path::PathBuf {
    config
        .client
        .map_or_else(|| config.out.clone(), |role| role.dir(&config.out))
}

/// How often a run is resumed in the same invocation after its fuzzing process was lost
/// beyond LibAFL's own restarts (a fault inside a fault handler, the kernel's out-of-memory
/// killer): enough for an overnight run, few enough that a fault that recurs at once ends it.
const MAX_RELAUNCHES: u64 = 10;

/// Where LibAFL's restarting manager (0.16) keeps its channel description.
const RESTARTER_CHANNEL: &str = "_AFL_ENV_FUZZER_SENDER";

/// What one launch of the restarting manager ended with, besides a configuration error.
enum Launched {
    Finished(Box<Summary>),
    /// The fuzzing process died so that LibAFL could not restart it; why, in words.
    Lost(String),
}

fn run_once(config: &FuzzConfig, lock: &mut Option<DirLock>) -> Result<Launched, Diagnostics> {
    let config = config.clone();
    let map_size = require_instrumented(config.target.name)?;
    quiet_library_backtraces();
    let (grammar, analysis, manifest) = checked_manifest(&config)?;
    let log_dir = log_dir(&config);
    if lock.is_none() {
        // Before anything is read or written there: two runs that both found the directory
        // empty would otherwise both write a manifest and number entries from the same start.
        // A client locks its own directory: the coordinator holds the output directory's.
        crate::create_dir(&log_dir)?;
        *lock = Some(match config.client {
            None => DirLock::acquire(&log_dir, "bonsai fuzz")?,
            // A client started again after its supervisor was killed: the fuzzing process
            // of the lost one holds the lock until the parent-death signal has ended it.
            Some(_) => acquire_within(&log_dir, std::time::Duration::from_secs(10))?,
        });
    }
    let mut out = OutDir::prepare(&config.out, &manifest)?;
    match config.client {
        // The coordinator repaired the directory before any client started.
        Some(role) => out.resumed = role.resumed,
        None if out.resumed => report_repairs(&repair(&out.root, grammar, config.bounds)),
        None => {}
    }
    let (mut seeds, seeds_skipped) = load_seeds(&config, grammar, &out)?;
    if let Some(role) = config.client {
        seeds = share_seeds(seeds, role);
    }
    if let Some(criterion) = config.seed_cover {
        seeds.extend(cover_seeds(grammar, &analysis, criterion, config.bounds)?);
        seeds.sort_by_key(|s| s.size);
    }
    let seen = out.seen_faults(&log_dir.join(FAULTS_JSON));
    let summary_path = log_dir.join(SUMMARY);
    let _ = std::fs::remove_file(&summary_path);
    let coverage_offset = resume_offset(
        &log_dir,
        Some(
            config
                .grammar_feedback
                .unwrap_or(crate::feedback::DEFAULT_QUEUE_PATHS_K),
        ),
    );
    // Reading the debug information takes about a second in a debug build, and longer on a
    // loaded machine: taken from the budget, it left a one-second campaign node no time to
    // generate a single input. The budget is the time spent fuzzing.
    crate::feedback::warm_symbol_cache();
    let prepared = Prepared {
        config,
        grammar,
        out,
        seeds,
        seeds_skipped,
        seen,
        started: Instant::now(),
        map_size,
        coverage_offset,
        log_dir,
    };
    let supervisor = std::process::id();
    let fatal =
        FatalChannel::new().map_err(|e| Diagnostic::error(format!("cannot create a pipe: {e}")))?;
    // LibAFL's respawner panics when a fuzzing process is lost; the supervisor says so itself,
    // in one line, without the panic's backtrace.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let client = prepared.config.client;
    let launched = catch_unwind(AssertUnwindSafe(|| -> Result<Option<Launch>, Error> {
        let mut shmem = RunShMemProvider::new()?;
        Ok(Some(match client {
            None => {
                let (state, manager) = Manager::launch(NopMonitor::new(), &mut shmem, true)?;
                Launch::Alone(state, Box::new(manager))
            }
            Some(role) => {
                let description = ClientDescription::new(role.index, 0, CoreId(role.core));
                // Every client runs every input it receives itself: its feedbacks judge by its
                // own history, which another client's observers cannot tell.
                let (state, manager) = setup_restarting_mgr_llmp::<_, _, NopMonitor, _, _>(
                    shmem,
                    EventConfig::AlwaysUnique,
                    None,
                    role.broker_port,
                    ManagerKind::Client {
                        client_description: description,
                    },
                    None,
                    ShouldSaveState::OnRestart,
                    (),
                )?;
                Launch::Client(state, Box::new(manager))
            }
        }))
    }));
    std::panic::set_hook(hook);
    let stopped = |why: Diagnostic| {
        Diagnostics::from(Diagnostic {
            message: format!(
                "{}; fuzzing stopped. Everything saved so far is in {}, and running the same \
                 command again resumes it",
                why.message,
                prepared.out.root.display()
            ),
            ..why
        })
    };
    match launched {
        Ok(Ok(Some(launch))) => {
            // The fuzzing process.
            // A fuzzing process whose supervisor died has nobody to restart it or to read its
            // summary, and would go on writing into the output directory while a resumed run
            // writes there too. The supervisor itself dies with whoever started it when that
            // parent asks for it (`bonsai campaign` does).
            crate::parent_death::die_with(supervisor);
            if client.is_some() {
                let _ = std::fs::write(
                    prepared.log_dir.join(CLIENT_PID),
                    std::process::id().to_string(),
                );
            }
            let result = match launch {
                Launch::Alone(state, manager) => fuzz(&prepared, state, *manager, &fatal),
                Launch::Client(state, manager) => fuzz(&prepared, state, *manager, &fatal),
            };
            std::process::exit(if result.is_ok() { 0 } else { 2 });
        }
        Ok(Ok(None)) => unreachable!("a launch either fuzzes or fails"),
        Ok(Err(Error::ShuttingDown)) => {
            if let Some(why) = fatal.take() {
                return Err(stopped(why));
            }
        }
        Ok(Err(Error::IllegalState(message, _))) if message.contains("crash handler") => {
            return Ok(Launched::Lost("it faulted inside its fault handler".into()));
        }
        Ok(Err(e)) if std::process::id() != supervisor => {
            // The fuzzing process could not start (its saved state did not read back): every
            // restart would fail the same way, so it tells the supervisor why and exits as
            // LibAFL's respawner takes for "stop", instead of being respawned forever.
            let e = Error::illegal_state(format!("cannot run the fuzzer: {e}"));
            if !fatal.send(&e) {
                eprintln!("error: {e}");
            }
            std::process::exit(libafl_bolts::os::CTRL_C_EXIT);
        }
        Ok(Err(e)) => return Err(Diagnostic::error(format!("cannot run the fuzzer: {e}")).into()),
        Err(payload) => {
            if let Some(why) = fatal.take() {
                return Err(stopped(why));
            }
            tracing::debug!(
                "LibAFL's respawner: {}",
                crate::target::panic_message(payload.as_ref())
            );
            return Ok(Launched::Lost(
                "it died without saving its state: killed, or out of memory".into(),
            ));
        }
    }
    let text = std::fs::read_to_string(&summary_path).map_err(|_| {
        Diagnostic::error(
            "the fuzzing process ended without a summary (interrupted, or failed: see above); \
             everything saved so far is in the output directory, and running again resumes it",
        )
        .in_file(&prepared.out.root)
    })?;
    let mut summary: Summary = serde_json::from_str(&text).map_err(|e| {
        Diagnostic::error(format!("unreadable summary: {e}")).in_file(&summary_path)
    })?;
    let config = &prepared.config;
    // A multi-core run's coordinator reduces the faults of all clients once they all ended.
    if config.reduce_crash_tests > 0 && config.client.is_none() {
        let triaged = crate::triage::reduce_run(
            prepared.grammar,
            &prepared.out.root,
            config.target,
            config.timeout,
            config.reduce_crash_tests,
        );
        if triaged.seconds > 0.0 {
            summary.reduce_secs = Some(triaged.seconds);
            let json = serde_json::to_string(&summary).expect("plain data serializes");
            crate::write_atomic(&summary_path, json.as_bytes())?;
        }
    }
    Ok(Launched::Finished(Box::new(summary)))
}

/// The event manager a fuzzing process got from LibAFL, with the state it saved before a
/// restart.
enum Launch {
    Alone(Option<State>, Box<Manager>),
    Client(Option<State>, Box<ClientManager>),
}

type ClientManager = libafl::events::LlmpRestartingEventManager<
    (),
    ChoiceInput,
    State,
    <RunShMemProvider as ShMemProvider>::ShMem,
    RunShMemProvider,
>;

/// A client's share of the seeds: every `count`-th one, so that the clients run the seeds
/// side by side and send each other what they keep. Entries the run's clients wrote
/// (numbered from `queue_below` on) are not seeds: the client receives them over LLMP.
fn share_seeds(seeds: Vec<Seed>, role: ClientRole) -> Vec<Seed> {
    seeds
        .into_iter()
        .filter(|seed| seed.existing.is_none_or(|n| n < role.queue_below))
        .enumerate()
        .filter(|(i, _)| i % role.count == role.index)
        .map(|(_, seed)| seed)
        .collect()
}

/// The run's grammar, checked as fuzzing needs it (warnings logged), its analysis (which the
/// check computed, and cover seeds need), and the manifest of the output directory it fuzzes
/// into.
pub(super) fn checked_manifest(
    config: &FuzzConfig,
) -> Result<(&'static Grammar, crate::analysis::Analysis, Manifest), Diagnostics> {
    let imported = crate::import::load(&config.grammar)?;
    for warning in &imported.warnings {
        tracing::warn!("{warning}");
    }
    let grammar = imported.grammar;
    let analysis = crate::analysis::Analysis::new(&grammar);
    for warning in analysis.check(&grammar)? {
        tracing::warn!("{warning}");
    }
    let grammar: &'static Grammar = Box::leak(Box::new(grammar));
    crate::sampler::Sampler::new(grammar, config.bounds)?;
    let manifest = Manifest {
        target: config.target.name.to_string(),
        grammar: config.grammar.clone(),
        grammar_fingerprint: format!("{:016x}", grammar.fingerprint()),
        bounds: config.bounds.to_string(),
        valid_only: config.criteria == SaveCriteria::ValidOnly,
    };
    Ok((grammar, analysis, manifest))
}

/// Error libraries (anyhow, std's `Backtrace::capture`) record a stack trace for every error
/// value when `RUST_BACKTRACE` is set, which many shells and CI images do; in a compiler
/// rejecting most of its inputs that costs more than the compilation (a fifth of all time on
/// starlark). Unless the user asked for library backtraces explicitly (`RUST_LIB_BACKTRACE`),
/// they are turned off for the run. Panics are unaffected: their stacks come from the fault
/// feedback.
pub fn quiet_library_backtraces() {
    if std::env::var_os("RUST_LIB_BACKTRACE").is_none() {
        // SAFETY: called before the fuzzing process starts any thread.
        unsafe { std::env::set_var("RUST_LIB_BACKTRACE", "0") };
    }
}

/// Says what a resume found half-written and made whole (see `corpus::repair`).
pub(super) fn report_repairs(repaired: &Repaired) {
    if repaired.temporaries > 0 {
        tracing::info!(
            "removed {} temporary files of writes an earlier run did not finish",
            repaired.temporaries
        );
    }
    for path in &repaired.texts {
        tracing::info!("{}: rebuilt from its choices", path.display());
    }
    for path in &repaired.choices {
        tracing::info!("{}: rebuilt by parsing its text", path.display());
    }
    for (path, reason) in &repaired.failed {
        tracing::warn!(
            "{}: an unfinished entry that cannot be completed: {reason}",
            path.display()
        );
    }
}

/// The words of a cover suite as seeds: a start from every production (or context, or
/// k-path) of the grammar at once, each in its shortest word.
fn cover_seeds(
    grammar: &Grammar,
    analysis: &crate::analysis::Analysis,
    criterion: crate::coverage::Criterion,
    bounds: crate::bounds::Bounds,
) -> Result<Vec<Seed>, Diagnostics> {
    let suite = crate::parse::with_large_stack(|| {
        crate::cover::cover(grammar, analysis, criterion, bounds)
    })
    .map_err(|e| Diagnostic::error(e.to_string()))?;
    tracing::info!(
        "seeding from the {criterion} cover suite: {} words, {} of {} requirements covered under the bounds",
        suite.words.len(),
        suite.required - suite.uncovered.len(),
        suite.required
    );
    Ok(suite
        .words
        .into_iter()
        .enumerate()
        .map(|(i, word)| Seed {
            input: ChoiceInput::new(word.choices, word.bounds),
            path: std::path::PathBuf::from(format!("{criterion} cover word {}", i + 1)),
            size: word.text.len(),
            existing: None,
            needs_meta: false,
        })
        .collect())
}

/// The run's own queue (on resume) and then every `--seeds` directory, smallest input first.
fn load_seeds(
    config: &FuzzConfig,
    grammar: &Grammar,
    out: &OutDir,
) -> Result<(Vec<Seed>, usize), Diagnostics> {
    let mut all = Seeds::default();
    if out.resumed {
        let own = Seeds::load(&out.root.join(QUEUE_DIR), grammar, config.bounds, true)?;
        all.seeds.extend(own.seeds);
        all.skipped.extend(own.skipped);
    }
    for dir in &config.seeds {
        let more = Seeds::load(dir, grammar, config.bounds, false)?;
        all.seeds.extend(more.seeds);
        all.skipped.extend(more.skipped);
    }
    for skipped in &all.skipped {
        tracing::warn!(
            "{}: skipped seed: {}",
            skipped.path.display(),
            skipped.reason
        );
    }
    all.seeds.sort_by_key(|s| s.size);
    Ok((all.seeds, all.skipped.len()))
}

/// The fuzzing process: set up (or restore) the LibAFL state and run until a stop condition.
/// When it cannot go on, the supervisor learns why through `fatal`, and LibAFL that this end
/// is not a crash to restart from.
fn fuzz<EM: LoopManager>(
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
    .with_shipping(config.client.is_some());
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
        replay,
        config.target,
        limit,
        config.max_len,
    )
    .map_err(|d| Error::illegal_argument(d.to_string()))?;
    harness.times_target = config.keep_slow;
    harness.oracles = config.oracles;
    // Building the target ran its constructor (starlark registers its whole standard library),
    // whose edges would otherwise count as the first input's coverage: edges no input reaches
    // when it is replayed on its own.
    edges.clear_all();
    // A restarted process resumes the recording its predecessor left in the state.
    harness.recorder = config.measure_overhead.map(|limit| {
        let recorder = state
            .metadata::<Recorder>()
            .cloned()
            .unwrap_or_else(|_| Recorder::new(limit, config.measure_overhead_after));
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

    let trees = ParentTrees::new(prepared.grammar, bounds)
        .map_err(|d| Error::illegal_argument(d.to_string()))?
        .shared();
    let on = config.mutators.as_deref();
    let mutator = SingleChoiceScheduledMutator::new(tuple_list!(
        Switched::new(HavocMutator::default(), on),
        Switched::new(RegenerateMutator::new(Rc::clone(&trees)), on),
        Switched::new(SpliceMutator::new(Rc::clone(&trees)), on),
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
        summary.overhead = measure(&recorder.borrow(), prepared.grammar, bounds, config.target);
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

fn summarize(prepared: &Prepared, state: &State, stop: &str) -> Summary {
    let config = &prepared.config;
    let elapsed = prepared.started.elapsed();
    let execs = *state.executions();
    let history = state.metadata::<CoverageHistory>().ok();
    let corpus = state.corpus();
    let valid = valid_entries(corpus);
    let faults = prepared.out.fault_counts();
    let progress = state.metadata::<RunProgress>().cloned().unwrap_or_default();
    Summary {
        target: config.target.name.to_string(),
        bounds: config.bounds.to_string(),
        valid_only: config.criteria == SaveCriteria::ValidOnly,
        execs,
        execs_per_sec: execs as f64 / elapsed.as_secs_f64().max(1e-9),
        elapsed_secs: elapsed.as_secs_f64(),
        edges: history.map_or(0, |h| h.corpus_edges(config.criteria)),
        edges_valid: history.map_or(0, |h| h.valid_edges),
        map_size: prepared.map_size,
        corpus: corpus.count(),
        valid_share: valid as f64 / corpus.count().max(1) as f64,
        exec_valid_share: history
            .map_or(0.0, |h| h.valid_execs as f64 / h.judged_execs.max(1) as f64),
        favored: state
            .metadata::<Ownership>()
            .map_or(0, Ownership::favored_count),
        crashes: faults.crashes,
        hangs: faults.hangs,
        ooms: faults.ooms,
        wrong_answers: faults.wrong_answers,
        fault_executions: state.metadata::<SeenFaults>().map_or(0, |s| s.occurrences),
        too_long: history.map_or(0, |h| h.too_long),
        slow_kept: state
            .metadata::<crate::feedback::SlowPaths>()
            .map_or(0, |s| s.kept),
        restarts: progress.restarts,
        seeds_loaded: prepared.seeds.len(),
        seeds_skipped: prepared.seeds_skipped,
        stop: stop.to_string(),
        out: prepared.out.root.clone(),
        overhead: None,
        received: config
            .client
            .map(|_| state.metadata::<Received>().map_or(0, |r| r.entries)),
        receive_secs: config
            .client
            .map(|_| state.metadata::<Received>().map_or(0.0, |r| r.seconds)),
        received_unrun: config
            .client
            .map(|_| state.metadata::<Received>().map_or(0, |r| r.skipped)),
        clients: None,
        reduce_secs: None,
        kpaths: Some(
            state
                .metadata::<crate::feedback::QueuePaths>()
                .map_or(0, crate::feedback::QueuePaths::len),
        ),
        trim: (config.trim_tests > 0).then(|| TrimStats {
            timeouts: state
                .metadata::<crate::feedback::SlowTrimCandidates>()
                .map_or(0, |slow| slow.count),
            ..state.metadata::<TrimStats>().cloned().unwrap_or_default()
        }),
    }
}
