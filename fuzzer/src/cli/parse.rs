//! `bonsai parse`: accept or reject text files, and optionally save their choice sequences.

use std::path::{Path, PathBuf};

use clap::Args;

use super::Failure;
use super::load::load_grammar;
use super::seed::{PoolWordsArg, own_words_note, read_seed};
use crate::diagnostic::Diagnostic;
use crate::parse::with_large_stack;
use crate::parse::{ParseOptions, Parser};

#[derive(Args)]
pub struct ParseArgs {
    /// The grammar file.
    grammar: PathBuf,
    /// Text files to parse.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Save each accepted file's choice sequence as FILE.choices, with the smallest bounds it
    /// replays under.
    #[arg(long)]
    to_choices: bool,
    /// Write the .choices files into this directory instead of next to each input.
    #[arg(long, value_name = "DIR", requires = "to_choices")]
    out: Option<PathBuf>,
    /// What to do with identifiers that are not pool values.
    #[arg(long, value_enum, default_value = "keep", value_name = "HOW")]
    pool_words: PoolWordsArg,
    /// The same as `--pool-words rename`.
    #[arg(long, conflicts_with = "pool_words")]
    rename_pools: bool,
}

pub fn run(args: ParseArgs) -> Result<(), Failure> {
    let (grammar, _analysis) = load_grammar(&args.grammar)?;
    if let Some(dir) = &args.out {
        crate::create_dir(dir)?;
    }
    let options = args.pool_words.options(args.rename_pools);
    let (rejected, unusable) = with_large_stack(|| {
        let parser = Parser::new(&grammar);
        let mut rejected = 0;
        let mut unusable = 0;
        for file in &args.files {
            match parse_file(&parser, file, &args, options) {
                Ok(report) => println!("{}: accepted{report}", file.display()),
                Err(Outcome::Rejected(diagnostic)) => {
                    eprintln!("{diagnostic}");
                    rejected += 1;
                }
                Err(Outcome::Unusable(diagnostic)) => {
                    eprintln!("{diagnostic}");
                    unusable += 1;
                }
            }
        }
        (rejected, unusable)
    });
    let total = args.files.len();
    if unusable > 0 {
        Err(Failure::Usage(
            Diagnostic::error(format!(
                "{unusable} of {total} files could not be read or their choices not written"
            ))
            .into(),
        ))
    } else if rejected > 0 {
        Err(Failure::Negative(format!(
            "{rejected} of {total} files rejected"
        )))
    } else {
        Ok(())
    }
}

enum Outcome {
    Rejected(Diagnostic),
    Unusable(Diagnostic),
}

fn parse_file(
    parser: &Parser<'_>,
    file: &Path,
    args: &ParseArgs,
    options: ParseOptions,
) -> Result<String, Outcome> {
    let bytes = std::fs::read(file).map_err(|e| {
        Outcome::Unusable(Diagnostic::error(format!("cannot read: {e}")).in_file(file))
    })?;
    let seed = read_seed(parser, &bytes, options)
        .map_err(|e| Outcome::Rejected(e.diagnostic(file, &String::from_utf8_lossy(&bytes))))?;
    let mut report = String::new();
    if !seed.saved.words.is_empty() {
        report.push_str(&own_words_note(", ", seed.saved.words.len()));
    }
    for rename in &seed.renames {
        report.push_str(&format!(", renamed {} to {}", rename.from, rename.to));
    }
    if args.to_choices {
        let name = format!(
            "{}.{}",
            file.file_name()
                .map_or_else(|| "input".to_string(), |n| n.to_string_lossy().into_owned()),
            crate::layout::ENTRY_CHOICES
        );
        let path = match &args.out {
            Some(dir) => dir.join(name),
            None => file.with_file_name(name),
        };
        seed.saved.write(&path).map_err(Outcome::Unusable)?;
        report.push_str(&format!(
            "; choices in {} (bounds {})",
            path.display(),
            seed.saved.bounds
        ));
    }
    Ok(report)
}
