//! Argument parsing and dispatch. Every error a user can cause ends here as a located message
//! on stderr and exit code 2.

mod campaign;
mod cover;
mod coverage;
mod covers;
mod export;
mod faults;
mod fuzz;
mod fuzz_child;
mod generate;
mod grammar_check;
mod grammar_convert;
mod grammar_duplicate;
mod import;
mod load;
mod negative;
mod parse;
mod plugin;
mod recorded_target;
mod reduce;
mod reduce_corpus;
mod replay;
mod report;
mod seed;
mod targets;
mod validity;

pub use plugin::{LinkedTarget, linked_named};

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Subcommand};

use crate::diagnostic::Diagnostics;

/// Grammar-based, coverage-guided fuzzing that grows small, readable regression corpora.
#[derive(clap::Parser)]
#[command(name = "bonsai", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Work with grammar files.
    Grammar {
        #[command(subcommand)]
        command: GrammarCommand,
    },
    /// Generate inputs from a grammar within bounds, or replay a saved choice sequence.
    Generate(generate::GenerateArgs),
    /// List the targets that can be fuzzed; with --target, check that one is instrumented.
    Targets(targets::TargetsArgs),
    /// Accept or reject text files against a grammar; save their choice sequences.
    Parse(parse::ParseArgs),
    /// Turn a directory of text seeds into a corpus of choice sequences, with a report.
    Import(import::ImportArgs),
    /// Measure which share of a grammar's inputs a target accepts, and where it refuses them.
    Validity(validity::ValidityArgs),
    /// Reduce an input to the smallest one that keeps a criterion (HDD and/or ddmin).
    Reduce(reduce::ReduceArgs),
    /// Reduce every input of a fuzzing queue, each keeping the coverage it contributed.
    ReduceCorpus(reduce_corpus::ReduceCorpusArgs),
    /// Exit 0 if a candidate keeps an original input's coverage (reduce's criterion), 1 if not:
    /// the test command of an external reducer.
    Covers(covers::CoversArgs),
    /// How well inputs cover the grammar: symbol, rule, context-dependent rule and k-path
    /// coverage, with what no input produced.
    Coverage(coverage::CoverageArgs),
    /// Write a small suite of short words that satisfies a grammar coverage criterion.
    Cover(cover::CoverArgs),
    /// Write words outside the grammar's language, each with where a parser must reject it.
    Negative(negative::NegativeArgs),
    /// Fuzz an instrumented target with inputs from a grammar, within bounds.
    Fuzz(fuzz::FuzzArgs),
    /// A fuzzing run its parent process configured (a campaign's node, a multi-core run's
    /// client); not for users.
    #[command(name = crate::fuzz::CHILD_COMMAND, hide = true)]
    FuzzChild(fuzz_child::FuzzChildArgs),
    /// Run the Bonsai lattice of fuzzers: every F(m,n,d,v) up to max bounds, seeded by its
    /// predecessors; resumable with --resume.
    Campaign(campaign::CampaignArgs),
    /// Run every input of a corpus through the target; show verdicts and coverage.
    Replay(replay::ReplayArgs),
    /// List a run's faults, one per bug (kind, location, count, reproducer, stack), across
    /// its nodes, clients and machines; turn them into regression tests.
    Faults(faults::FaultsArgs),
    /// Export a campaign's corpus as readable files with a manifest (regression/golden tests).
    Export(export::ExportArgs),
    /// Write report.md and report.html (with SVG plots) for a campaign or a fuzzing run.
    Report(report::ReportArgs),
}

#[derive(Subcommand)]
enum GrammarCommand {
    /// Check a grammar and print a summary of it.
    Check(grammar_check::CheckArgs),
    /// Write a grammar of any supported format in another format.
    Convert(grammar_convert::ConvertArgs),
    /// Duplicate the context of a rule's alternative, so coverage counts it apart.
    DuplicateContext(grammar_duplicate::DuplicateArgs),
}

/// What a command reports when it cannot do its job.
pub enum Failure {
    /// Bad input from the user: exit code 2.
    Usage(Diagnostics),
    /// The command ran but the answer is "no", such as a replay outside the bounds: exit 1.
    Negative(String),
}

impl From<Diagnostics> for Failure {
    fn from(d: Diagnostics) -> Self {
        Failure::Usage(d)
    }
}

impl From<crate::diagnostic::Diagnostic> for Failure {
    fn from(d: crate::diagnostic::Diagnostic) -> Self {
        Failure::Usage(d.into())
    }
}

/// That the grammar file and every seed directory a fuzzing command was given exist, before
/// anything is started: a typo then gets a located error and exit code 2, not a run that dies
/// in a child process.
fn require_grammar_and_seeds(
    grammar: &std::path::Path,
    seeds: &[std::path::PathBuf],
) -> Result<(), Failure> {
    use crate::diagnostic::Diagnostic;
    if !grammar.is_file() {
        return Err(Diagnostic::error("grammar file not found")
            .in_file(grammar)
            .into());
    }
    for dir in seeds {
        if !dir.is_dir() {
            return Err(Diagnostic::error("seed directory not found")
                .in_file(dir)
                .into());
        }
    }
    Ok(())
}

/// The log filter: `BONSAI_LOG` (`warn`, `debug`, `bonsai::fuzz=debug`, ...) when it is set and
/// valid, else Bonsai's information and everyone's warnings. LibAFL's own log stays off
/// unless `BONSAI_LOG` names it: at `warn` it reports every fault of the target as an error
/// of its own ("Crashed with SIGABRT", "Child crashed!", the input's hash), lines per fault
/// that the saved fault describes better.
fn log_filter(setting: Option<&str>) -> tracing_subscriber::EnvFilter {
    let default = || tracing_subscriber::EnvFilter::new("warn,bonsai=info,libafl=off");
    let Some(setting) = setting else {
        return default();
    };
    let setting = if setting.contains("libafl") {
        setting.to_string()
    } else {
        format!("{setting},libafl=off")
    };
    tracing_subscriber::EnvFilter::try_new(setting).unwrap_or_else(|_| default())
}

/// A subcommand that a crate outside the engine adds to a target binary's command line
/// (see [`crate::target_main!`]). Experiments such as the Nautilus baseline (`bonsai-baseline`)
/// come in this way, so that the engine neither contains them nor builds what only they need,
/// while `bonsai-T CMD` and `bonsai CMD --target T` reach them as they reach every command.
#[derive(Clone, Copy)]
pub struct ExtraCommand {
    /// The subcommand's name, help and arguments (for example `Args::augment_args` applied to
    /// a new `clap::Command`).
    pub command: fn() -> clap::Command,
    /// Runs it with the arguments clap matched and the binary's target.
    pub run: fn(&clap::ArgMatches, Option<LinkedTarget>) -> Result<(), Failure>,
}

/// Where the user guide says more than `--help` can: the book's reference page of each
/// command (docs/book/src/reference/NAME.md, `grammar check` as grammar-check.md), named under
/// its help, and the book itself under the top-level help.
fn with_guide(command: clap::Command) -> clap::Command {
    fn pages(command: clap::Command, prefix: &str) -> clap::Command {
        let names: Vec<String> = command
            .get_subcommands()
            .map(|sub| sub.get_name().to_string())
            .collect();
        names.into_iter().fold(command, |command, name| {
            let page = format!("{prefix}{name}");
            command.mut_subcommand(&name, |sub| {
                let sub = if sub.has_subcommands() {
                    pages(sub, &format!("{page}-"))
                } else {
                    sub
                };
                sub.after_help(format!("Reference: {GUIDE}/reference/{page}.md"))
            })
        })
    }
    pages(command, "").after_help(format!(
        "The user guide: {GUIDE}/SUMMARY.md, one reference page per command in {GUIDE}/reference/"
    ))
}

/// The user guide's sources, as a path in Bonsai's repository.
const GUIDE: &str = "docs/book/src";

/// The `bonsai` binary: no target linked in; `--target NAME` is forwarded to `bonsai-NAME`.
pub fn run() -> ExitCode {
    run_with(None, &[])
}

/// The command line of a binary with `linked` compiled in and the subcommands `extra` added
/// (see [`crate::target_main!`]).
pub fn run_with(linked: Option<LinkedTarget>, extra: &[ExtraCommand]) -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(log_filter(std::env::var("BONSAI_LOG").ok().as_deref()))
        .with_writer(std::io::stderr)
        // Colour only on a terminal, and never under NO_COLOR: campaign node logs and
        // redirected output were full of escape codes.
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        )
        .init();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(name) = plugin::requested_target(&args)
        && linked.is_none_or(|t| t.name != name)
    {
        return report(Err(plugin::forward(&name, &args).into()));
    }
    let matches = with_guide(extra.iter().fold(Cli::command(), |command, e| {
        command.subcommand((e.command)())
    }))
    .get_matches_from(args);
    if let Some((name, sub)) = matches.subcommand()
        && let Some(e) = extra.iter().find(|e| (e.command)().get_name() == name)
    {
        return report((e.run)(sub, linked));
    }
    let cli =
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.format(&mut Cli::command()).exit());
    let result = match cli.command {
        Command::Grammar {
            command: GrammarCommand::Check(args),
        } => grammar_check::run(args),
        Command::Grammar {
            command: GrammarCommand::Convert(args),
        } => grammar_convert::run(args),
        Command::Grammar {
            command: GrammarCommand::DuplicateContext(args),
        } => grammar_duplicate::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Targets(args) => targets::run(args, linked),
        Command::Parse(args) => parse::run(args),
        Command::Import(args) => import::run(args),
        Command::Validity(args) => validity::run(args, linked),
        Command::Reduce(args) => reduce::run(args, linked),
        Command::ReduceCorpus(args) => reduce_corpus::run(args, linked),
        Command::Covers(args) => covers::run(args, linked),
        Command::Coverage(args) => coverage::run(args),
        Command::Cover(args) => cover::run(args),
        Command::Negative(args) => negative::run(args, linked),
        Command::Fuzz(args) => fuzz::run(args, linked),
        Command::FuzzChild(args) => fuzz_child::run(args, linked),
        Command::Campaign(args) => campaign::run(args, linked),
        Command::Replay(args) => replay::run(args, linked),
        Command::Faults(args) => faults::run(args),
        Command::Export(args) => export::run(args, linked),
        Command::Report(args) => report::run(args, linked),
    };
    report(result)
}

fn report(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(diagnostics)) => {
            eprintln!("{diagnostics}");
            ExitCode::from(2)
        }
        Err(Failure::Negative(message)) => {
            eprintln!("{message}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command's help names its reference page, and the page exists: a command added
    /// or renamed without its page fails here, not in a user's hands.
    #[test]
    fn every_command_s_help_names_a_reference_page_that_exists() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let command =
            with_guide(Cli::command().subcommand(clap::Command::new("baseline-nautilus")));
        let mut pages = Vec::new();
        fn collect(command: &clap::Command, pages: &mut Vec<String>) {
            // A hidden command is no user's, and has no page.
            for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
                if sub.has_subcommands() {
                    collect(sub, pages);
                } else {
                    pages.push(sub.get_after_help().expect("a reference page").to_string());
                }
            }
        }
        collect(&command, &mut pages);
        assert!(pages.len() > 20, "{pages:?}");
        for page in &pages {
            let path = page.strip_prefix("Reference: ").expect(page);
            assert!(
                root.join(path).is_file(),
                "{path} is named in --help but missing"
            );
        }
        assert!(pages.contains(&format!("Reference: {GUIDE}/reference/grammar-check.md")));
        let top = command.get_after_help().unwrap().to_string();
        assert!(root.join(GUIDE).join("SUMMARY.md").is_file(), "{top}");
    }

    #[test]
    fn libafl_logs_only_when_named() {
        let shown = |setting: Option<&str>| log_filter(setting).to_string();
        assert!(shown(None).contains("libafl=off"), "{}", shown(None));
        assert!(shown(Some("warn")).contains("libafl=off"));
        assert!(shown(Some("debug")).contains("libafl=off"));
        let named = shown(Some("warn,libafl=error"));
        assert!(
            named.contains("libafl=error") && !named.contains("libafl=off"),
            "{named}"
        );
    }
}
