//! The kdl target's verdicts and instrumentation: documents that round-trip are valid, a
//! broken one is refused at the parse stage, the binary carries coverage counters credited to
//! the kdl crate (without them every input looks alike to the fuzzer), and the printer bugs
//! found by fuzzing are still there.

use std::path::Path;
use std::process::Command;

use bonsai::target::{Target, Verdict};
use bonsai_target_kdl::Kdl;
use kdl::KdlDocument;

fn verdict(source: &str) -> Verdict {
    Kdl::new().run(source.as_bytes())
}

#[test]
fn documents_round_trip_and_broken_ones_are_parse_errors() {
    for document in [
        "package name=\"kdl\" version=(semver)\"6.7.1\" {\n    dep serde optional=#true; /- dev\n}",
        "a 0x1F 1_000.5e-3 #inf #-inf #nan #null #\"raw \"q\" \"# \"\"\"\n  multi\n  \"\"\"",
        "(t)node /- {skipped} {child {grandchild}}",
    ] {
        assert_eq!(verdict(document), Verdict::Valid, "{document}");
    }
    for broken in ["a {", "a b=", "#true", "a \"unterminated", "a (t)(u)1"] {
        match verdict(broken) {
            Verdict::Invalid(reason) => assert!(reason.starts_with("parse: "), "{reason}"),
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
/// 2.0 forbids in a document, so its own parser refuses the print.
#[test]
fn autoformat_prints_a_control_character_unescaped() {
    for document in ["\"\\u{1}\"", "n \"a\\u{1}\"", "\"\"\"\n\\u{1}\n\"\"\""] {
        match verdict(document) {
            Verdict::Invalid(reason) => assert!(
                reason.starts_with("roundtrip: autoformatted print fails to parse"),
                "{reason}"
            ),
            other => panic!("{document:?}: {other:?}"),
        }
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
    assert_eq!(verdict("(t) node"), Verdict::Valid);
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
