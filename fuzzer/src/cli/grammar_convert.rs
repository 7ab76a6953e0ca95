//! `bonsai grammar convert IN --to ebnf|antlr|fuzzingbook [--out FILE]`: any grammar the tool
//! reads, written in the native format (to edit an imported grammar by hand), as an ANTLR4
//! grammar (for ANTLR-based tools such as picireny) or as a fuzzingbook JSON grammar (to run
//! the book's fuzzers on the same language, as scripts/suite-table does).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::Failure;
use super::load::load_grammar;
use crate::bounds::Bounds;
use crate::convert::{is_antlr_identifier, to_antlr, to_ebnf, to_fuzzingbook};
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;

// The values' descriptions are plain comments: as doc comments, clap would print them
// under the option and turn all of --help into its long form. The book's page has them.
#[derive(Clone, Copy, ValueEnum)]
pub enum Target {
    // Bonsai's native EBNF (grammars/README.md).
    Ebnf,
    // An ANTLR4 combined grammar that accepts the texts Bonsai generates; grammars with
    // INDENT/DEDENT also get NAMEIndentation.py, their lexer's indentation for the Python 3
    // target, next to it.
    Antlr,
    // The fuzzingbook's JSON grammar (`{"<start>": ["<expr>"], ...}`) whose expansions
    // concatenate to exactly the texts Bonsai renders, layout included.
    Fuzzingbook,
}

#[derive(Args)]
pub struct ConvertArgs {
    /// The grammar: native .ebnf, ANTLR4 .g4, tree-sitter grammar.json or fuzzingbook .json.
    file: PathBuf,
    /// The format to write.
    #[arg(long, value_enum)]
    to: Target,
    /// Write here (atomically) instead of to stdout; an ANTLR grammar's file must be NAME.g4.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// For --to fuzzingbook: a pool offers its first M values (default 1,1,1; N and D do not
    /// apply).
    #[arg(long, value_name = "M,N,D", value_parser = Bounds::parse_arg)]
    bounds: Option<Bounds>,
}

pub fn run(args: ConvertArgs) -> Result<(), Failure> {
    let (grammar, _analysis) = load_grammar(&args.file)?;
    let located = |d: Diagnostic| match d.location {
        Some(_) => d,
        None => d.in_file(&args.file),
    };
    if args.bounds.is_some() && !matches!(args.to, Target::Fuzzingbook) {
        return Err(Diagnostic::error(
            "--bounds applies to --to fuzzingbook only: the other formats keep pools whole",
        )
        .into());
    }
    match args.to {
        Target::Fuzzingbook => {
            let bounds = match args.bounds {
                Some(bounds) => bounds,
                None => Bounds::new(1, 1, 1)
                    .map_err(|e| Diagnostic::error(format!("internal error: {e}")))?,
            };
            let converted = to_fuzzingbook(&grammar, bounds).map_err(located)?;
            emit(args.out.as_deref(), &converted.to_json())
        }
        Target::Ebnf => emit(args.out.as_deref(), &to_ebnf(&grammar)),
        Target::Antlr => {
            let name = antlr_name(&grammar, args.out.as_deref())?;
            let exported = to_antlr(&grammar, &name).map_err(located)?;
            match (&args.out, &exported.indentation) {
                (None, Some((module, _))) => Err(Diagnostic::error(format!(
                    "the grammar uses INDENT/DEDENT, so its ANTLR lexer needs {module} beside \
                     the grammar: give --out {name}.g4 to write both"
                ))
                .in_file(&args.file)
                .into()),
                (Some(out), Some((module, text))) => {
                    emit(Some(out), &exported.text)?;
                    let path = out.parent().unwrap_or(Path::new("")).join(module);
                    crate::write_atomic(&path, text.as_bytes())?;
                    eprintln!(
                        "wrote {} and {} (its lexer's indentation, for ANTLR's Python 3 target); \
                         start rule: {}",
                        out.display(),
                        path.display(),
                        exported.start_rule
                    );
                    Ok(())
                }
                (out, None) => emit(out.as_deref(), &exported.text),
            }
        }
    }
}

/// The ANTLR grammar's name: its file's stem, which ANTLR requires to be the grammar's name;
/// on stdout, the Bonsai grammar's name made into an ANTLR name.
fn antlr_name(grammar: &Grammar, out: Option<&Path>) -> Result<String, Diagnostic> {
    let Some(out) = out else {
        let mut name: String = grammar
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            name.insert(0, 'G');
        }
        return Ok(name);
    };
    let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned());
    match stem {
        Some(stem) if is_antlr_identifier(&stem) && out.extension().is_some_and(|e| e == "g4") => {
            Ok(stem)
        }
        _ => Err(Diagnostic::error(
            "an ANTLR grammar is named after its file: write it to NAME.g4, where NAME is a \
             letter followed by letters, digits or '_'",
        )
        .in_file(out)),
    }
}

pub(super) fn emit(out: Option<&Path>, text: &str) -> Result<(), Failure> {
    match out {
        Some(path) => crate::write_atomic(path, text.as_bytes())?,
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| Diagnostic::error(format!("cannot write to stdout: {e}")))?,
    }
    Ok(())
}
