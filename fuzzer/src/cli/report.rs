//! `bonsai report`: plots and tables of a campaign or a fuzzing run.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{Failure, LinkedTarget};
use crate::target::require_instrumented;

#[derive(Args)]
pub struct ReportArgs {
    /// The target that exports DIR's corpus first if it was not exported; by default the one DIR
    /// records.
    #[arg(long)]
    target: Option<String>,
    /// A campaign directory or a fuzzing output.
    dir: PathBuf,
}

pub fn run(args: ReportArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let corpus = crate::report::corpus_dir(&args.dir);
    if !corpus.join(crate::regression::CORPUS_MANIFEST).is_file()
        && let Some(target) = exporting_target(&args, linked)?
    {
        require_instrumented(target.name)?;
        let options = crate::regression::ExportOptions {
            timeout: Duration::from_millis(1000),
            ..Default::default()
        };
        let summary = crate::regression::export(&args.dir, &corpus, &target, &options)?;
        for note in &summary.notes {
            eprintln!("warning: {note}");
        }
        eprintln!(
            "exported {} inputs to {}",
            summary.inputs,
            summary.out.display()
        );
    }
    let paths = crate::report::write(&args.dir)?;
    println!("{}", paths.html.display());
    Ok(())
}

/// The target that exports DIR's corpus for the report: `--target`, else the one the run
/// recorded, run here or by its own binary. A run whose binary is not at hand (a report
/// written on another machine) still gets a report, without the table of inputs.
fn exporting_target(
    args: &ReportArgs,
    linked: Option<LinkedTarget>,
) -> Result<Option<LinkedTarget>, Failure> {
    if args.target.is_some() {
        return super::recorded_target::resolve(&args.dir, args.target.as_deref(), linked)
            .map(Some);
    }
    let Ok(name) = super::recorded_target::name(&args.dir) else {
        // Not a run at all, or one that never started: `report::write` says which.
        return Ok(None);
    };
    if let Some(target) = linked.filter(|t| t.name == name) {
        return Ok(Some(target));
    }
    if super::plugin::find(&name).is_none() {
        eprintln!(
            "note: no binary bonsai-{name} next to this one or on PATH: the report leaves out \
             the inputs by unique coverage (pass --target once it is built)"
        );
        return Ok(None);
    }
    Err(super::recorded_target::forward(&name).into())
}
