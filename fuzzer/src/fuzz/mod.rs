//! The fuzzing loop. Zest-style coverage-guided fuzzing of choice sequences, built
//! from LibAFL components: `harness` runs one input, `stage` runs a parent's children,
//! `fuzz_loop` wires sampler, target, observers, feedbacks, scheduler and the on-disk corpus
//! together into the fuzzing process; `supervisor` runs that process under a restarting
//! manager (LibAFL's restarts, and a relaunch from the saved queue when it is lost) after
//! `prepared` has checked the grammar and readied the output directory, and `seeds` has
//! gathered what the run starts from; `trim` cuts each new entry down to what it was saved
//! for (`triage` gives each fault bucket a reduced reproducer afterwards); `signal_guard`
//! keeps LibAFL's fault handlers off an interrupted allocator; `fatal` carries why a fuzzing
//! process had to stop to its supervisor; `shmem` is LibAFL's shared memory, freed by the
//! kernel with the last process that uses it (a kill included); `config`, `stop`, `summary`
//! (with the end-of-run summary of the loop's state) and `status` are its interface. With
//! `--cores`, `coordinator` runs the LLMP broker and one client process per core, each a run
//! as above in the role `client` describes, whose event manager (`executed_events`) sends each
//! new entry as the choice sequence it ran as; `broker_links` watches the links with other
//! machines' brokers.

mod broker_links;
mod child;
mod client;
mod config;
mod coordinator;
mod coverage_log;
mod executed_events;
mod fatal;
mod fuzz_loop;
mod harness;
mod overhead;
mod prepared;
mod seeds;
mod shmem;
mod signal_guard;
mod stage;
mod status;
mod stop;
mod summary;
mod supervisor;
mod trim;

pub use child::{COMMAND as CHILD_COMMAND, spawn as spawn_child};
pub use client::ClientRole;
pub use config::{DEFAULT_TIMEOUT, FuzzConfig};
pub use coordinator::{DEFAULT_BROKER_PORT, MultiCore, Network};
pub use coverage_log::{
    COVERAGE_CSV, CoveragePoint, last_coverage_point, read_coverage, resume_offset,
};
pub use overhead::Overhead;
pub use signal_guard::install as install_signal_guard;
pub use stop::{DurationError, Saturation, StopCondition, parse_duration};
pub use summary::Summary;
pub use supervisor::quiet_library_backtraces;
pub use trim::{DEFAULT_TRIM_TESTS, TrimStats};

/// Runs one fuzzing campaign and returns its summary: on one core under a supervisor
/// (`supervisor::run`), or, with [`FuzzConfig::multi_core`], as the coordinator of one client
/// per core (`coordinator::run_clients`).
pub fn run(config: FuzzConfig) -> Result<Summary, crate::diagnostic::Diagnostics> {
    crate::target::set_target_stack(config.stack)?;
    match config.multi_core.clone() {
        Some(multi_core) => coordinator::run_clients(config, &multi_core),
        None => supervisor::run(config),
    }
}
