//! `fuzz-child --config FILE`, hidden: a fuzzing run a parent process configured, a
//! campaign's node or a multi-core run's client (see `fuzz::child`). Users run `bonsai fuzz`.

use std::path::PathBuf;

use clap::Args;

use super::{Failure, LinkedTarget};
use crate::fuzz::FuzzConfig;

#[derive(Args)]
pub struct FuzzChildArgs {
    /// The configuration the parent wrote.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
}

pub fn run(args: FuzzChildArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let config = FuzzConfig::read(&args.config, linked)?;
    let client = config.client.is_some();
    let summary = crate::fuzz::run(config)?;
    // A node's last line in its log, as `bonsai fuzz` prints it; a client's coordinator
    // reports for the whole run.
    if !client {
        super::fuzz::print_summary(&summary, false);
    }
    Ok(())
}
