//! The shared work list: start every node whose predecessors are done, at most `jobs` at a
//! time, and record each change of state before anything else happens.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::config::NodeBudget;
use super::log::{CampaignLog, unix_now};
use super::progress::NodeProgress;
use super::runner::{NodeProcess, read_summary};
use super::seed_merge;
use super::signal;
use super::state::{CampaignState, NodeStatus};
use super::view::{LatticeView, RunningNode, human};
use crate::diagnostic::Diagnostic;
use crate::feedback::SaveCriteria;
use crate::fuzz::{FuzzConfig, MultiCore, Network};
use crate::lattice::{Lattice, Node};
use crate::target::LinkedTarget;

/// How often children are polled and the view redrawn.
const POLL: Duration = Duration::from_millis(100);
/// How often the elapsed time of running nodes is written to `campaign.json`, so that a node
/// resumed after `kill -9` gets at most this much extra time.
const SAVE_ELAPSED: Duration = Duration::from_secs(2);
/// The window over which the view measures a running node's execs/s.
const RATE_WINDOW: Duration = Duration::from_secs(5);
/// A node is tried this many times in one session before it is marked failed.
const ATTEMPTS_PER_SESSION: u32 = 2;
/// How long stopped children get to exit before they are killed.
const STOP_GRACE: Duration = Duration::from_secs(10);

pub use crate::layout::{CONFIGS_DIR, LOGS_DIR, NODES_DIR, SEEDS_DIR};

/// How the work list ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every node is done.
    Complete,
    /// Ctrl-C or SIGTERM: running nodes were stopped and are waiting again.
    Interrupted,
    /// Nothing more can run: these nodes failed (their successors wait).
    Blocked(Vec<String>),
}

pub struct WorkList<'a> {
    pub dir: &'a Path,
    pub state: CampaignState,
    pub lattice: Lattice,
    pub target: LinkedTarget,
    pub program: PathBuf,
    pub jobs: usize,
    pub log: CampaignLog,
    pub view: LatticeView,
    /// The user's seeds (`--seeds`), each merged into every node whose bounds admit it.
    pub user_seeds: Vec<seed_merge::UserSeed>,
}

impl WorkList<'_> {
    fn budget(&self) -> NodeBudget {
        NodeBudget {
            time: Duration::from_secs_f64(self.state.node_time_secs),
            saturate_time: self.state.saturate_secs.map(Duration::from_secs_f64),
            saturate_execs: self.state.saturate_execs,
            execs: self.state.node_execs,
        }
    }

    fn save(&self) -> Result<(), Diagnostic> {
        self.state.save(self.dir)
    }

    fn event(&mut self, message: &str) {
        self.log.event(message);
        self.view.event(message);
    }

    pub fn drive(mut self) -> Result<(CampaignState, Outcome), Diagnostic> {
        let mut running: Vec<NodeProcess> = Vec::new();
        let mut failures: HashMap<String, u32> = HashMap::new();
        let mut last_save = Instant::now();
        // Per running node: a reading from up to RATE_WINDOW ago and the rate measured then.
        let mut earlier: HashMap<String, (Instant, NodeProgress, Option<f64>)> = HashMap::new();
        let outcome = loop {
            if signal::interrupted() {
                self.stop_all(&mut running, &mut failures)?;
                break Outcome::Interrupted;
            }
            self.reap(&mut running, &mut failures, false)?;
            if self.state.nodes.iter().all(|n| n.state == NodeStatus::Done) {
                break Outcome::Complete;
            }
            if let Err(e) = self.start_ready(&mut running) {
                self.stop_all(&mut running, &mut failures)?;
                return Err(e);
            }
            if running.is_empty() {
                let failed = self
                    .state
                    .nodes
                    .iter()
                    .filter(|n| n.state == NodeStatus::Failed)
                    .map(|n| n.name.clone())
                    .collect();
                break Outcome::Blocked(failed);
            }
            if last_save.elapsed() >= SAVE_ELAPSED {
                for process in &running {
                    if let Some(node) = self.state.node_mut(&process.name) {
                        node.elapsed_secs = process.elapsed_secs();
                    }
                }
                self.save()?;
                last_save = Instant::now();
            }
            earlier.retain(|name, _| running.iter().any(|p| &p.name == name));
            let shown: Vec<RunningNode> = running
                .iter()
                .map(|p| {
                    let now = NodeProgress::read(&p.dir);
                    let mut progress = now;
                    match earlier.get(&p.name).copied() {
                        Some((at, before, _))
                            if at.elapsed() >= RATE_WINDOW && now.secs > before.secs =>
                        {
                            progress = now.since(&before);
                            let rate = progress.execs_per_sec;
                            earlier.insert(p.name.clone(), (Instant::now(), now, rate));
                        }
                        Some((_, _, Some(rate))) => progress.execs_per_sec = Some(rate),
                        Some(_) => {}
                        None if now.secs.is_some() => {
                            earlier.insert(p.name.clone(), (Instant::now(), now, None));
                        }
                        None => {}
                    }
                    RunningNode {
                        name: p.name.clone(),
                        elapsed_secs: p.elapsed_secs(),
                        progress,
                    }
                })
                .collect();
            self.view.update(&self.state, &shown, self.jobs);
            std::thread::sleep(POLL);
        };
        self.view.finish();
        Ok((self.state, outcome))
    }

    /// Records every child that has ended: done with its summary, or failed (tried again
    /// once in this session). A child that ended because it was stopped (Ctrl-C, SIGTERM,
    /// or `stopping`) is not a failure: it waits to be resumed.
    fn reap(
        &mut self,
        running: &mut Vec<NodeProcess>,
        failures: &mut HashMap<String, u32>,
        stopping: bool,
    ) -> Result<(), Diagnostic> {
        let mut i = 0;
        while i < running.len() {
            let Some(status) = running[i].poll() else {
                i += 1;
                continue;
            };
            let process = running.swap_remove(i);
            let elapsed = process.elapsed_secs();
            let summary = status
                .success()
                .then(|| read_summary(&process.dir))
                .flatten();
            let name = process.name.clone();
            if summary.is_none() && (stopping || signal::interrupted()) {
                self.mark_waiting(&name, elapsed);
                self.save()?;
                self.log.event(&format!(
                    "node {name} stopped after {}; it resumes from its queue",
                    human(elapsed)
                ));
                continue;
            }
            let node = self.state.node_mut(&name).expect("running nodes exist");
            node.elapsed_secs = elapsed;
            let message = match summary {
                Some(summary) => {
                    node.state = NodeStatus::Done;
                    node.finished_unix = Some(unix_now());
                    node.stop = Some(match summary.stop.as_str() {
                        "executions" => "execs".to_string(),
                        other => other.to_string(),
                    });
                    let message = format!(
                        "node {name} done in {}: {} edges, corpus {}, {:.0}% valid, {} execs ({:.0}/s), stopped on {}",
                        human(elapsed),
                        summary.edges,
                        summary.corpus,
                        100.0 * summary.valid_share,
                        summary.execs,
                        summary.execs_per_sec,
                        summary.stop
                    );
                    node.summary = Some(summary);
                    message
                }
                None => {
                    let count = failures.entry(name.clone()).or_default();
                    *count += 1;
                    let retry = *count < ATTEMPTS_PER_SESSION;
                    node.state = if retry {
                        NodeStatus::Waiting
                    } else {
                        NodeStatus::Failed
                    };
                    format!(
                        "node {name} failed ({status}); {}; see {}",
                        if retry {
                            "trying again from its queue"
                        } else {
                            "giving up on it in this session (--resume tries again)"
                        },
                        self.dir
                            .join(LOGS_DIR)
                            .join(format!("{name}.log"))
                            .display()
                    )
                }
            };
            self.save()?;
            self.event(&message);
        }
        Ok(())
    }

    fn mark_waiting(&mut self, name: &str, elapsed: f64) {
        if let Some(node) = self.state.node_mut(name) {
            node.state = NodeStatus::Waiting;
            node.elapsed_secs = elapsed;
        }
    }

    fn start_ready(&mut self, running: &mut Vec<NodeProcess>) -> Result<(), Diagnostic> {
        if running.len() >= self.jobs {
            return Ok(());
        }
        let state = &self.state;
        let done = |n: &Node| {
            state
                .node(&n.slug())
                .is_some_and(|s| s.state == NodeStatus::Done)
        };
        let startable: Vec<Node> = self
            .lattice
            .ready(&done)
            .filter(|n| {
                let name = n.slug();
                !running.iter().any(|p| p.name == name)
                    && state
                        .node(&name)
                        .is_some_and(|s| s.state == NodeStatus::Waiting)
            })
            .collect();
        for node in startable {
            if running.len() >= self.jobs {
                break;
            }
            let process = self.start(node, running)?;
            running.push(process);
        }
        Ok(())
    }

    /// The time node `name` gets as it starts for the first time: the node time, or under a
    /// campaign budget an even share of what the finished nodes left and the running ones have
    /// not been promised, among the nodes still to start (this one included).
    fn share(&self, name: &str, running: &[NodeProcess]) -> f64 {
        let cap = self.state.node_time_secs;
        let Some(total) = self.state.budget_secs else {
            return cap;
        };
        let mut spent = 0.0;
        let mut to_start = 0usize;
        for node in &self.state.nodes {
            let runs = running.iter().any(|p| p.name == node.name);
            if node.state == NodeStatus::Done {
                spent += node.elapsed_secs;
            } else if runs {
                spent += node.allotted_secs.unwrap_or(cap).max(node.elapsed_secs);
            } else if node.name == name || node.allotted_secs.is_none() {
                to_start += 1;
            } else {
                // Interrupted and waiting to resume: its promise still stands.
                spent += node.allotted_secs.unwrap_or(cap).max(node.elapsed_secs);
            }
        }
        ((total - spent) / to_start.max(1) as f64).clamp(1.0, cap)
    }

    /// The cores and broker port of a node that fuzzes with more than one core: the cores no
    /// running node uses, lowest first (shared again when the machine has too few), and a
    /// port the system has free now.
    fn node_cores(&self, running: &[NodeProcess]) -> Result<Option<MultiCore>, Diagnostic> {
        let k = self.state.cores_per_node;
        if k <= 1 {
            return Ok(None);
        }
        let available = std::thread::available_parallelism().map_or(1, usize::from);
        let busy: Vec<usize> = running
            .iter()
            .flat_map(|p| p.cores.iter().copied())
            .collect();
        let mut cores: Vec<usize> = (0..available)
            .filter(|c| !busy.contains(c))
            .take(k)
            .collect();
        let mut next = 0;
        while cores.len() < k {
            cores.push(next % available);
            next += 1;
        }
        let port = std::net::TcpListener::bind(("127.0.0.1", 0))
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| {
                Diagnostic::error(format!("cannot find a free port for a node's broker: {e}"))
            })?;
        Ok(Some(MultiCore {
            cores,
            network: Network {
                broker_port: port,
                connect: None,
            },
        }))
    }

    /// Merges the predecessors' queues into the node's seeds, records the node as running
    /// and starts its fuzzer. A node that ran before resumes from its own queue (same
    /// `--out`) with the rest of its time budget.
    fn start(&mut self, node: Node, running: &[NodeProcess]) -> Result<NodeProcess, Diagnostic> {
        let name = node.slug();
        let index = self
            .lattice
            .nodes()
            .iter()
            .position(|n| *n == node)
            .unwrap_or(0) as u64;
        let predecessors: Vec<PathBuf> = self
            .lattice
            .predecessors(&node)
            .iter()
            .map(|p| self.dir.join(NODES_DIR).join(p.slug()))
            .collect();
        let admitted = self
            .user_seeds
            .iter()
            .any(|s| s.bounds.within(&node.bounds));
        let seeds_dir =
            (!predecessors.is_empty() || admitted).then(|| self.dir.join(SEEDS_DIR).join(&name));
        let mut seed_count = 0;
        if let Some(seeds_dir) = &seeds_dir {
            let merged =
                seed_merge::merge_with(&predecessors, &self.user_seeds, Some(node.bounds))?;
            seed_count = merged.len();
            seed_merge::write(seeds_dir, &merged)?;
        }
        let out = self.dir.join(NODES_DIR).join(&name);
        super::node_dir::clear_unstarted(&out)?;
        let record = self.state.node(&name).expect("lattice nodes exist").clone();
        let mut budget = self.budget();
        let allotted = record
            .allotted_secs
            .unwrap_or_else(|| self.share(&name, running));
        let left = (allotted - record.elapsed_secs).max(1.0);
        budget.time = Duration::from_secs_f64(left);
        if self.state.budget_secs.is_some() && name == self.state.top {
            // Saturation stops a node to pass its time up the lattice; the top node has no
            // node above it, and what it leaves would be lost, so it uses all that is left.
            budget.saturate_time = None;
            budget.saturate_execs = None;
        }
        let mut config = FuzzConfig::new(self.target, self.state.grammar.clone(), node.bounds, out);
        config.criteria = if record.valid_only {
            SaveCriteria::ValidOnly
        } else {
            SaveCriteria::Zest
        };
        config.grain = self.state.save_on;
        config.trim_tests = self.state.trim_tests;
        config.grammar_feedback = self.state.grammar_feedback;
        config.seeds = seeds_dir.into_iter().collect();
        config.seed = self.state.seed.wrapping_add(index);
        config.timeout = Duration::from_millis(self.state.timeout_ms);
        config.stop = budget.stop_condition();
        // Faults are reduced once per bucket for the whole lattice when it is done, not by
        // every node that meets them (`cli::campaign`).
        config.reduce_crash_tests = 0;
        // A node grows a concise corpus: inputs kept for their slowness alone are long.
        config.keep_slow = false;
        // Status lines in the node's log.
        config.show_status = true;
        config.multi_core = self.node_cores(running)?;
        {
            let shared = self.state.budget_secs.is_some();
            let entry = self.state.node_mut(&name).expect("lattice nodes exist");
            if shared {
                entry.allotted_secs = Some(allotted);
            }
            entry.state = NodeStatus::Running;
            entry.attempts += 1;
            entry.started_unix = Some(unix_now());
            entry.finished_unix = None;
        }
        // Recorded before the child exists: a campaign killed right now finds it running and
        // puts it back to waiting.
        self.save()?;
        let process = NodeProcess::spawn(
            name.clone(),
            &self.program,
            &config,
            &self.dir.join(CONFIGS_DIR).join(format!("{name}.json")),
            &self.dir.join(LOGS_DIR).join(format!("{name}.log")),
            record.elapsed_secs,
        )?;
        let message = if record.attempts > 0 {
            format!(
                "node {name} resumed (attempt {}, pid {}): its queue plus {seed_count} merged seeds, {} left",
                record.attempts + 1,
                process.pid(),
                human(left)
            )
        } else {
            format!(
                "node {name} started (pid {}): {seed_count} merged seeds from {}",
                process.pid(),
                if record.predecessors.is_empty() {
                    "no predecessor".to_string()
                } else {
                    record.predecessors.join(", ")
                }
            )
        };
        self.event(&message);
        Ok(process)
    }

    /// Stops every running node and records it: waiting (it resumes from its queue), or done
    /// when it finished just as it was asked to stop.
    fn stop_all(
        &mut self,
        running: &mut Vec<NodeProcess>,
        failures: &mut HashMap<String, u32>,
    ) -> Result<(), Diagnostic> {
        for process in running.iter_mut() {
            process.stop(STOP_GRACE);
        }
        self.reap(running, failures, true)?;
        self.save()
    }
}
