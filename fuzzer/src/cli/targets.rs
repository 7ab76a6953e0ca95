//! `bonsai targets`: which targets can be run, and whether they are instrumented.

use clap::Args;

use super::{Failure, LinkedTarget, plugin};
use crate::target::{edge_counters, instrumented_report, require_instrumented};

#[derive(Args)]
pub struct TargetsArgs {
    /// Describe this target (its binary is run to count its coverage counters).
    #[arg(long)]
    target: Option<String>,
}

pub fn run(args: TargetsArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    match (args.target, linked) {
        (Some(name), Some(linked)) if name == linked.name => {
            let counters = require_instrumented(linked.name)?;
            println!("{}", instrumented_report(linked.name, counters));
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
