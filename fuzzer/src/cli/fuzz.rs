//! `bonsai fuzz`: one coverage-guided campaign against an instrumented target.

use std::path::PathBuf;

use clap::Args;

use super::{Failure, LinkedTarget};
use crate::diagnostic::Diagnostic;
use crate::feedback::{CoverageGrain, SaveCriteria};
use crate::fuzz::{
    FuzzConfig, MultiCore, Network, Saturation, StopCondition, Summary, parse_duration,
};
use crate::sampler::Bounds;
use crate::schedule::{ChildrenRule, SchedulerKind};

#[derive(Args)]
pub struct FuzzArgs {
    /// The target to fuzz (runs the binary bonsai-TARGET).
    #[arg(long)]
    target: String,
    /// The grammar inputs are generated from.
    #[arg(long, value_name = "FILE")]
    grammar: PathBuf,
    /// Bounds M,N,D: pool values, items per repetition, nesting depth (default: bounds for finding
    /// bugs).
    #[arg(long, value_name = "M,N,D", value_parser = Bounds::parse_arg)]
    bounds: Option<Bounds>,
    /// Keep only inputs the target accepts (restricted mode).
    #[arg(long)]
    valid_only: bool,
    /// What keeps an input: counts (a new edge or hit-count class) or edges (a new edge only).
    #[arg(long, value_name = "GRAIN", default_value = "counts")]
    save_on: CoverageGrain,
    /// Seed from the .choices files of this directory (or a fuzzing output); may be repeated.
    #[arg(long, value_name = "DIR")]
    seeds: Vec<PathBuf>,
    /// Also seed from the cover suite of this grammar coverage criterion, built under --bounds.
    #[arg(long, value_name = "CRITERION")]
    seed_cover: Option<crate::coverage::Criterion>,
    /// Also keep inputs whose derivation holds a new path of K grammar symbols (kpath:K).
    #[arg(long, value_name = "kpath:K", value_parser = parse_grammar_feedback)]
    grammar_feedback: Option<usize>,
    /// Stop after this long: 30s, 10m, 2h.
    #[arg(long, value_parser = parse_duration)]
    time: Option<std::time::Duration>,
    /// Stop after this many executions.
    #[arg(long, value_name = "N")]
    execs: Option<u64>,
    /// Stop when no new edge was found for this long.
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    saturate_time: Option<std::time::Duration>,
    /// Stop when no new edge was found for this many executions.
    #[arg(long, value_name = "N")]
    saturate_execs: Option<u64>,
    /// Output directory (queue/, crashes/, hangs/); an earlier output of the same run is resumed.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Per-execution timeout in milliseconds; longer runs are saved in hangs/.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    timeout_ms: u64,
    /// Memory the target may allocate per execution (2G, 512M, 0: no limit); more is an oom crash.
    #[arg(long, value_name = "SIZE", default_value = "2G", value_parser = parse_size)]
    mem_limit: usize,
    /// Texts longer than this (64K, 1M, ...) are not run, and counted as too_long.
    #[arg(long, value_name = "SIZE", default_value = "64K", value_parser = parse_size)]
    max_len: usize,
    /// The stack the target runs on (8M, 64M, ...), as a user's main thread has it.
    #[arg(long, value_name = "SIZE", default_value = "8M", value_parser = parse_size)]
    stack: usize,
    /// Also keep inputs that set a new record of time per byte.
    #[arg(long, value_name = "BOOL", default_value_t = false, action = clap::ArgAction::Set)]
    keep_slow: bool,
    /// Check the target's answers with its oracles.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    oracles: bool,
    /// With --cores: send what was new in each entry's coverage along, so clients run only what is news to them.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    share_coverage: bool,
    /// The mutators to use, comma-separated (default: all); for ablations.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_mutator)]
    mutators: Option<Vec<String>>,
    /// Scheduler: zest (cycling queue, favored entries, energy) or minimizer (LibAFL's).
    #[arg(long, default_value = "zest")]
    scheduler: SchedulerKind,
    /// With zest: children per pick, zest (Zest's energy), spread:N or flat:N; for ablations.
    #[arg(long, value_name = "RULE", default_value = "zest")]
    children: ChildrenRule,
    /// With zest: the share of picks (0 to 1) that take the newest entry never picked.
    #[arg(long, value_name = "SHARE", default_value_t = 0.0)]
    newest_first: f64,
    /// Record the first N executions, then replay them through a bare loop to measure overhead.
    #[arg(long, value_name = "N")]
    measure_overhead: Option<usize>,
    /// With --measure-overhead: start recording after this many executions.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        requires = "measure_overhead"
    )]
    measure_overhead_after: usize,
    /// Runs of the target each new crash may spend on a reduced reproducer; 0 turns it off.
    #[arg(long, value_name = "N", default_value_t = crate::triage::DEFAULT_CRASH_TESTS)]
    reduce_crashes: u64,
    /// Runs of the target each new queue entry may spend on being trimmed; 0 keeps it as found.
    #[arg(long, value_name = "N", default_value_t = 0)]
    trim_tests: u64,
    /// Fuzz with one client per core (0-3, 0,2, all), sharing new entries over LLMP.
    #[arg(long, value_name = "LIST", value_parser = parse_cores)]
    cores: Option<CoreList>,
    /// The TCP port of this run's LLMP broker (with --cores), on every interface.
    #[arg(long, value_name = "PORT", default_value_t = crate::fuzz::DEFAULT_BROKER_PORT)]
    broker_port: u16,
    /// Join another machine's run through its broker at HOST:PORT (implies --cores 0).
    #[arg(long, value_name = "HOST:PORT")]
    connect: Option<String>,
    /// Print the final summary as one line of JSON on stdout.
    #[arg(long)]
    json: bool,
}

pub fn run(args: FuzzArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let target = super::plugin::linked_named(linked, &args.target)?;
    // For a person at a terminal; a campaign's nodes (logs, not terminals) would repeat it.
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        crate::target::warn_if_only_the_harness_is_counted();
    }
    if args.timeout_ms == 0 {
        return Err(Diagnostic::error("--timeout-ms must be at least 1").into());
    }
    super::require_grammar_and_seeds(&args.grammar, &args.seeds)?;
    let mut config = FuzzConfig::new(
        target,
        args.grammar,
        args.bounds.unwrap_or(crate::bounds::BUG_FINDING),
        args.out,
    );
    config.criteria = if args.valid_only {
        SaveCriteria::ValidOnly
    } else {
        SaveCriteria::Zest
    };
    config.grain = args.save_on;
    config.seeds = args.seeds;
    config.seed_cover = args.seed_cover;
    config.grammar_feedback = args.grammar_feedback;
    config.seed = args.seed;
    config.stop = StopCondition {
        time: args.time,
        execs: args.execs,
        saturation: Saturation {
            time: args.saturate_time,
            execs: args.saturate_execs,
        },
    };
    config.timeout = std::time::Duration::from_millis(args.timeout_ms);
    config.memory_limit = (args.mem_limit > 0).then_some(args.mem_limit);
    config.max_len = args.max_len;
    config.keep_slow = args.keep_slow;
    config.oracles = args.oracles;
    config.share_coverage = args.share_coverage;
    config.mutators = args.mutators;
    config.scheduler = args.scheduler;
    config.children = args.children;
    config.newest_first = args.newest_first;
    config.show_status = true;
    config.measure_overhead = args.measure_overhead;
    config.measure_overhead_after = args.measure_overhead_after;
    config.reduce_crash_tests = args.reduce_crashes;
    config.trim_tests = args.trim_tests;
    config.stack = args.stack;
    let cores = match (&args.cores, &args.connect) {
        (Some(cores), _) => Some(cores.0.clone()),
        (None, Some(_)) => Some(vec![0]),
        (None, None) => None,
    };
    config.multi_core = cores.map(|cores| MultiCore {
        cores,
        network: Network {
            broker_port: args.broker_port,
            connect: args.connect.clone(),
        },
    });
    if config.multi_core.is_some() && config.measure_overhead.is_some() {
        return Err(
            Diagnostic::error("--measure-overhead needs a single core: leave out --cores").into(),
        );
    }
    let summary = crate::fuzz::run(config)?;
    print_summary(&summary, args.json);
    Ok(())
}

/// The end of a run for whoever started it: the summary as one line of JSON on stdout with
/// `json`, or in words on stderr.
pub(super) fn print_summary(summary: &Summary, json: bool) {
    if let Some(o) = &summary.overhead {
        eprintln!(
            "overhead over {} inputs: fuzzer {:.0} execs/s, bare loop {:.0} execs/s, ratio {:.3}",
            o.inputs, o.fuzz_execs_per_sec, o.bare_execs_per_sec, o.ratio
        );
    }
    if json {
        println!(
            "{}",
            serde_json::to_string(&summary).expect("plain data serializes")
        );
    } else {
        eprintln!(
            "{} execs ({:.0}/s), {} edges, corpus {} ({:.0}% valid), {} crashes, {} hangs, {} out-of-memory, {} wrong answers; stopped on {}; output in {}",
            summary.execs,
            summary.execs_per_sec,
            summary.edges,
            summary.corpus,
            100.0 * summary.valid_share,
            summary.crashes,
            summary.hangs,
            summary.ooms,
            summary.wrong_answers,
            summary.stop,
            summary.out.display()
        );
    }
}

/// A list of cores as `taskset` and LibAFL take it: `all`, `3`, `0-3`, `0,2,5-7`. Each must
/// exist on this machine; a core named twice runs two clients (LibAFL's overcommit).
fn parse_cores(text: &str) -> Result<CoreList, String> {
    let available = std::thread::available_parallelism().map_or(1, usize::from);
    if text.trim() == "all" {
        return Ok(CoreList((0..available).collect()));
    }
    let bad = || format!("expected cores such as 0-3, 0,2 or all, got '{text}'");
    let mut cores = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<usize>(), b.trim().parse::<usize>()),
            None => (part.parse::<usize>(), part.parse::<usize>()),
        };
        let (Ok(first), Ok(last)) = (first, last) else {
            return Err(bad());
        };
        if first > last {
            return Err(bad());
        }
        for core in first..=last {
            if core >= available {
                return Err(format!(
                    "there is no core {core}: this machine has {available} (0-{})",
                    available - 1
                ));
            }
            cores.push(core);
        }
    }
    Ok(CoreList(cores))
}

/// The cores of `--cores`, one value to clap.
#[derive(Clone, Debug)]
struct CoreList(Vec<usize>);

/// A byte count as users write it: `2G`, `512M`, `64K`, `1000`.
fn parse_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let (number, shift) = match text.char_indices().last() {
        Some((i, 'K' | 'k')) => (&text[..i], 10),
        Some((i, 'M' | 'm')) => (&text[..i], 20),
        Some((i, 'G' | 'g')) => (&text[..i], 30),
        _ => (text, 0),
    };
    let value: usize = number
        .parse()
        .map_err(|_| format!("expected a size such as 2G, 512M or 64K, got '{text}'"))?;
    value
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("size '{text}' is too large"))
}

fn parse_mutator(name: &str) -> Result<String, String> {
    if crate::mutators::MUTATOR_NAMES.contains(&name) {
        Ok(name.to_string())
    } else {
        Err(format!(
            "unknown mutator '{name}' (expected one of: {})",
            crate::mutators::MUTATOR_NAMES.join(", ")
        ))
    }
}

/// `kpath:K` as the K of `--grammar-feedback`; the other criteria are not feedbacks (yet).
pub(super) fn parse_grammar_feedback(text: &str) -> Result<usize, String> {
    match text.parse::<crate::coverage::Criterion>() {
        Ok(crate::coverage::Criterion::KPath(k)) => Ok(k),
        Ok(other) => Err(format!(
            "{other} is not a feedback; --grammar-feedback takes kpath:K"
        )),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_cores, parse_size};

    #[test]
    fn core_lists_parse_as_taskset_takes_them() {
        let available = std::thread::available_parallelism().map_or(1, usize::from);
        assert_eq!(parse_cores("0").unwrap().0, vec![0]);
        assert_eq!(parse_cores("0,0").unwrap().0, vec![0, 0]);
        assert_eq!(
            parse_cores("all").unwrap().0,
            (0..available).collect::<Vec<_>>()
        );
        assert_eq!(
            parse_cores(&format!("0-{}", available - 1)).unwrap().0,
            (0..available).collect::<Vec<_>>()
        );
        for bad in ["", "x", "1-0", "0,,1", "-1"] {
            assert!(parse_cores(bad).is_err(), "{bad}");
        }
        let missing = parse_cores(&available.to_string()).unwrap_err();
        assert!(missing.contains("there is no core"), "{missing}");
    }

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("0"), Ok(0));
        assert!(parse_size("2X").is_err());
        assert!(parse_size("G").is_err());
    }
}
