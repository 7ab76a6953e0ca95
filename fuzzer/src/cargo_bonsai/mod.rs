//! `cargo bonsai`: fuzzing a compiler from its own repository, the way `cargo fuzz` users do.
//! `init` writes the harness crate, `build` compiles it with the user's crates instrumented
//! and nothing else, and every other command goes to the built target binary. The same
//! binary is also the rustc wrapper of its own builds ([`instrument`]), so that nothing of
//! Bonsai's repository (its `.cargo/config.toml`, scripts/rustc-wrapper, the crate list in
//! scripts/instrumented-crates) is needed or edited.

mod compile;
mod dependency_graph;
mod forward;
mod harness;
mod init;
pub mod instrument;
pub mod uninstrumented;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::diagnostic::Diagnostic;
pub use harness::{BIN_DIR, HARNESS_DIR};
use init::{Engine, GrammarSource, InitOptions};

/// The engine this program was built from, the default dependency of the harnesses it makes.
const ENGINE_DIR: &str = env!("CARGO_MANIFEST_DIR");

/// cargo runs `cargo-bonsai bonsai ARGS` for `cargo bonsai ARGS`.
#[derive(Parser)]
#[command(name = "cargo", bin_name = "cargo")]
enum Cargo {
    /// Fuzz your crate with Bonsai from its own repository.
    #[command(
        version,
        subcommand_required = true,
        after_help = "Any other command (fuzz, campaign, replay, export, report, reduce, validity, \
                      targets, ...) is Bonsai's, run by the target binary `cargo bonsai build` \
                      made, with --target and (for fuzz and campaign) --grammar filled in: \
                      `cargo bonsai fuzz --bounds 3,3,4 --time 10m --out bonsai/out/fuzz`."
    )]
    Bonsai {
        #[command(subcommand)]
        command: Command,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Create bonsai/, a harness crate for your crate: Cargo.toml, src/main.rs with
    /// target_main!, the grammar, a .gitignore.
    Init(Box<InitArgs>),
    /// Build the harness with SanitizerCoverage on your workspace's crates (and the crates
    /// [package.metadata.bonsai] instrument adds), never on the engine or LibAFL.
    Build(BuildArgs),
    /// Any other Bonsai command (fuzz, campaign, replay, export, report, reduce, validity,
    /// targets, ...), run by the built target binary with --target and --grammar filled in.
    #[command(external_subcommand)]
    Forward(Vec<OsString>),
}

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("grammar_source").args(["grammar", "tree_sitter", "antlr"])))]
#[command(group(clap::ArgGroup::new("engine_source").args(["engine_path", "engine_git"])))]
struct InitArgs {
    /// A grammar file in any format Bonsai reads (native .ebnf, tree-sitter grammar.json,
    /// fuzzingbook .json), copied into bonsai/. Without a grammar option, a starter grammar.
    #[arg(long, value_name = "FILE")]
    grammar: Option<PathBuf>,
    /// A tree-sitter grammar crate among your workspace's dependencies: its src/grammar.json.
    #[arg(long, value_name = "CRATE")]
    tree_sitter: Option<String>,
    /// An ANTLR4 grammar, copied into bonsai/.
    #[arg(long, value_name = "FILE.g4")]
    antlr: Option<PathBuf>,
    /// The package to fuzz, when the workspace has several libraries.
    #[arg(long)]
    package: Option<String>,
    /// The target's name (the binary is bonsai-NAME); by default the library's crate name.
    #[arg(long)]
    name: Option<String>,
    /// A function of your crate, `fn(&str) -> Result<_, E>` with E: Display, for the harness
    /// to call (such as `my_lang::check`); without it the harness has a marked place for it.
    #[arg(long, value_name = "PATH")]
    call: Option<String>,
    /// A printer of your crate, `fn(&str) -> Result<String, E>` with E: Display (such as
    /// `my_lang::print`): for every input --call accepts, the print must be accepted too and
    /// printing it again must give it back. A violation is saved as a `roundtrip` fault.
    #[arg(long, value_name = "PATH")]
    roundtrip: Option<String>,
    /// A second implementation with --call's signature: the two must agree on accept or
    /// reject. A disagreement is saved as a `differential` fault.
    #[arg(long, value_name = "PATH")]
    differential: Option<String>,
    /// Depend on the engine at this path (default: the checkout cargo-bonsai was built from).
    #[arg(long, value_name = "DIR")]
    engine_path: Option<PathBuf>,
    /// Depend on the engine from this git repository instead.
    #[arg(long, value_name = "URL")]
    engine_git: Option<String>,
    /// With --engine-git, this revision.
    #[arg(long, value_name = "REV", requires = "engine_git")]
    engine_rev: Option<String>,
    /// Crates to instrument besides your workspace's members, such as the parser your crate
    /// wraps (crate names as rustc sees them; repeat or separate with commas). Written to
    /// `instrument = [...]` in bonsai/Cargo.toml.
    #[arg(long, value_name = "CRATE", value_delimiter = ',')]
    instrument: Vec<String>,
    /// Also link LibAFL's Nautilus fuzzer into the harness, for `cargo bonsai
    /// baseline-nautilus`: the same grammar, target and timeout, to compare against.
    #[arg(long)]
    with_baseline: bool,
}

#[derive(clap::Args)]
struct BuildArgs {
    /// Build with optimisations (what fuzzing wants; debug builds are for trying the harness).
    #[arg(long)]
    release: bool,
    /// Further arguments for `cargo build`, after `--`.
    #[arg(last = true)]
    cargo_args: Vec<String>,
}

/// The entry point of `cargo-bonsai`.
pub fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if let Some(list) = std::env::var_os(instrument::LIST_VAR) {
        instrument::wrap(&args, &list.to_string_lossy());
    }
    // Run as `cargo-bonsai ...` by hand, the `bonsai` cargo would insert is missing.
    let args = if args.get(1).is_some_and(|a| a == "bonsai") {
        args
    } else {
        let mut with = vec![args.first().cloned().unwrap_or_default(), "bonsai".into()];
        with.extend(args.into_iter().skip(1));
        with
    };
    let Cargo::Bonsai { command } = Cargo::parse_from(args);
    match run(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(diagnostic) => {
            eprintln!("{diagnostic}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> Result<(), Diagnostic> {
    let here = std::env::current_dir()
        .map_err(|e| Diagnostic::error(format!("cannot read the current directory: {e}")))?;
    match command {
        Command::Init(args) => {
            let grammar = match (args.grammar, args.tree_sitter, args.antlr) {
                (Some(file), _, _) => GrammarSource::File(file),
                (_, Some(krate), _) => GrammarSource::TreeSitterCrate(krate),
                (_, _, Some(file)) if file.extension().is_some_and(|e| e == "g4") => {
                    GrammarSource::File(file)
                }
                (_, _, Some(file)) => {
                    return Err(
                        Diagnostic::error("--antlr takes an ANTLR4 grammar, FILE.g4")
                            .in_file(&file),
                    );
                }
                (None, None, None) => GrammarSource::Starter,
            };
            let engine = match (args.engine_path, args.engine_git) {
                (Some(path), _) => Engine::Path(std::path::absolute(&path).unwrap_or(path)),
                (_, Some(url)) => Engine::Git {
                    url,
                    rev: args.engine_rev,
                },
                (None, None) => Engine::Path(PathBuf::from(ENGINE_DIR)),
            };
            let calls = args.call.is_some();
            let dir = init::init(&InitOptions {
                root: here,
                package: args.package,
                name: args.name,
                grammar,
                engine,
                call: args.call,
                oracles: init::Oracles {
                    roundtrip: args.roundtrip,
                    differential: args.differential,
                },
                instrument: args.instrument,
                baseline: args.with_baseline,
            })?;
            println!("{}", init::created_message(&dir, calls));
            Ok(())
        }
        Command::Build(args) => {
            let harness = harness::Harness::find(&here)?;
            let built = compile::build(&harness, args.release, &args.cargo_args)?;
            println!("{}", built.binary.display());
            eprintln!(
                "built bonsai-{} with {} instrumented; its counters:",
                harness.target,
                built.instrumented.join(", ")
            );
            if let Some(warning) = bulk_warning(&built) {
                eprintln!("warning: {warning}");
            }
            // The binary's own account of its counters, per crate, with its warnings.
            let status = std::process::Command::new(harness.binary())
                .args(["targets", "--target", &harness.target])
                .status()
                .map_err(|e| Diagnostic::error(format!("cannot run the built binary: {e}")))?;
            if status.success() {
                Ok(())
            } else {
                Err(Diagnostic::error(
                    "the built binary has no edge counters: are your crates linked into the \
                     harness (src/main.rs must call them)?",
                )
                .in_file(&harness.binary()))
            }
        }
        Command::Forward(args) => {
            let harness = harness::Harness::find(&here)?;
            Err(forward::run(&harness, &args))
        }
    }
}

/// [`uninstrumented::bulk_warning`] for a build: the code per crate from the binary. Nothing
/// when it cannot be read (the warning is advice, never a reason to fail a build).
fn bulk_warning(built: &compile::Built) -> Option<String> {
    let code = uninstrumented::code_per_crate(&built.binary)?;
    uninstrumented::bulk_warning(&code, &built.direct_dependencies, &built.instrumented)
}
