//! `cargo bonsai fuzz|campaign|replay|export|report|reduce|faults|...`: the command of the
//! built target binary, with the harness's target, grammar and (for `faults --export-tests`)
//! called function filled in where the command takes them and the user did not give them.

use std::ffi::OsString;

use super::harness::Harness;
use crate::diagnostic::Diagnostic;

/// Commands that run a target and take `--target`.
const TAKES_TARGET: [&str; 8] = [
    "fuzz",
    "campaign",
    "replay",
    "validity",
    "covers",
    "reduce-corpus",
    "targets",
    "baseline-nautilus",
];

/// Commands that take the grammar as `--grammar`.
const TAKES_GRAMMAR: [&str; 3] = ["fuzz", "campaign", "baseline-nautilus"];

/// The arguments for `bonsai-<target>`: `args` (the command and its arguments) with
/// `--target` and `--grammar` added where they belong and are missing.
pub fn arguments(harness: &Harness, args: &[OsString]) -> Vec<OsString> {
    let mut out = args.to_vec();
    let Some(command) = args.first().and_then(|c| c.to_str()) else {
        return out;
    };
    let has = |flag: &str| {
        args.iter().any(|a| {
            a.to_str()
                .is_some_and(|a| a == flag || a.starts_with(&format!("{flag}=")))
        })
    };
    // After the command, where clap reads options whatever follows.
    let mut insert = Vec::new();
    let resume = has("--resume");
    // `reduce` runs the target only under a target criterion; a resumed campaign knows its
    // own target and grammar.
    let runs_target =
        TAKES_TARGET.contains(&command) || (command == "reduce" && has("--criterion"));
    if runs_target && !has("--target") && !resume {
        insert.push(OsString::from("--target"));
        insert.push(OsString::from(&harness.target));
    }
    if TAKES_GRAMMAR.contains(&command) && !has("--grammar") && !resume {
        insert.push(OsString::from("--grammar"));
        insert.push(harness.dir.join(&harness.grammar).into_os_string());
    }
    if command == "faults"
        && has("--export-tests")
        && !has("--call")
        && let Some(call) = &harness.call
    {
        insert.push(OsString::from("--call"));
        insert.push(OsString::from(call));
    }
    out.splice(1..1, insert);
    out
}

/// Replaces this process with the built binary running `args`.
pub fn run(harness: &Harness, args: &[OsString]) -> Diagnostic {
    let binary = harness.binary();
    if !binary.exists() {
        return Diagnostic::error(format!(
            "bonsai-{} is not built yet: run `cargo bonsai build --release`",
            harness.target
        ))
        .in_file(&binary);
    }
    let mut command = std::process::Command::new(&binary);
    command.args(arguments(harness, args));
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let error = command.exec();
        Diagnostic::error(format!("cannot run: {error}")).in_file(&binary)
    }
    #[cfg(not(unix))]
    match command.status() {
        Ok(status) => std::process::exit(status.code().unwrap_or(2)),
        Err(error) => Diagnostic::error(format!("cannot run: {error}")).in_file(&binary),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn harness() -> Harness {
        Harness {
            dir: PathBuf::from("/r/bonsai"),
            target: "lang".into(),
            grammar: PathBuf::from("lang.ebnf"),
            instrument: Vec::new(),
            call: Some("lang::check".into()),
        }
    }

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_target_and_grammar_are_filled_in_where_missing() {
        assert_eq!(
            arguments(&harness(), &args(&["fuzz", "--time", "20s", "--out", "o"])),
            args(&[
                "fuzz",
                "--target",
                "lang",
                "--grammar",
                "/r/bonsai/lang.ebnf",
                "--time",
                "20s",
                "--out",
                "o"
            ])
        );
        let given = args(&["fuzz", "--target=lang", "--grammar", "g.g4"]);
        assert_eq!(arguments(&harness(), &given), given);
        assert_eq!(
            arguments(&harness(), &args(&["campaign", "--resume", "d"])),
            args(&["campaign", "--resume", "d"])
        );
        let contains = args(&["reduce", "g", "i", "--contains", "x"]);
        assert_eq!(arguments(&harness(), &contains), contains);
        let export = args(&["export", "d", "--out", "c"]);
        assert_eq!(arguments(&harness(), &export), export);
        assert_eq!(
            arguments(&harness(), &args(&["faults", "d", "--export-tests", "t"])),
            args(&[
                "faults",
                "--call",
                "lang::check",
                "d",
                "--export-tests",
                "t"
            ])
        );
        let listed = args(&["faults", "d"]);
        assert_eq!(arguments(&harness(), &listed), listed);
        assert_eq!(
            arguments(&harness(), &args(&["baseline-nautilus", "--out", "n"])),
            args(&[
                "baseline-nautilus",
                "--target",
                "lang",
                "--grammar",
                "/r/bonsai/lang.ebnf",
                "--out",
                "n"
            ])
        );
    }
}
