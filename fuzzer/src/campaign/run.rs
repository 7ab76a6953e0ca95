//! `campaign::run`: create or reopen the campaign directory, then drive the work list.

use std::path::Path;
use std::time::Instant;

use super::campaign_summary::CampaignSummary;
use super::config::{CampaignConfig, CampaignMode, NewCampaign};
use super::log::{CampaignLog, unix_now};
use super::seed_merge::UserSeed;
use super::signal;
use super::state::{CampaignState, NodeStatus, STATE_FILE, VERSION, load_with_lattice};
use super::view::LatticeView;
use super::worklist::{CONFIGS_DIR, LOGS_DIR, NODES_DIR, Outcome, SEEDS_DIR, WorkList};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::dir_lock::DirLock;
use crate::lattice::Lattice;

/// Runs (or resumes) a campaign until every node is done, a node fails for good, or Ctrl-C.
/// Everything is on disk as it happens: `campaign.json` after every change of state, each
/// node's queue as its fuzzer saves inputs, so a campaign killed at any moment resumes with
/// `CampaignMode::Resume` and loses no saved input.
pub fn run(config: CampaignConfig) -> Result<CampaignSummary, Diagnostics> {
    let started = Instant::now();
    let dir = config.out.as_path();
    let OpenCampaign {
        state,
        lattice,
        lock,
        jobs,
        mut log,
    } = match &config.mode {
        CampaignMode::New(new) => OpenCampaign::start(dir, new)?,
        CampaignMode::Resume { jobs } => OpenCampaign::resume(dir, *jobs)?,
    };
    if state.target != config.target.name {
        return Err(Diagnostic::error(format!(
            "the campaign fuzzes target '{}', but this binary links '{}'",
            state.target, config.target.name
        ))
        .in_file(&dir.join(STATE_FILE))
        .into());
    }
    for sub in [NODES_DIR, SEEDS_DIR, LOGS_DIR, CONFIGS_DIR] {
        crate::create_dir(&dir.join(sub))?;
    }
    let (user_seeds, unusable) =
        super::seed_merge::user_seeds(&state.seeds, &state.grammar_fingerprint)?;
    if !state.seeds.is_empty() {
        log_seeds(&mut log, &lattice, &user_seeds, &unusable);
    }
    log.event("working");
    signal::install();
    let worklist = WorkList {
        dir,
        state,
        lattice,
        target: config.target,
        program: config.program.clone(),
        jobs,
        log,
        view: LatticeView::new(config.show_progress),
        user_seeds,
    };
    let (state, outcome) = worklist.drive()?;
    let mut log = CampaignLog::open(dir)?;
    let (interrupted, failed) = log_end(&mut log, outcome);
    drop(lock);
    Ok(CampaignSummary {
        dir: dir.to_path_buf(),
        top: state.top.clone(),
        nodes: state.nodes.len(),
        done: state.count(NodeStatus::Done),
        failed,
        interrupted,
        elapsed_secs: started.elapsed().as_secs_f64(),
        node_secs: state.nodes.iter().map(|n| n.elapsed_secs).sum(),
        top_summary: state.node(&state.top).and_then(|n| n.summary.clone()),
    })
}

/// A campaign directory made or reopened, and held: its state, its lattice, the lock that
/// keeps a second campaign out, the number of nodes to run at once and the open log.
struct OpenCampaign {
    state: CampaignState,
    lattice: Lattice,
    lock: DirLock,
    jobs: usize,
    log: CampaignLog,
}

impl OpenCampaign {
    /// A new campaign (see [`create`]), its creation the log's first line.
    fn start(dir: &Path, new: &NewCampaign) -> Result<Self, Diagnostics> {
        let (state, lattice) = create(dir, new)?;
        let lock = DirLock::acquire(dir, "bonsai campaign")?;
        let mut log = CampaignLog::open(dir)?;
        log.event(&format!(
            "campaign created: target {}, grammar {}, max bounds {}, {} nodes, {} jobs",
            state.target,
            state.grammar.display(),
            state.max_bounds,
            state.nodes.len(),
            state.jobs
        ));
        Ok(Self {
            state,
            lattice,
            lock,
            jobs: new.jobs,
            log,
        })
    }

    /// Nodes that were running or had failed when the campaign stopped wait again: each
    /// restarts from its queue. `jobs` overrides the recorded number (another machine).
    fn resume(dir: &Path, jobs: Option<usize>) -> Result<Self, Diagnostics> {
        let (mut state, lattice) = load_with_lattice(dir)?;
        let lock = DirLock::acquire(dir, "bonsai campaign")?;
        check_grammar(&state)?;
        let mut log = CampaignLog::open(dir)?;
        let mut interrupted = Vec::new();
        for node in &mut state.nodes {
            if matches!(node.state, NodeStatus::Running | NodeStatus::Failed) {
                interrupted.push(node.name.clone());
                node.state = NodeStatus::Waiting;
            }
        }
        let jobs = jobs.unwrap_or(state.jobs);
        state.save(dir)?;
        log.event(&format!(
            "campaign resumed: {}/{} nodes done, {} restarting from their queues ({}), {jobs} jobs",
            state.count(NodeStatus::Done),
            state.nodes.len(),
            interrupted.len(),
            interrupted.join(", ")
        ));
        Ok(Self {
            state,
            lattice,
            lock,
            jobs,
            log,
        })
    }
}

/// The user's seeds in the log: how many the lattice can use, and why each other one is not.
fn log_seeds(
    log: &mut CampaignLog,
    lattice: &Lattice,
    user_seeds: &[UserSeed],
    unusable: &[String],
) {
    let top = lattice.top().bounds;
    let beyond: Vec<&UserSeed> = user_seeds
        .iter()
        .filter(|s| !s.bounds.within(&top))
        .collect();
    log.event(&format!(
        "{} seeds given, {} within the top node's bounds {top}, {} beyond them, {} unusable",
        user_seeds.len() + unusable.len(),
        user_seeds.len() - beyond.len(),
        beyond.len(),
        unusable.len()
    ));
    for seed in beyond {
        log.event(&format!(
            "seed {} needs bounds {}: no node of the lattice admits it",
            seed.seed.source.display(),
            seed.bounds
        ));
    }
    for why in unusable {
        log.event(&format!("seed {why}: not used"));
    }
}

/// How the work list ended, in the log; whether it was interrupted, and the nodes that failed.
fn log_end(log: &mut CampaignLog, outcome: Outcome) -> (bool, Vec<String>) {
    match outcome {
        Outcome::Complete => {
            log.event("campaign complete");
            (false, Vec::new())
        }
        Outcome::Interrupted => {
            log.event("campaign interrupted; `bonsai campaign --resume` continues it");
            (true, Vec::new())
        }
        Outcome::Blocked(failed) => {
            log.event(&format!(
                "campaign stopped: nodes failed ({}); their successors cannot run",
                failed.join(", ")
            ));
            (false, failed)
        }
    }
}

/// A new campaign directory with every node waiting. Refuses a directory that already holds
/// a campaign (that is what `--resume` is for) or anything else.
fn create(dir: &Path, new: &NewCampaign) -> Result<(CampaignState, Lattice), Diagnostics> {
    if dir.join(STATE_FILE).exists() {
        return Err(Diagnostic::error(
            "this directory holds a campaign already; continue it with `bonsai campaign --resume DIR`, or choose another --out",
        )
        .in_file(dir)
        .into());
    }
    if crate::fs_util::has_entries(dir) {
        return Err(Diagnostic::error(
            "the output directory is not empty and holds no campaign; choose an empty or new directory",
        )
        .in_file(dir)
        .into());
    }
    let grammar = std::fs::canonicalize(&new.grammar).map_err(|e| {
        Diagnostic::error(format!("grammar file not found: {e}")).in_file(&new.grammar)
    })?;
    let imported = crate::import::load(&grammar)?;
    let fingerprint = format!("{:016x}", imported.grammar.fingerprint());
    let lattice = Lattice::new(new.max_bounds);
    // Every node's fuzzer would refuse a grammar it cannot sample from; saying so now beats
    // a lattice of failed nodes.
    crate::sampler::Sampler::new(&imported.grammar, lattice.bottom().bounds)
        .map_err(|e| e.in_file(&grammar))?;
    crate::create_dir(dir)?;
    let state = CampaignState {
        version: VERSION,
        target: new.target.clone(),
        grammar,
        grammar_fingerprint: fingerprint,
        max_bounds: new.max_bounds.to_string(),
        node_time_secs: new.budget.time.as_secs_f64(),
        saturate_secs: new.budget.saturate_time.map(|t| t.as_secs_f64()),
        saturate_execs: new.budget.saturate_execs,
        node_execs: new.budget.execs,
        budget_secs: new.total.map(|t| t.as_secs_f64()),
        jobs: new.jobs,
        cores_per_node: new.cores_per_node,
        seed: new.seed,
        timeout_ms: new.timeout_ms,
        save_on: new.save_on,
        trim_tests: new.trim_tests,
        grammar_feedback: new.grammar_feedback,
        seeds: new.seeds.clone(),
        created_unix: unix_now(),
        nodes: CampaignState::nodes_of(&lattice),
        top: lattice.top().slug(),
    };
    state.save(dir)?;
    Ok((state, lattice))
}

fn fingerprint(grammar: &Path) -> Result<String, Diagnostics> {
    let imported = crate::import::load(grammar)?;
    Ok(format!("{:016x}", imported.grammar.fingerprint()))
}

/// The saved queues are choice sequences: they mean the same inputs only under the same
/// grammar.
fn check_grammar(state: &CampaignState) -> Result<(), Diagnostics> {
    let now = fingerprint(&state.grammar)?;
    if now != state.grammar_fingerprint {
        return Err(Diagnostic::error(format!(
            "the grammar changed since the campaign started (fingerprint {} then, {now} now); \
             its saved choice sequences would mean different inputs. Restore the grammar or start a new campaign",
            state.grammar_fingerprint
        ))
        .in_file(&state.grammar)
        .into());
    }
    Ok(())
}
