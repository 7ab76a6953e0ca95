//! A fuzzing run in a process of its own: a campaign's node, a multi-core run's client.
//!
//! The parent writes the run's whole [`FuzzConfig`] to a file and starts a binary with the
//! same target linked in on the hidden command [`COMMAND`], which reads it back: the child
//! runs the configuration its parent built, setting for setting, with no command line for the
//! parent to spell flag by flag and the child to parse back.

use std::path::Path;
use std::process::Child;

use super::config::FuzzConfig;
use crate::diagnostic::Diagnostic;

/// The hidden command of every Bonsai binary that runs a configuration file: `PROGRAM
/// fuzz-child --config FILE`.
pub const COMMAND: &str = "fuzz-child";

/// Writes `config` to `config_file` and starts `program` on it as a child that dies with this
/// process, its standard error appended to `log` (see [`crate::child_process::spawn_logged`]).
/// `what` names the child in an error.
pub fn spawn(
    program: &Path,
    config: &FuzzConfig,
    config_file: &Path,
    log: &Path,
    what: &str,
) -> Result<Child, Diagnostic> {
    config.write(config_file)?;
    crate::child_process::spawn_logged(
        program,
        &[
            COMMAND.as_ref(),
            "--config".as_ref(),
            config_file.as_os_str(),
        ],
        log,
        what,
    )
}
