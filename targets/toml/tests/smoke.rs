//! The toml target's verdicts, oracle and instrumentation: a document is judged valid and its
//! prints pass the round-trip oracle, a broken one is refused at the parse stage and not
//! checked, and the binary carries coverage counters credited to toml_edit's parser crates
//! (without them every input looks alike to the fuzzer).

use std::path::Path;
use std::process::Command;

use bonsai::target::{Target, Verdict, Violation};
use bonsai_target_toml::Toml;

/// The target's verdict for `source` and what the oracle says about it, as the engine runs
/// them: `check` after `run`, on the same target.
fn checked(source: &str) -> (Verdict, Option<Violation>) {
    let mut target = Toml::new();
    let verdict = target.run(source.as_bytes());
    let violation = target.check(source.as_bytes(), &verdict);
    (verdict, violation)
}

#[test]
fn documents_round_trip_and_broken_ones_are_parse_errors() {
    let document = "title = \"x\" # comment\na.b = [1, 2.5, {c = 'd'}]\n\
                    [t]\nwhen = 1979-05-27T07:32:00Z\n[[arr]]\nk = \"\"\"\nmulti\"\"\"\n";
    assert_eq!(checked(document), (Verdict::Valid, None));
    // Reformatting has to requote keys and strings, and put dotted keys and nested inline
    // tables back together.
    let layout = "\"quoted key\".'lit' = \"it's \\\"q\\\"\\t\"\n[a.\"b.c\"]\nx = { y = [ 1 , { z = -0.0 } ] , \"\" = nan }\n";
    assert_eq!(checked(layout), (Verdict::Valid, None));
    for broken in ["a = ", "a = 1\na = 2", "[t]\n[t]", "a = [1,,2]"] {
        match checked(broken) {
            (Verdict::Invalid(reason), None) => assert!(reason.starts_with("parse: "), "{reason}"),
            other => panic!("{broken:?}: {other:?}"),
        }
    }
    assert_eq!(Toml::new().run(&[0xc3, 0x28]), Verdict::Reject);
    let output = Toml::new().output(b"a = 1\nb = [true]");
    assert_eq!(output, "valid\n{\"a\"=1,\"b\"=[true]}");
}

#[test]
fn the_binary_is_instrumented_in_toml_edit_and_its_parser() {
    let binary = Path::new(env!("CARGO_BIN_EXE_bonsai-toml"));
    let out = Command::new(binary)
        .args(["targets", "--target", "toml"])
        .output()
        .expect("the binary runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}");
    for krate in ["toml_edit", "toml_parser"] {
        let counters = counters_of(&report, krate);
        assert!(
            counters >= 500,
            "only {counters} counters in {krate}:\n{report}"
        );
    }
}

/// A crate's line of `targets --target`'s report: its name, then its number of counters.
fn counters_of(report: &str, krate: &str) -> usize {
    report
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .find(|words| words.len() == 2 && words[0] == krate)
        .and_then(|words| words[1].parse().ok())
        .unwrap_or_else(|| panic!("no counters for {krate}:\n{report}"))
}
