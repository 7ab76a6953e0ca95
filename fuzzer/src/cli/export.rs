//! `bonsai export`: a campaign's (or a fuzzing run's) corpus as a regression corpus.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{Failure, LinkedTarget};
use crate::target::require_instrumented;

#[derive(Args)]
pub struct ExportArgs {
    /// The target the inputs are run through; by default the one DIR's campaign.json or fuzz.json
    /// records.
    #[arg(long)]
    target: Option<String>,
    /// Where the corpus goes (new, empty, or an earlier export, which is replaced).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Also store each input's output (`Target::output`), so the corpus serves as golden tests.
    #[arg(long)]
    golden: bool,
    /// Keep only the inputs that carry the queue's coverage, plus every fault.
    #[arg(long)]
    distill: bool,
    /// The grammar the `.choices` files are checked against; by default the one DIR's fuzz.json
    /// names.
    #[arg(long, value_name = "FILE")]
    grammar: Option<PathBuf>,
    /// Per-input timeout in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    timeout_ms: u64,
    /// A campaign directory (its top node's queue is exported) or a fuzzing output.
    dir: PathBuf,
}

pub fn run(args: ExportArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let target = super::recorded_target::resolve(&args.dir, args.target.as_deref(), linked)?;
    require_instrumented(target.name)?;
    let options = crate::regression::ExportOptions {
        golden: args.golden,
        distill: args.distill,
        grammar: args.grammar.as_deref(),
        timeout: Duration::from_millis(args.timeout_ms.max(1)),
    };
    let summary = crate::regression::export(&args.dir, &args.out, &target, &options)?;
    for note in &summary.notes {
        eprintln!("warning: {note}");
    }
    println!(
        "exported {} inputs ({} valid, {} faults) covering {} edges to {}{}",
        summary.inputs,
        summary.valid,
        summary.faults,
        summary.edges,
        summary.out.display(),
        if summary.removed > 0 {
            format!(" ({} files of the earlier export removed)", summary.removed)
        } else {
            String::new()
        }
    );
    Ok(())
}
