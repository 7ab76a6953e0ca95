//! The target a campaign or fuzzing output was run with, for the commands that read one
//! (`export`, `report`): the directory already says which target made it, so asking the user
//! for `--target` again only invites a mismatch.

use std::ffi::OsString;
use std::path::Path;

use super::{Failure, LinkedTarget, plugin};
use crate::diagnostic::Diagnostic;

/// The target `dir`'s `campaign.json` or `fuzz.json` records.
pub fn name(dir: &Path) -> Result<String, Diagnostic> {
    let source = crate::regression::Source::open(dir)?;
    source.target().map(str::to_string).ok_or_else(|| {
        Diagnostic::error("the top node has not started, so no target is recorded: pass --target")
            .in_file(dir)
    })
}

/// The target a command on `dir` runs: `given` (which `run_with` has already forwarded to its
/// binary), else the recorded one, linked here or reached by handing this command to
/// `bonsai-NAME` with `--target NAME` added (this process is replaced; only a failure to do
/// so returns).
pub fn resolve(
    dir: &Path,
    given: Option<&str>,
    linked: Option<LinkedTarget>,
) -> Result<LinkedTarget, Failure> {
    if let Some(name) = given {
        return Ok(plugin::linked_named(linked, name)?);
    }
    let name = name(dir)?;
    if let Some(target) = linked.filter(|t| t.name == name) {
        return Ok(target);
    }
    Err(forward(&name).into())
}

/// Hands this command to `bonsai-NAME` with `--target NAME` added.
pub fn forward(name: &str) -> Diagnostic {
    plugin::forward(name, &with_target(std::env::args_os().collect(), name))
}

/// `args` with `--target NAME` added before any `--`, where clap still reads options.
fn with_target(mut args: Vec<OsString>, name: &str) -> Vec<OsString> {
    let at = args.iter().position(|a| a == "--").unwrap_or(args.len());
    args.splice(at..at, [OsString::from("--target"), OsString::from(name)]);
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_goes_before_a_double_dash() {
        let args = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            with_target(args(&["bonsai", "export", "d", "--out", "o"]), "x"),
            args(&["bonsai", "export", "d", "--out", "o", "--target", "x"])
        );
        assert_eq!(
            with_target(args(&["bonsai", "report", "--", "d"]), "x"),
            args(&["bonsai", "report", "--target", "x", "--", "d"])
        );
    }

    #[test]
    fn a_directory_that_is_no_run_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let error = name(dir.path()).unwrap_err();
        assert!(error.to_string().contains("neither a campaign"), "{error}");
    }
}
