//! `bonsai coverage GRAMMAR INPUT...`: how well a set of inputs covers the grammar, per
//! criterion, with what no input produced.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::Failure;
use super::load::load_grammar;
use crate::coverage::{Criterion, CriterionReport, Requirements, collect_inputs, tally_files};
use crate::diagnostic::Diagnostic;

#[derive(Args)]
pub struct CoverageArgs {
    /// The grammar file (any format `bonsai import` reads).
    grammar: PathBuf,
    /// Text files, `.choices` files, or directories of them, searched recursively.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Criteria: symbol, rule, cdrc, cdrc2, kpath:K, kstep:K, pairs, pll.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "symbol,rule,cdrc,kpath:1,kpath:2,kpath:3"
    )]
    criteria: Vec<Criterion>,
    /// Missing items shown per criterion (all of them with --json).
    #[arg(long, value_name = "N", default_value_t = 10)]
    show: usize,
    /// One JSON object: inputs read and refused, and per criterion the counts and missing items.
    #[arg(long)]
    json: bool,
}

/// What `--json` prints. Written straight to text rather than through `serde_json::Value`,
/// which holds no integer beyond u64: a count of combinations or paths can be larger.
#[derive(Serialize)]
struct Summary<'a> {
    grammar: &'a std::path::Path,
    inputs: usize,
    refused: Vec<String>,
    criteria: &'a [CriterionReport],
}

pub fn run(args: CoverageArgs) -> Result<(), Failure> {
    let (grammar, analysis) = load_grammar(&args.grammar)?;
    let mut files = Vec::new();
    for input in &args.inputs {
        collect_inputs(input, &mut files)?;
    }
    if files.is_empty() {
        return Err(Diagnostic::error(
            "no inputs found: give text files, .choices files or directories holding them",
        )
        .into());
    }
    let (tally, refused) = tally_files(&grammar, &files, &args.criteria);
    let requirements = Requirements::new(&grammar, &analysis);
    let reports: Vec<CriterionReport> = args
        .criteria
        .iter()
        .map(|&c| CriterionReport::new(&grammar, &requirements, &tally, c))
        .collect();
    if args.json {
        let summary = Summary {
            grammar: &args.grammar,
            inputs: tally.trees(),
            refused: refused.iter().map(|d| d.to_string()).collect(),
            criteria: &reports,
        };
        let text = serde_json::to_string(&summary)
            .map_err(|e| Diagnostic::error(format!("internal error: {e}")))?;
        println!("{text}");
    } else {
        for why in &refused {
            eprintln!("{why}");
        }
        println!(
            "{} inputs read{}",
            tally.trees(),
            if refused.is_empty() {
                String::new()
            } else {
                format!(", {} refused (not counted; see above)", refused.len())
            }
        );
        for report in &reports {
            print!("{}", report.text(args.show));
        }
    }
    Ok(())
}
