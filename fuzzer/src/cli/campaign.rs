//! `bonsai campaign`: the Bonsai lattice of fuzzers, one child process per node.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use super::{Failure, LinkedTarget};
use crate::campaign::{
    CampaignConfig, CampaignMode, CampaignSummary, NewCampaign, NodeBudget, default_jobs,
};
use crate::diagnostic::Diagnostic;
use crate::feedback::CoverageGrain;
use crate::fuzz::parse_duration;
use crate::layout::QUEUE_DIR;
use crate::sampler::Bounds;

const NEW: [&str; 14] = [
    "target",
    "grammar",
    "max_bounds",
    "node_time",
    "budget",
    "saturate",
    "saturate_execs",
    "node_execs",
    "seed",
    "timeout_ms",
    "save_on",
    "trim_tests",
    "grammar_feedback",
    "seeds",
];

#[derive(Args)]
pub struct CampaignArgs {
    /// The target to fuzz (runs the binary bonsai-TARGET).
    #[arg(long, required_unless_present = "resume")]
    target: Option<String>,
    /// The grammar inputs are generated from.
    #[arg(long, value_name = "FILE", required_unless_present = "resume")]
    grammar: Option<PathBuf>,
    /// The top of the lattice M,N,D: a node F(m,n,d,v) for every m<=M, n<=N, d<=D, v in {r,u}.
    #[arg(
        long,
        value_name = "M,N,D",
        default_value = "3,3,3",
        value_parser = crate::lattice::Lattice::parse_max_bounds
    )]
    max_bounds: Bounds,
    /// Time budget of each node (30s, 10m, 2h); with --budget, the most one node gets.
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", default_value = "60m")]
    node_time: Duration,
    /// Node-time for the whole lattice, shared out among the nodes as they start.
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    budget: Option<Duration>,
    /// Stop a node early when it found no new edge for this long (saturation).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    saturate: Option<Duration>,
    /// Stop a node early when it found no new edge in this many executions.
    #[arg(long, value_name = "N")]
    saturate_execs: Option<u64>,
    /// Stop each node after this many executions (reproducible campaigns).
    #[arg(long, value_name = "N")]
    node_execs: Option<u64>,
    /// Nodes fuzzed at once (default: the cores divided by --cores-per-node); also with --resume.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Cores each node fuzzes with (`bonsai fuzz --cores`); 1 runs single-core nodes side by side.
    #[arg(long, value_name = "K", default_value_t = crate::campaign::DEFAULT_CORES_PER_NODE)]
    cores_per_node: usize,
    /// Random seed (each node derives its own from it).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Per-execution timeout in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    timeout_ms: u64,
    /// What keeps an input in a node: edges (a new edge) or counts (also a new hit-count class).
    #[arg(long, value_name = "GRAIN", default_value = "edges")]
    save_on: CoverageGrain,
    /// Runs of the target each node may spend trimming a new entry; 0 keeps entries as found.
    #[arg(long, value_name = "N", default_value_t = crate::fuzz::DEFAULT_TRIM_TESTS)]
    trim_tests: u64,
    /// Every node also keeps inputs that derive a k-path of the grammar it never derived (kpath:K).
    #[arg(long, value_name = "kpath:K", value_parser = super::fuzz::parse_grammar_feedback)]
    grammar_feedback: Option<usize>,
    /// Seed directories (`bonsai import` output, or any queue); each seed enters where its bounds
    /// fit.
    #[arg(long, value_name = "DIR")]
    seeds: Vec<PathBuf>,
    /// The campaign directory: campaign.json, campaign.log, nodes/<node>/.
    #[arg(long, value_name = "DIR", required_unless_present = "resume")]
    out: Option<PathBuf>,
    /// Continue the campaign in DIR after Ctrl-C, kill or a restart.
    #[arg(long, value_name = "DIR", conflicts_with_all = NEW, conflicts_with = "out")]
    resume: Option<PathBuf>,
    /// Print the final summary as one line of JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Stop when the lattice is done, without exporting the corpus and writing the report.
    #[arg(long)]
    no_report: bool,
}

pub fn run(args: CampaignArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    if args.cores_per_node == 0 {
        return Err(Diagnostic::error("--cores-per-node must be at least 1").into());
    }
    if args.jobs == Some(0) {
        return Err(Diagnostic::error("--jobs must be at least 1").into());
    }
    // `--resume` names no target on the command line, so `bonsai` could not hand the command
    // to the target's binary before parsing it, as it does for every other command; it does
    // so here, with the target campaign.json names. Without it the campaign would finish and
    // then skip the export for want of the target, and exit 0.
    if let Some(dir) = &args.resume
        && let Some(target) = resumed_target(dir)
        && linked.is_none_or(|t| t.name != target)
    {
        let command_line: Vec<std::ffi::OsString> = std::env::args_os().collect();
        return Err(super::plugin::forward(&target, &command_line).into());
    }
    let program = std::env::current_exe()
        .map_err(|e| Diagnostic::error(format!("cannot find the running executable: {e}")))?;
    let (json, no_report) = (args.json, args.no_report);
    let (out, mode, target) = campaign_mode(args, linked)?;
    let summary = crate::campaign::run(CampaignConfig {
        out: out.clone(),
        mode,
        target,
        program,
        show_progress: true,
    })?;
    if json {
        println!(
            "{}",
            serde_json::to_string(&summary).expect("plain data serializes")
        );
    }
    announce_end(&summary, &out)?;
    reduce_faults(&out, linked)?;
    if !no_report {
        export_and_report(&out, linked)?;
    }
    Ok(())
}

/// The output directory, whether the campaign is new or resumed, and the target it fuzzes.
fn campaign_mode(
    mut args: CampaignArgs,
    linked: Option<LinkedTarget>,
) -> Result<(PathBuf, CampaignMode, LinkedTarget), Failure> {
    match (args.resume.take(), args.out.take()) {
        (Some(dir), _) => {
            let Some(target) = linked else {
                // Not handed to the target's binary: its campaign.json did not read that far.
                let state = crate::campaign::load_state(&dir)?;
                return Err(Diagnostic::error(format!(
                    "target '{}' is not linked into this binary",
                    state.target
                ))
                .into());
            };
            Ok((dir, CampaignMode::Resume { jobs: args.jobs }, target))
        }
        (None, Some(out)) => {
            let (new, target) = new_campaign(args, linked)?;
            Ok((out, CampaignMode::New(Box::new(new)), target))
        }
        (None, None) => unreachable!("clap requires --out or --resume"),
    }
}

/// A new campaign's settings from the command line, each checked before any node runs.
fn new_campaign(
    args: CampaignArgs,
    linked: Option<LinkedTarget>,
) -> Result<(NewCampaign, LinkedTarget), Failure> {
    let target = args.target.expect("clap requires --target");
    let grammar = args.grammar.expect("clap requires --grammar");
    let linked_target = super::plugin::linked_named(linked, &target)?;
    crate::target::require_instrumented(&target)?;
    crate::target::warn_if_only_the_harness_is_counted();
    if args.timeout_ms == 0 {
        return Err(Diagnostic::error("--timeout-ms must be at least 1").into());
    }
    if args.node_time.is_zero() || args.budget.is_some_and(|b| b.is_zero()) {
        return Err(Diagnostic::error("--node-time and --budget must be more than 0").into());
    }
    super::require_grammar_and_seeds(&grammar, &args.seeds)?;
    let new = NewCampaign {
        target,
        grammar,
        max_bounds: args.max_bounds,
        budget: NodeBudget {
            time: args.node_time,
            saturate_time: args.saturate,
            saturate_execs: args.saturate_execs,
            execs: args.node_execs,
        },
        total: args.budget,
        jobs: args
            .jobs
            .unwrap_or_else(|| (default_jobs() / args.cores_per_node).max(1)),
        cores_per_node: args.cores_per_node,
        seed: args.seed,
        timeout_ms: args.timeout_ms,
        save_on: args.save_on,
        trim_tests: args.trim_tests,
        grammar_feedback: args.grammar_feedback,
        seeds: args.seeds,
    };
    Ok((new, linked_target))
}

/// How the lattice ended, in one line: an interrupted or failed campaign is an error (exit 1)
/// that names the command to continue it.
fn announce_end(summary: &CampaignSummary, out: &Path) -> Result<(), Failure> {
    let resume = format!("bonsai campaign --resume {}", out.display());
    if summary.interrupted {
        return Err(Failure::Negative(format!(
            "campaign interrupted with {}/{} nodes done; nothing saved is lost. Continue with: {resume}",
            summary.done, summary.nodes
        )));
    }
    if !summary.failed.is_empty() {
        return Err(Failure::Negative(format!(
            "campaign stopped with {}/{} nodes done: node(s) {} failed twice (logs in {}); fix the cause and continue with: {resume}",
            summary.done,
            summary.nodes,
            summary.failed.join(", "),
            out.join(crate::campaign::LOGS_DIR).display()
        )));
    }
    let top = out.join(crate::campaign::NODES_DIR).join(&summary.top);
    match &summary.top_summary {
        Some(top_summary) => eprintln!(
            "campaign complete: {} nodes in {:.0}s ({:.0} node-seconds); top {}: {} edges, corpus {} ({:.0}% valid); the corpus is {}",
            summary.nodes,
            summary.elapsed_secs,
            summary.node_secs,
            summary.top,
            top_summary.edges,
            top_summary.corpus,
            100.0 * top_summary.valid_share,
            top.join(QUEUE_DIR).display()
        ),
        None => eprintln!("campaign complete: {} nodes", summary.nodes),
    }
    Ok(())
}

/// One list of faults for the whole lattice, each bucket reduced once (the nodes leave their
/// faults as found), then printed in short.
fn reduce_faults(out: &Path, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let state = crate::campaign::load_state(out)?;
    let list = crate::triage::gather(out)?;
    if let Some(target) = linked.filter(|t| t.name == state.target)
        && !list.buckets.is_empty()
    {
        // Checked when the campaign started; its warnings were printed then.
        let grammar = crate::import::load(&state.grammar)?.grammar;
        let triaged = crate::triage::reduce_buckets(
            &grammar,
            &list,
            target,
            Duration::from_millis(state.timeout_ms),
            crate::triage::DEFAULT_CRASH_TESTS,
        );
        eprintln!(
            "faults: {} buckets (one per bug) from {} faulting executions; {} reproducers reduced, {} hangs confirmed, {} flaky, in {:.1} s; `bonsai faults {}` lists them",
            list.buckets.len(),
            list.executions,
            triaged.reduced.len(),
            triaged.hangs_confirmed,
            triaged.flaky.len(),
            triaged.seconds,
            out.display()
        );
    }
    Ok(())
}

/// The target of the campaign in `dir`, when its campaign.json can be read that far; a
/// damaged file is left to the resume, which says what is wrong with it.
fn resumed_target(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(crate::campaign::STATE_FILE)).ok()?;
    let state: serde_json::Value = serde_json::from_str(&text).ok()?;
    state.get("target")?.as_str().map(str::to_string)
}

/// What a user runs a campaign for: the top node's corpus as readable regression tests with
/// their golden outputs, and a report on how the lattice got there.
fn export_and_report(out: &Path, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let state = crate::campaign::load_state(out)?;
    let corpus = crate::report::corpus_dir(out);
    match linked.filter(|t| t.name == state.target) {
        Some(target) => {
            let exported = crate::regression::export(
                out,
                &corpus,
                &target,
                &crate::regression::ExportOptions {
                    golden: true,
                    distill: true,
                    ..Default::default()
                },
            )?;
            for note in &exported.notes {
                eprintln!("warning: {note}");
            }
            eprintln!(
                "exported {} inputs ({} valid, {} edges) with their outputs to {}: per edge the smallest input of the top corpus that covers it (bonsai export without --distill writes all of it)",
                exported.inputs,
                exported.valid,
                exported.edges,
                corpus.display()
            );
        }
        None => {
            // Unreachable from the command line (a resume is handed to the target's binary),
            // but a campaign whose corpus was not exported has not done what it was run for.
            crate::report::write(out)?;
            return Err(Diagnostic::error(format!(
                "the corpus was not exported: target '{}' is not linked into this binary; run bonsai export {} --out {} --target {}",
                state.target,
                out.display(),
                corpus.display(),
                state.target
            ))
            .into());
        }
    }
    let report = crate::report::write(out)?;
    eprintln!("report: {}", report.html.display());
    eprintln!("        {}", report.markdown.display());
    Ok(())
}
