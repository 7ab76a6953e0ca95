//! `bonsai grammar convert IN --to ebnf [--out FILE]`: any grammar the tool reads, written in
//! the native format, so that an imported grammar can be edited by hand.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::Failure;
use super::load::load_grammar;
use crate::diagnostic::Diagnostic;
use crate::export::to_ebnf;

#[derive(Clone, Copy, ValueEnum)]
pub enum Target {
    /// Bonsai's native EBNF (grammars/README.md).
    Ebnf,
}

#[derive(Args)]
pub struct ConvertArgs {
    /// The grammar: native .ebnf, ANTLR4 .g4, tree-sitter grammar.json or fuzzingbook .json.
    file: PathBuf,
    /// The format to write.
    #[arg(long, value_enum)]
    to: Target,
    /// Write here (atomically) instead of to stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

pub fn run(args: ConvertArgs) -> Result<(), Failure> {
    let (grammar, _analysis) = load_grammar(&args.file)?;
    let text = match args.to {
        Target::Ebnf => to_ebnf(&grammar),
    };
    match &args.out {
        Some(path) => crate::write_atomic(path, text.as_bytes())?,
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| Diagnostic::error(format!("cannot write to stdout: {e}")))?,
    }
    Ok(())
}
