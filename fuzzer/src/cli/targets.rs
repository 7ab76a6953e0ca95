//! `bonsai targets`: which targets can be run, and whether they are instrumented.

use clap::Args;

use super::{Failure, LinkedTarget, plugin};
use crate::target::{
    crate_counters, describe_crate_counters, edge_counters, harness_only_warning,
    instrumented_report, require_instrumented,
};

#[derive(Args)]
pub struct TargetsArgs {
    /// Describe this target: its edge counters in total and per crate.
    #[arg(long)]
    target: Option<String>,
}

pub fn run(args: TargetsArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    match (args.target, linked) {
        (Some(name), Some(linked)) if name == linked.name => {
            let counters = require_instrumented(linked.name)?;
            println!("{}", instrumented_report(linked.name, counters));
            match crate_counters(counters) {
                Some(crates) => {
                    for line in describe_crate_counters(&crates) {
                        println!("{line}");
                    }
                    if let Some(warning) = harness_only_warning(&crates) {
                        eprintln!("warning: {warning}");
                    }
                }
                None => eprintln!(
                    "note: no per-crate counts: this binary has no SanitizerCoverage PC table \
                     (-sanitizer-coverage-pc-table) matching its counters, or no symbol table \
                     (stripped); crates built before the wrappers added the table need a rebuild \
                     (`cargo clean -p CRATE`)"
                ),
            }
        }
        _ => {
            for name in plugin::available() {
                let path = plugin::find(&name)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                println!("{name}\t{path}");
            }
            if let Some(linked) = linked {
                println!(
                    "(linked here: {}, {} edge counters)",
                    linked.name,
                    edge_counters()
                );
            }
        }
    }
    Ok(())
}
