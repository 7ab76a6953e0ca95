//! `bonsai report`: plots and tables of a campaign or a fuzzing run.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{Failure, LinkedTarget};
use crate::diagnostic::Diagnostic;
use crate::target::require_instrumented;

#[derive(Args)]
pub struct ReportArgs {
    /// Export DIR's corpus to DIR/corpus first (running this target) when it has not been
    /// exported yet, for the table of inputs by unique coverage. Everything else comes from
    /// the files alone.
    #[arg(long)]
    target: Option<String>,
    /// A campaign directory or a fuzzing output.
    dir: PathBuf,
}

pub fn run(args: ReportArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    if let Some(name) = &args.target {
        let Some(target) = linked.filter(|t| t.name == name) else {
            return Err(Diagnostic::error(format!(
                "target '{name}' is not linked into this binary"
            ))
            .into());
        };
        let corpus = crate::report::corpus_dir(&args.dir);
        if !corpus.join(crate::regression::CORPUS_MANIFEST).is_file() {
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
    }
    let paths = crate::report::write(&args.dir)?;
    println!("{}", paths.html.display());
    Ok(())
}
