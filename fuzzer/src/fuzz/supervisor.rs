//! The supervisor of a fuzzing run: LibAFL's restarting manager (simple for one core, LLMP
//! for a client of a multi-core run) forks the fuzzing process and forks it again after a
//! crash or hang; when even that fails, the supervisor resumes the run from its saved queue.
//! It reads the summary back and, once the fuzzing process has ended, reduces the new faults.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use libafl::events::{
    ClientDescription, EventConfig, ManagerKind, ShouldSaveState, SimpleRestartingEventManager,
    setup_restarting_mgr_llmp,
};
use libafl::monitors::NopMonitor;
use libafl_bolts::Error;
use libafl_bolts::core_affinity::CoreId;
use libafl_bolts::shmem::ShMemProvider;

use super::client::ClientRole;
use super::config::FuzzConfig;
use super::coverage_log::resume_offset;
use super::fatal::FatalChannel;
use super::fuzz_loop::{State, fuzz};
use super::prepared::{Prepared, checked_manifest, log_dir, report_repairs};
use super::seeds::{cover_seeds, load_seeds, share_seeds};
use super::shmem::RunShMemProvider;
use super::summary::Summary;
use crate::choice::ChoiceInput;
use crate::corpus::{OutDir, SUMMARY, repair};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::dir_lock::DirLock;
use crate::layout::{CLIENT_PID, FAULTS_JSON};
use crate::target::require_instrumented;

type Manager = SimpleRestartingEventManager<ChoiceInput, NopMonitor, State, RunShMemProvider>;

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
    let prepared = prepare(config, lock)?;
    let supervisor = std::process::id();
    let fatal =
        FatalChannel::new().map_err(|e| Diagnostic::error(format!("cannot create a pipe: {e}")))?;
    let client = prepared.config.client;
    let launched = start_manager(client);
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
            crate::child_process::die_with(supervisor);
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
    read_summary(&prepared)
}

/// What the fuzzing process needs (the directory locked once per run and repaired when
/// resumed, the seeds, the debug information), read and checked in the supervisor before
/// LibAFL forks: every restart inherits it, and a failed check ends the run before any
/// fuzzing process starts.
fn prepare(config: &FuzzConfig, lock: &mut Option<DirLock>) -> Result<Prepared, Diagnostics> {
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
    // LibAFL's build id, which names the build a shipped run comes from (`shipped_run`), is a
    // hash of this whole executable, computed once per process: about 30 ms for a release
    // target of 120 MB, which every fuzzing process paid again after each restart. Computed
    // here, before LibAFL forks, every fuzzing process inherits it.
    let _ = libafl::events::EventConfig::from_build_id();
    Ok(Prepared {
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
    })
}

/// Starts LibAFL's restarting manager: alone, or as a client of the run's broker. It returns
/// in the fuzzing process with the state saved before a restart, and in the supervisor when
/// the fuzzing processes are over; a panic is its way to say that one was lost.
fn start_manager(client: Option<ClientRole>) -> std::thread::Result<Result<Option<Launch>, Error>> {
    // LibAFL's respawner panics when a fuzzing process is lost; the supervisor says so itself,
    // in one line, without the panic's backtrace.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
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
    launched
}

/// The summary the fuzzing process left, with the time its faults' triage took when this
/// run (not a coordinator) reduces them.
fn read_summary(prepared: &Prepared) -> Result<Launched, Diagnostics> {
    let summary_path = &prepared.log_dir.join(SUMMARY);
    let text = std::fs::read_to_string(summary_path).map_err(|_| {
        Diagnostic::error(
            "the fuzzing process ended without a summary (interrupted, or failed: see above); \
             everything saved so far is in the output directory, and running again resumes it",
        )
        .in_file(&prepared.out.root)
    })?;
    let mut summary: Summary = serde_json::from_str(&text)
        .map_err(|e| Diagnostic::error(format!("unreadable summary: {e}")).in_file(summary_path))?;
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
            crate::write_atomic(summary_path, json.as_bytes())?;
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
