//! The kdl target's verdicts, oracle and instrumentation: documents are valid and their prints
//! pass the round-trip oracle, a broken one is refused at the parse stage and not checked, the
//! binary carries coverage counters credited to the kdl crate (without them every input looks
//! alike to the fuzzer), and the printer bugs found by fuzzing are still there, reported by
//! the oracle.

use std::path::Path;
use std::process::Command;

use bonsai::target::{Oracle, Target, Verdict, Violation};
use bonsai_target_kdl::Kdl;
use kdl::KdlDocument;

fn verdict(source: &str) -> Verdict {
    Kdl::new().run(source.as_bytes())
}

/// The target's verdict for `source` and what the oracle says about it, as the engine runs
/// them: `check` after `run`, on the same target.
fn checked(source: &str) -> (Verdict, Option<Violation>) {
    let mut target = Kdl::new();
    let verdict = target.run(source.as_bytes());
    let violation = target.check(source.as_bytes(), &verdict);
    (verdict, violation)
}

#[test]
fn documents_round_trip_and_broken_ones_are_parse_errors() {
    for document in [
        "package name=\"kdl\" version=(semver)\"6.7.1\" {\n    dep serde optional=#true; /- dev\n}",
        "a 0x1F 1_000.5e-3 #inf #-inf #nan #null #\"raw \"q\" \"# \"\"\"\n  multi\n  \"\"\"",
        "(t)node /- {skipped} {child {grandchild}}",
    ] {
        assert_eq!(checked(document), (Verdict::Valid, None), "{document}");
    }
    for broken in ["a {", "a b=", "#true", "a \"unterminated", "a (t)(u)1"] {
        match checked(broken) {
            (Verdict::Invalid(reason), None) => assert!(reason.starts_with("parse: "), "{reason}"),
            other => panic!("{broken:?}: {other:?}"),
        }
    }
    assert_eq!(Kdl::new().run(&[0xc3, 0x28]), Verdict::Reject);
    assert_eq!(
        Kdl::new().output(b"a   b=1 {c}"),
        "valid\na b=1 {\n    c\n}\n"
    );
}

/// Found by fuzzing with grammars/kdl.ebnf: kdl 6.7.1's autoformat prints a string holding a
/// control character (written as the escape `\u{1}`) with the character itself, which KDL
/// 2.0 forbids in a document, so its own parser refuses the print. The layout-keeping print
/// keeps the escape and passes.
#[test]
fn autoformat_prints_a_control_character_unescaped() {
    for document in ["\"\\u{1}\"", "n \"a\\u{1}\"", "\"\"\"\n\\u{1}\n\"\"\""] {
        let (verdict, violation) = checked(document);
        assert_eq!(verdict, Verdict::Valid, "{document}");
        let violation = violation.unwrap_or_else(|| panic!("{document:?} passed"));
        assert_eq!(violation.oracle, Oracle::RoundTrip);
        assert_eq!(
            violation.class, "the autoformatted print does not parse",
            "{violation:?}"
        );
        let (name, print) = &violation.texts[0];
        assert_eq!(name, "autoformatted print");
        assert!(print.contains('\u{1}'), "{print:?}");
        assert_eq!(violation.texts[1].0, "parser's error");
    }
}

/// Found by the round trip's first, layout-keeping print: kdl 6.7.1 parses the space after a
/// node's type annotation into the node's format (`after_ty`) but never prints it, so a
/// format-preserving print changes the text. The target compares data, not layout, so that
/// this does not turn every typed node into a round-trip failure.
#[test]
fn the_space_after_a_node_type_is_dropped_by_the_printer() {
    let document = KdlDocument::parse_v2("(t) node").expect("valid KDL");
    assert_eq!(document.to_string(), "(t)node");
    assert_eq!(checked("(t) node"), (Verdict::Valid, None));
}

#[test]
fn the_binary_is_instrumented_in_kdl() {
    let binary = Path::new(env!("CARGO_BIN_EXE_bonsai-kdl"));
    let out = Command::new(binary)
        .args(["targets", "--target", "kdl"])
        .output()
        .expect("the binary runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}");
    let counters = report
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .find(|words| words.len() == 2 && words[0] == "kdl")
        .and_then(|words| words[1].parse::<usize>().ok())
        .unwrap_or_else(|| panic!("no counters for kdl:\n{report}"));
    assert!(counters >= 1_000, "only {counters} counters:\n{report}");
}

/// kdl 6.7.1 parses child blocks by plain recursion with no depth limit: a document nested a
/// few hundred blocks deep overflows a thread's stack (about 100 in a debug build on a test
/// thread's 2 MB). The overflow aborts the process, so this test runs itself again as a child
/// that does only the parse, and expects it to die of the overflow.
#[test]
fn deeply_nested_children_overflow_the_stack() {
    const CHILD: &str = "BONSAI_KDL_OVERFLOW_CHILD";
    let depth = 100_000;
    if std::env::var_os(CHILD).is_some() {
        let document = format!("{}{}", "a {".repeat(depth), "}".repeat(depth));
        let _ = verdict(&document);
        return;
    }
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            "deeply_nested_children_overflow_the_stack",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .expect("the test binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "nesting {depth} deep parsed: {stderr}"
    );
    assert!(stderr.contains("has overflowed its stack"), "{stderr}");
}
