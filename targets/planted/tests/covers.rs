//! `bonsai covers`, the test command an external reducer (picireny) runs for each candidate:
//! exit 0 when the candidate keeps what `bonsai reduce --criterion coverage` keeps for the
//! original, 1 when not, 2 when the question cannot be asked.

mod common;

use common::bonsai;

use std::path::Path;
use std::time::Duration;

use bonsai::reduce::{Candidate, Criterion, SameCoverage};
use bonsai::replay::ForkedRunner;
use bonsai::target::LinkedTarget;
use bonsai_target_planted::Planted;

const ORIGINAL: &str = "let a = 1; if a { print a + 2; } else { print 3; }";

/// `bonsai-planted covers` on two texts written to `dir`: the exit code and stderr.
fn covers(dir: &Path, original: &str, candidate: &str) -> (i32, String) {
    let (o, c) = (dir.join("original.txt"), dir.join("candidate.txt"));
    std::fs::write(&o, original).unwrap();
    std::fs::write(&c, candidate).unwrap();
    run(&[
        "covers",
        "--target",
        "planted",
        o.to_str().unwrap(),
        c.to_str().unwrap(),
    ])
}

fn run(args: &[&str]) -> (i32, String) {
    let output = bonsai(args);
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// What `bonsai reduce --criterion coverage` would decide, in this process.
fn same_coverage(original: &str, candidate: &str) -> bool {
    let target = LinkedTarget {
        name: "planted",
        make: || Box::new(Planted),
    };
    let runner = ForkedRunner::new(target, Duration::from_millis(1000)).unwrap();
    SameCoverage::of_input(runner, original)
        .unwrap()
        .holds(&Candidate::text(candidate))
}

#[test]
fn the_exit_code_is_the_reduction_criterion() {
    let dir = tempfile::tempdir().unwrap();
    let candidates = [
        // The same input, and one that does more: both keep every edge.
        (ORIGINAL, 0),
        (
            "let a = 1; if a { print a + 2; } else { print 3; } while 0 { let b = a * 2; }",
            0,
        ),
        // Dropping the else branch's statement, or the whole if, loses edges.
        ("let a = 1; if a { print a + 2; }", 1),
        ("print 3;", 1),
        // Not even a program of the language: the checker refuses it early.
        ("let = ;", 1),
        // A planted panic ends the run abnormally, whatever it covered first.
        (
            "let a = 1; if a { print a + 2; } else { print 3; } while 1 { if 1 { print 1; } }",
            1,
        ),
    ];
    for (candidate, expected) in candidates {
        let (code, stderr) = covers(dir.path(), ORIGINAL, candidate);
        assert_eq!(code, expected, "{candidate}: {stderr}");
        assert_eq!(
            code == 0,
            same_coverage(ORIGINAL, candidate),
            "{candidate}: the command and SameCoverage disagree"
        );
        if code == 1 {
            assert!(stderr.contains("does not keep the coverage of"), "{stderr}");
        }
    }
}

#[test]
fn what_cannot_be_judged_exits_2_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    // An original that panics has no coverage to keep.
    let (code, stderr) = covers(dir.path(), "while 1 { if 1 { print 1; } }", ORIGINAL);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("original.txt") && stderr.contains("does not run normally"),
        "{stderr}"
    );

    let missing = dir.path().join("missing.txt");
    let original = dir.path().join("original.txt");
    let (code, stderr) = run(&[
        "covers",
        "--target",
        "planted",
        original.to_str().unwrap(),
        missing.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("missing.txt") && stderr.contains("cannot read input"),
        "{stderr}"
    );

    let binary = dir.path().join("binary.txt");
    std::fs::write(&binary, [0xff, 0xfe, b'x']).unwrap();
    let (code, stderr) = run(&[
        "covers",
        "--target",
        "planted",
        original.to_str().unwrap(),
        binary.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not UTF-8"), "{stderr}");

    let (code, stderr) = run(&[
        "covers",
        "--target",
        "planted",
        "--timeout-ms",
        "0",
        original.to_str().unwrap(),
        original.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--timeout-ms"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
