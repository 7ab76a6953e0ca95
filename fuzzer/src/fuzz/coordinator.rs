//! `bonsai fuzz --cores`: one fuzzing client per core, sharing what they find over LibAFL's
//! LLMP, with one output directory, one status line, one `coverage.csv` and one summary.
//!
//! The coordinator owns the output directory (its lock, its repair on resume), runs the LLMP
//! broker, and starts each client as a process of its own on the run's configuration in the
//! client's role ([`ClientRole::config`], handed over as a file: `fuzz::child`). A client is
//! a complete single-core run (supervisor, restarting fuzzing process, seeds, trimming) whose
//! event manager is LibAFL's LLMP restarting manager instead of the simple one: its new queue
//! entries reach every other client through the broker, and the broker reaches other
//! machines' brokers over TCP (`--connect`). LibAFL's `Launcher` is not used: in 0.16 it drops
//! the remote broker address it is given, and it does not start a client again whose process
//! was killed; the coordinator does both. It also says when a link with another machine's
//! broker is made or lost (`broker_links`), which LLMP does not.

use std::fs::OpenOptions;
use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use libafl::events::StdLlmpEventHook;
use libafl::monitors::NopMonitor;
use libafl_bolts::llmp::LlmpBroker;
use libafl_bolts::shmem::ShMemProvider;
use libafl_bolts::tuples::tuple_list;
use serde::{Deserialize, Serialize};

use super::broker_links::{BrokerLinks, LinkChanges};
use super::client::ClientRole;
use super::config::FuzzConfig;
use super::coverage_log::{CoveragePoint, last_coverage_point, resume_offset};
use super::shmem::RunShMemProvider;
use super::summary::Summary;
use crate::choice::ChoiceInput;
use crate::corpus::{EntryDir, OutDir, SUMMARY, repair};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::dir_lock::DirLock;
use crate::feedback::SaveCriteria;
use crate::layout::{CLIENT_LOG, CLIENTS_DIR, COVERAGE_CSV, FUZZ_CONFIG_JSON, QUEUE_DIR};

/// The port LibAFL's own examples use for their broker.
pub const DEFAULT_BROKER_PORT: u16 = 1337;

/// How the run's broker meets the others: its port, and the broker of another machine's run
/// it connects to (`--connect HOST:PORT`), if any.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Network {
    pub broker_port: u16,
    pub connect: Option<String>,
}

/// A run over several cores (`--cores`): the cores its clients run on, one client each, and
/// its broker's network.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MultiCore {
    pub cores: Vec<usize>,
    pub network: Network,
}

type Broker = LlmpBroker<
    (StdLlmpEventHook<ChoiceInput, NopMonitor>, ()),
    <RunShMemProvider as ShMemProvider>::ShMem,
    RunShMemProvider,
>;

/// How often a client whose process was lost (killed, out of memory) is started again.
const MAX_CLIENT_RESTARTS: u32 = 10;

/// A client process and what the coordinator knows of it.
struct ClientProcess {
    role: ClientRole,
    child: Option<Child>,
    restarts: u32,
    /// Executions in the client's `coverage.csv` before this run, so that the run's figures
    /// count only its own.
    execs_before: u64,
    /// The last line of its `coverage.csv`.
    last: Option<CoveragePoint>,
    /// Why it ended, if it failed (its exit code 2: a message in its log).
    failed: Option<String>,
}

/// Runs one fuzzing client per core of `multi_core` until every client stops, and returns the
/// summary of the whole run.
pub(super) fn run_clients(
    config: FuzzConfig,
    multi_core: &MultiCore,
) -> Result<Summary, Diagnostics> {
    let network = &multi_core.network;
    let started = Instant::now();
    let map_size = crate::target::require_instrumented(config.target.name)?;
    let (grammar, _, manifest) = super::prepared::checked_manifest(&config)?;
    crate::create_dir(&config.out)?;
    let _lock = DirLock::acquire(&config.out, "bonsai fuzz")?;
    let out = OutDir::prepare(&config.out, &manifest)?;
    if out.resumed {
        await_clients_of_an_earlier_run(&config.out);
        let repaired = repair(&out.root, grammar, config.bounds);
        super::prepared::report_repairs(&repaired);
    }
    let queue_below = EntryDir::new(out.root.join(QUEUE_DIR)).next_free_number();
    let kpaths = config
        .grammar_feedback
        .unwrap_or(crate::feedback::DEFAULT_QUEUE_PATHS_K);
    let offset = resume_offset(&out.root, Some(kpaths));

    let mut broker = start_broker(network)?;
    let mut links = BrokerLinks::known_now();
    let mut clients = start_clients(&config, multi_core, &out, queue_below)?;

    let mut status = CoordinatorStatus::new(config.show_status, started, clients.len());
    let mut coverage = OpenOptions::new()
        .append(true)
        .open(out.root.join(COVERAGE_CSV))
        .ok();
    let mut next_tick = Instant::now();
    loop {
        if let Err(e) = broker.broker_once() {
            tracing::warn!("the LLMP broker: {e}");
        }
        if Instant::now() >= next_tick {
            next_tick = Instant::now() + Duration::from_secs(1);
            supervise(&mut clients, &config, &out.root, started);
            read_last_points(&mut clients, &out.root);
            let point = aggregate(&clients, offset, started);
            append_point(&mut coverage, &point);
            status.show(&point);
            report_link_changes(links.look(), network.broker_port);
            if clients.iter().all(|c| c.child.is_none()) {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    status.finish();
    drop(broker);

    stop_if_a_client_failed(&clients, &out.root)?;
    let triaged = (config.reduce_crash_tests > 0).then(|| {
        crate::triage::reduce_run(
            grammar,
            &out.root,
            config.target,
            config.timeout,
            config.reduce_crash_tests,
        )
    });
    let mut summary = summarize(&config, &clients, &out.root, started, map_size)?;
    summary.reduce_secs = triaged.map(|t| t.seconds).filter(|&s| s > 0.0);
    let json = serde_json::to_string(&summary).expect("plain data serializes");
    crate::write_atomic(&out.root.join(SUMMARY), json.as_bytes())?;
    if coverage.is_some() {
        let mut point = aggregate(&clients, offset, started);
        point.edges = summary.edges as u64;
        point.corpus = summary.corpus as u64;
        append_point(&mut coverage, &point);
    }
    Ok(summary)
}

/// One client process per core, each on the run's configuration in its own role, logging in
/// its own directory.
fn start_clients(
    config: &FuzzConfig,
    multi_core: &MultiCore,
    out: &OutDir,
    queue_below: u32,
) -> Result<Vec<ClientProcess>, Diagnostics> {
    let MultiCore { cores, network } = multi_core;
    let mut clients = Vec::new();
    for (index, &core) in cores.iter().enumerate() {
        let role = ClientRole {
            index,
            count: cores.len(),
            core,
            broker_port: network.broker_port,
            resumed: out.resumed,
            queue_below,
        };
        let dir = role.dir(&out.root);
        crate::create_dir(&dir)?;
        let execs_before = last_point(&dir).map_or(0, |p| p.execs);
        let child = spawn(&role.config(config, config.stop.time), &dir)?;
        clients.push(ClientProcess {
            role,
            child: Some(child),
            restarts: 0,
            execs_before,
            last: None,
            failed: None,
        });
    }
    tracing::info!(
        "{} clients on cores {:?}, broker on port {}{}",
        clients.len(),
        cores,
        network.broker_port,
        network
            .connect
            .as_ref()
            .map(|c| format!(", connected to {c}"))
            .unwrap_or_default()
    );
    Ok(clients)
}

/// Each client's latest line of its own `coverage.csv`; a client that has written none yet
/// keeps the line read before.
fn read_last_points(clients: &mut [ClientProcess], out: &Path) {
    for client in clients {
        if let Some(point) = last_point(&client.role.dir(out)) {
            client.last = Some(point);
        }
    }
}

/// Appends a line to the run's `coverage.csv`; after a failed write the log is given up, and
/// fuzzing goes on without it.
fn append_point(coverage: &mut Option<std::fs::File>, point: &CoveragePoint) {
    if let Some(file) = coverage
        && file.write_all(point.to_line().as_bytes()).is_err()
    {
        *coverage = None;
    }
}

/// The run stops as a whole when a client failed for good (exit 2), saying where what was
/// saved is and that running again resumes it.
fn stop_if_a_client_failed(clients: &[ClientProcess], out: &Path) -> Result<(), Diagnostics> {
    match clients.iter().find_map(|c| c.failed.clone()) {
        Some(failed) => Err(Diagnostic::error(format!(
            "{failed}; fuzzing stopped. Everything saved so far is in {}, and running the same \
             command again resumes it",
            out.display()
        ))
        .into()),
        None => Ok(()),
    }
}

/// The broker every client of this machine connects to; with `--connect`, also a link to
/// another machine's broker, which forwards what each side's clients find to the other's.
fn start_broker(network: &Network) -> Result<Broker, Diagnostics> {
    let fail = |what: String| Diagnostics::from(Diagnostic::error(what));
    let shmem = RunShMemProvider::new()
        .map_err(|e| fail(format!("cannot create shared memory for LLMP: {e}")))?;
    let hook = StdLlmpEventHook::<ChoiceInput, NopMonitor>::new(NopMonitor::new())
        .map_err(|e| fail(format!("cannot create the LLMP broker: {e}")))?;
    let mut broker = LlmpBroker::new(shmem, tuple_list!(hook))
        .map_err(|e| fail(format!("cannot create the LLMP broker: {e}")))?;
    // The link to the other machine first, the listener for this machine's clients after: the
    // listener numbers clients from where the broker's count stands when it starts, and the
    // link, numbered later, would share its number with the first client; each would then
    // drop the other's messages as its own (LLMP 0.16 leaves broker ids to the caller).
    if let Some(remote) = &network.connect {
        let address = resolve(remote)?;
        broker
            .inner_mut()
            .connect_b2b(address)
            .map_err(|e| fail(format!("cannot connect to the broker at {remote}: {e}")))?;
    }
    broker
        .inner_mut()
        .launch_tcp_listener_on(network.broker_port)
        .map_err(|e| {
            fail(format!(
                "cannot listen on port {} for the clients: {e} (another run's broker? choose \
                 another with --broker-port)",
                network.broker_port
            ))
        })?;
    Ok(broker)
}

/// Says when another machine's run links with this one, and when a link is lost: the run
/// goes on alone either way, but the user should know it stopped sharing.
fn report_link_changes(changes: LinkChanges, port: u16) {
    for peer in changes.linked {
        tracing::info!("linked with the broker of another run at {peer}");
    }
    for peer in changes.lost {
        tracing::warn!(
            "the link with the broker at {peer} is gone (its run ended or was killed); this \
             run goes on alone with everything it has. To link the two again, start that run \
             again with --connect <this machine>:{port}"
        );
    }
}

fn resolve(remote: &str) -> Result<SocketAddr, Diagnostics> {
    remote
        .to_socket_addrs()
        .ok()
        .and_then(|mut addresses| addresses.next())
        .ok_or_else(|| {
            Diagnostic::error(format!(
                "--connect {remote}: expected HOST:PORT of another run's broker"
            ))
            .into()
        })
}

/// Starts a client on `config`: this very executable, with its configuration, log and
/// standard error in its directory `dir` (`clients/<k>/`), dying when the coordinator does (so
/// that a killed run leaves nobody writing into the directory it is resumed in).
fn spawn(config: &FuzzConfig, dir: &Path) -> Result<Child, Diagnostics> {
    let exe = std::env::current_exe()
        .map_err(|e| Diagnostic::error(format!("cannot find this executable: {e}")))?;
    let config_file = dir.join(FUZZ_CONFIG_JSON);
    let log = dir.join(CLIENT_LOG);
    Ok(super::child::spawn(
        &exe,
        config,
        &config_file,
        &log,
        "a fuzzing client",
    )?)
}

/// Reaps clients that ended. One that stopped as asked is done; one that failed with a
/// message (exit code 2) ends the run with it; one that was lost (a signal, the
/// out-of-memory killer) is started again from the shared queue while time is left.
fn supervise(clients: &mut [ClientProcess], config: &FuzzConfig, out: &Path, started: Instant) {
    for client in clients.iter_mut() {
        let Some(child) = &mut client.child else {
            continue;
        };
        let Ok(Some(status)) = child.try_wait() else {
            continue;
        };
        client.child = None;
        let index = client.role.index;
        if status.success() {
            continue;
        }
        if status.code() == Some(2) {
            client.failed = Some(format!(
                "client {index} failed: {}",
                last_error_line(&client.role.dir(out).join(CLIENT_LOG))
                    .unwrap_or_else(|| "see its log".into())
            ));
            continue;
        }
        let time_left = config
            .stop
            .time
            .map(|t| t.saturating_sub(started.elapsed()));
        if client.restarts >= MAX_CLIENT_RESTARTS || time_left.is_some_and(|t| t.is_zero()) {
            tracing::warn!("client {index} was lost ({status}) and is not started again");
            continue;
        }
        client.restarts += 1;
        client.role.resumed = true;
        client.role.queue_below = EntryDir::new(out.join(QUEUE_DIR)).next_free_number();
        tracing::warn!(
            "client {index} was lost ({status}); starting it again from the shared queue ({} of at most {MAX_CLIENT_RESTARTS} times)",
            client.restarts
        );
        match spawn(
            &client.role.config(config, time_left),
            &client.role.dir(out),
        ) {
            Ok(child) => client.child = Some(child),
            Err(e) => tracing::warn!("client {index}: {e}"),
        }
    }
}

/// The last `error:` line a client wrote to its log.
fn last_error_line(log: &Path) -> Option<String> {
    let text = std::fs::read_to_string(log).ok()?;
    text.lines()
        .rev()
        .find(|l| l.contains("error"))
        .map(|l| l.trim().to_string())
}

/// A resumed run must not repair what a client of the killed run it resumes is still
/// writing: each client holds its directory's lock until it ends, and dies soon after its
/// coordinator did. Waits a few seconds for those locks.
fn await_clients_of_an_earlier_run(out: &Path) {
    let dirs = std::fs::read_dir(out.join(CLIENTS_DIR))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_dir());
    for dir in dirs {
        let deadline = Instant::now() + Duration::from_secs(10);
        while DirLock::acquire(&dir, "bonsai fuzz").is_err() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

fn last_point(dir: &Path) -> Option<CoveragePoint> {
    last_coverage_point(&dir.join(COVERAGE_CSV))
}

/// One line of the run's `coverage.csv`: executions summed over the clients, everything else
/// the largest client's figure (each client's queue holds what the others shared with it, and
/// fault counts are read from the shared directories).
fn aggregate(clients: &[ClientProcess], offset: (f64, u64), started: Instant) -> CoveragePoint {
    let mut point = CoveragePoint {
        secs: offset.0 + started.elapsed().as_secs_f64(),
        execs: offset.1,
        kpaths: Some(0),
        ..CoveragePoint::default()
    };
    for client in clients {
        let Some(last) = client.last else { continue };
        point.execs += last.execs.saturating_sub(client.execs_before);
        point.edges = point.edges.max(last.edges);
        point.corpus = point.corpus.max(last.corpus);
        point.valid = point.valid.max(last.valid);
        point.crashes = point.crashes.max(last.crashes);
        point.hangs = point.hangs.max(last.hangs);
        point.kpaths = point.kpaths.max(last.kpaths);
    }
    point
}

/// The run's summary from the clients' own: executions and rates summed, coverage the
/// largest client's, the corpus the shared queue's entries.
fn summarize(
    config: &FuzzConfig,
    clients: &[ClientProcess],
    out: &Path,
    started: Instant,
    map_size: usize,
) -> Result<Summary, Diagnostics> {
    let mut parts = Vec::new();
    for client in clients {
        let path = client.role.dir(out).join(SUMMARY);
        let text = std::fs::read_to_string(&path).map_err(|_| {
            Diagnostic::error(
                "a client ended without a summary (see its log); everything saved so far is in \
                 the output directory, and running again resumes it",
            )
            .in_file(&path)
        })?;
        let summary: Summary = serde_json::from_str(&text)
            .map_err(|e| Diagnostic::error(format!("unreadable summary: {e}")).in_file(&path))?;
        parts.push(summary);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let best = parts
        .iter()
        .max_by_key(|s| (s.edges, s.corpus))
        .cloned()
        .unwrap_or_default();
    let execs: u64 = parts.iter().map(|s| s.execs).sum();
    let faults = OutDir {
        root: out.to_path_buf(),
        resumed: true,
    }
    .fault_counts();
    Ok(Summary {
        target: config.target.name.to_string(),
        bounds: config.bounds.to_string(),
        valid_only: config.criteria == SaveCriteria::ValidOnly,
        execs,
        // Each client's rate is over its own fuzzing time, as a single-core run's is: the
        // coordinator's wall clock also holds starting the clients (each prepares its grammar
        // and debug information) and reading their summaries, 1.5 s of a 40-second oxc run,
        // which would make sharing look 4% dearer than it is against independent runs.
        execs_per_sec: parts.iter().map(|s| s.execs_per_sec).sum(),
        elapsed_secs: elapsed,
        edges: best.edges,
        edges_valid: parts.iter().map(|s| s.edges_valid).max().unwrap_or(0),
        map_size,
        corpus: EntryDir::new(out.join(QUEUE_DIR)).complete().len(),
        valid_share: best.valid_share,
        exec_valid_share: best.exec_valid_share,
        favored: best.favored,
        crashes: faults.crashes,
        hangs: faults.hangs,
        ooms: faults.ooms,
        wrong_answers: faults.wrong_answers,
        fault_executions: parts.iter().map(|s| s.fault_executions).sum(),
        too_long: parts.iter().map(|s| s.too_long).sum(),
        slow_kept: parts.iter().map(|s| s.slow_kept).sum(),
        restarts: parts.iter().map(|s| s.restarts).sum::<u64>()
            + clients.iter().map(|c| u64::from(c.restarts)).sum::<u64>(),
        seeds_loaded: parts.iter().map(|s| s.seeds_loaded).sum(),
        seeds_skipped: parts.iter().map(|s| s.seeds_skipped).max().unwrap_or(0),
        stop: parts
            .first()
            .map_or_else(|| "all clients ended".into(), |s| s.stop.clone()),
        out: out.to_path_buf(),
        trim: None,
        kpaths: parts.iter().filter_map(|s| s.kpaths).max(),
        overhead: None,
        received: Some(parts.iter().filter_map(|s| s.received).sum()),
        receive_secs: Some(parts.iter().filter_map(|s| s.receive_secs).sum()),
        received_unrun: Some(parts.iter().filter_map(|s| s.received_unrun).sum()),
        clients: Some(clients.len()),
        reduce_secs: None,
    })
}

/// The one status line of a multi-core run.
struct CoordinatorStatus {
    bar: Option<indicatif::ProgressBar>,
    log: bool,
    started: Instant,
    clients: usize,
    last: Option<(Instant, u64)>,
    next_log: Instant,
}

impl CoordinatorStatus {
    fn new(show: bool, started: Instant, clients: usize) -> Self {
        let terminal = show && std::io::IsTerminal::is_terminal(&std::io::stderr());
        let bar = terminal.then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {msg}").expect("valid template"),
            );
            bar
        });
        Self {
            bar,
            log: show && !terminal,
            started,
            clients,
            last: None,
            next_log: Instant::now() + Duration::from_secs(10),
        }
    }

    fn show(&mut self, point: &CoveragePoint) {
        if self.bar.is_none() && !self.log {
            return;
        }
        let now = Instant::now();
        let (then, before) = self.last.unwrap_or((self.started, 0));
        let window = now.duration_since(then).as_secs_f64();
        let rate = if window > 0.0 {
            point.execs.saturating_sub(before) as f64 / window
        } else {
            0.0
        };
        let line = format!(
            "{:>6}  {} clients  execs {} ({rate:.0}/s)  edges {}  corpus {} ({} valid)  faults {}",
            super::status::format_elapsed(self.started.elapsed()),
            self.clients,
            point.execs,
            point.edges,
            point.corpus,
            point.valid,
            point.crashes + point.hangs
        );
        match &self.bar {
            Some(bar) => {
                self.last = Some((now, point.execs));
                bar.set_message(line);
                bar.tick();
            }
            None if now >= self.next_log => {
                self.last = Some((now, point.execs));
                self.next_log = now + Duration::from_secs(10);
                tracing::info!("{line}");
            }
            None => {}
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
