//! `bonsai baseline-nautilus`: LibAFL's Nautilus fuzzer on the same grammar and target, the
//! peer that `scripts/compare-nautilus` measures Bonsai against.

use std::path::PathBuf;

use bonsai::bounds::Bounds;
use bonsai::cli::{ExtraCommand, Failure, LinkedTarget, linked_named};
use bonsai::diagnostic::Diagnostic;
use bonsai::peer::parse_duration;
use clap::{ArgMatches, Args, FromArgMatches};

use crate::run::{BaselineConfig, DEFAULT_TREE_SIZE, run as run_baseline};

/// `baseline-nautilus`, for `bonsai::target_main!`: the binary's target fuzzed by LibAFL's
/// Nautilus on the same grammar, with Bonsai's harness conditions and output layout.
pub const NAUTILUS: ExtraCommand = ExtraCommand { command, run };

/// The subcommand as clap sees it; its help line is the one `bonsai --help` showed when the
/// baseline was part of the engine.
fn command() -> clap::Command {
    BaselineArgs::augment_args(clap::Command::new("baseline-nautilus")).about(
        "Run LibAFL's Nautilus fuzzer on the same grammar and target (the comparison baseline)",
    )
}

#[derive(Args)]
struct BaselineArgs {
    /// The target to fuzz (runs the binary bonsai-TARGET).
    #[arg(long)]
    target: String,
    /// The grammar, converted to Nautilus rules.
    #[arg(long, value_name = "FILE")]
    grammar: PathBuf,
    /// Bounds M,N,D, of which only M applies: each pool offers its first M values.
    #[arg(long, value_name = "M,N,D", value_parser = Bounds::parse_arg)]
    bounds: Bounds,
    /// Stop after this long: 30s, 10m, 2h.
    #[arg(long, value_parser = parse_duration)]
    time: Option<std::time::Duration>,
    /// Stop after this many executions.
    #[arg(long, value_name = "N")]
    execs: Option<u64>,
    /// Output directory, new or empty (queue/, crashes/, hangs/, coverage.csv).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Per-execution timeout in milliseconds; longer runs are saved in hangs/.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    timeout_ms: u64,
    /// Nautilus's tree size for generation.
    #[arg(long, default_value_t = DEFAULT_TREE_SIZE)]
    tree_size: usize,
    /// Print the summary as one line of JSON.
    #[arg(long)]
    json: bool,
}

fn run(matches: &ArgMatches, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let args = BaselineArgs::from_arg_matches(matches).unwrap_or_else(|e| e.exit());
    let target = linked_named(linked, &args.target)?;
    if args.time.is_none() && args.execs.is_none() {
        return Err(Diagnostic::error("give a budget: --time or --execs").into());
    }
    let summary = run_baseline(BaselineConfig {
        target,
        grammar: args.grammar,
        bounds: args.bounds,
        out: args.out,
        seed: args.seed,
        time: args.time,
        execs: args.execs,
        timeout: std::time::Duration::from_millis(args.timeout_ms.max(1)),
        tree_size: args.tree_size,
    })?;
    if args.json {
        println!("{}", serde_json::to_string(&summary).expect("plain data"));
    } else {
        eprintln!(
            "nautilus: {} execs ({:.0}/s), {} edges, corpus {} ({:.1}% valid), \
             {} crashes and {} hangs ({} faulting executions); output in {}",
            summary.execs,
            summary.execs_per_sec,
            summary.edges,
            summary.corpus,
            100.0 * summary.valid_share,
            summary.crashes,
            summary.hangs,
            summary.fault_executions,
            summary.out.display()
        );
    }
    Ok(())
}
