//! `bonsai cover GRAMMAR --criterion C --out DIR`: a small suite of short words that satisfies
//! a grammar coverage criterion, each with the choices that replay it.

use std::path::PathBuf;

use clap::Args;

use super::Failure;
use super::load::load_grammar;
use crate::bounds::{Bounds, MAX_BOUND};
use crate::choice::SavedChoices;
use crate::corpus::{Durability, EntryContent, StoredEntry};
use crate::cover::cover;
use crate::coverage::{Criterion, Requirements};
use crate::diagnostic::Diagnostic;

#[derive(Args)]
pub struct CoverArgs {
    /// The grammar file (any format `bonsai import` reads).
    grammar: PathBuf,
    /// The criterion the suite satisfies: symbol, rule, cdrc, cdrc2, kpath:K, kstep:K, pairs
    /// or pll.
    #[arg(long)]
    criterion: Criterion,
    /// Bounds M,N,D every word stays within (default: one pool value, no limit on items or depth).
    #[arg(long, value_name = "M,N,D", value_parser = Bounds::parse_arg)]
    bounds: Option<Bounds>,
    /// A new or empty directory for the words: NNNN.txt and NNNN.choices each.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

pub fn run(args: CoverArgs) -> Result<(), Failure> {
    let (grammar, analysis) = load_grammar(&args.grammar)?;
    let bounds = match args.bounds {
        Some(bounds) => bounds,
        None => Bounds::new(1, MAX_BOUND, MAX_BOUND)
            .map_err(|e| Diagnostic::error(format!("internal error: {e}")))?,
    };
    if crate::fs_util::has_entries(&args.out) {
        return Err(Diagnostic::error(
            "the output directory is not empty; write the suite into a new directory",
        )
        .in_file(&args.out)
        .into());
    }
    let requirements = Requirements::new(&grammar, &analysis);
    let suite =
        crate::parse::with_large_stack(|| cover(&grammar, &analysis, args.criterion, bounds))
            .map_err(|e| Diagnostic::error(e.to_string()))?;
    crate::create_dir(&args.out)?;
    let fingerprint = grammar.fingerprint();
    let mut characters = 0;
    for (i, word) in suite.words.iter().enumerate() {
        let choices = SavedChoices {
            grammar: fingerprint,
            bounds: word.bounds,
            choices: word.choices.clone(),
            words: Default::default(),
        }
        .to_bytes();
        let content = EntryContent {
            choices: Some(&choices),
            text: word.text.as_bytes(),
            meta: None,
        };
        StoredEntry::named(&args.out, &format!("{:04}", i + 1))
            .write_all(content, Durability::Synced)?;
        characters += word.text.chars().count();
    }
    let total = (suite.required as u128).saturating_add(suite.unlisted);
    println!(
        "{}: {} words, {} characters, cover {} of {} requirements ({} infeasible in the grammar, not counted); in {}",
        args.criterion,
        suite.words.len(),
        characters,
        suite.required - suite.uncovered.len(),
        total,
        requirements.infeasible(args.criterion),
        args.out.display()
    );
    for uncovered in suite.uncovered.iter().chain(&suite.left_out) {
        println!("    not covered: {} ({})", uncovered.item, uncovered.reason);
    }
    Ok(())
}
