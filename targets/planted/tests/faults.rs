//! `bonsai faults`: one bucket per planted bug, each said in words (the recursion of a stack
//! overflow, the loop of a hang), and what cannot be read named with its file and place,
//! without anything on disk changing.

mod common;

use std::path::{Path, PathBuf};

use common::{bonsai, fuzz_the_planted_seeds};
use serde_json::Value;

fn listed(out: &Path) -> (Value, std::process::Output) {
    let output = bonsai(&["faults", out.to_str().unwrap(), "--json"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let json = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("no JSON ({e}): {stdout}"));
    (json, output)
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn one_bucket_per_planted_bug_and_damage_is_named_not_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    fuzz_the_planted_seeds(&out, 600);
    let (list, output) = listed(&out);
    assert!(output.status.success(), "{}", stderr(&output));
    let buckets = list["buckets"].as_array().unwrap();
    let of = |kind: &str| -> Vec<&Value> { buckets.iter().filter(|b| b["kind"] == kind).collect() };
    let overflow = of("stack-overflow");
    assert_eq!(overflow.len(), 1, "{list}");
    let recursion = overflow[0]["location"].as_str().unwrap();
    assert!(
        recursion.starts_with("recursion through") && recursion.contains("planted_stack_overflow"),
        "{recursion}"
    );
    assert_eq!(of("timeout").len(), 1, "{list}");
    assert!(
        of("timeout")[0]["location"]
            .as_str()
            .unwrap()
            .contains("planted_hang"),
        "{list}"
    );
    assert!(
        of("crash")
            .iter()
            .any(|b| b["message"].as_str().unwrap().contains("aborted")),
        "{list}"
    );
    for bucket in buckets {
        assert!(bucket["count"].as_u64() >= Some(1));
        assert!(PathBuf::from(bucket["reproducer"].as_str().unwrap()).is_file());
        assert!(bucket["first_seen"].as_f64() <= bucket["last_seen"].as_f64());
    }
    let text = bonsai(&["faults", out.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("stack-overflow recursion through"), "{text}");
    assert!(
        text.contains(&format!("{} faults in", buckets.len())),
        "{text}"
    );

    // Reproducers without a function to call: the files alone.
    let tests = dir.path().join("tests");
    let exported = bonsai(&[
        "faults",
        out.to_str().unwrap(),
        "--export-tests",
        tests.to_str().unwrap(),
    ]);
    assert!(exported.status.success(), "{}", stderr(&exported));
    let files = std::fs::read_dir(tests.join("bonsai_faults"))
        .unwrap()
        .count();
    assert_eq!(files, buckets.len());
    assert!(!tests.join("bonsai_faults.rs").exists());

    // A damaged record is named with its line and column; the rest is still listed; the file
    // stays as it was.
    let hang = PathBuf::from(of("timeout")[0]["entry"].as_str().unwrap());
    let meta = hang.with_extension("meta");
    let damaged = "{\"size\": 3, \"valid\": nope}\n";
    std::fs::write(&meta, damaged).unwrap();
    let (list, output) = listed(&out);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains(&format!("{}:1:", meta.display())), "{said}");
    assert!(said.contains("damaged fault record"), "{said}");
    assert_eq!(list["buckets"].as_array().unwrap().len(), buckets.len() - 1);
    assert_eq!(std::fs::read_to_string(&meta).unwrap(), damaged);

    // A reproducer gone missing is said, and its bucket still listed.
    let overflow_entry = PathBuf::from(overflow[0]["entry"].as_str().unwrap());
    std::fs::remove_file(&overflow_entry).unwrap();
    let (list, output) = listed(&out);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the reproducer of this fault is missing"),
        "{}",
        stderr(&output)
    );
    assert!(
        list["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["kind"] == "stack-overflow"),
        "{list}"
    );

    // Not a run at all.
    let nothing = bonsai(&["faults", dir.path().to_str().unwrap()]);
    assert_eq!(nothing.status.code(), Some(2));
    assert!(
        stderr(&nothing).contains("neither a fuzzing output"),
        "{}",
        stderr(&nothing)
    );
}

/// A saved fault whose input runs normally in a fresh process (a hang that came from a loaded
/// machine, a crash that depended on state) is marked flaky by the triage, and kept.
#[test]
fn a_saved_fault_that_does_not_fault_again_is_marked_flaky_and_kept() {
    use bonsai::corpus::EntryInfo;
    use bonsai::feedback::{Fault, FaultKind};
    use bonsai::target::LinkedTarget;

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    common::fuzz(
        &out,
        &["--bounds", "2,2,2", "--execs", "300", "--seed", "3"],
    );
    // Two fault entries made from an ordinary queue entry, which runs to its end.
    let queue = out.join("queue").join("000000");
    for (kind, signature) in [(FaultKind::Panic, 0xf1), (FaultKind::Timeout, 0xf2)] {
        let base = out.join(kind.directory()).join("000000");
        std::fs::copy(
            queue.with_extension("choices"),
            base.with_extension("choices"),
        )
        .unwrap();
        let text = std::fs::read_to_string(queue.with_extension("txt")).unwrap();
        std::fs::write(base.with_extension("txt"), &text).unwrap();
        let info = EntryInfo {
            text,
            fault: Some(Fault {
                kind,
                signature,
                message: "planted by the test".into(),
                location: "nowhere".into(),
                frames: vec![],
                recursion: Vec::new(),
                texts: Vec::new(),
            }),
            ..EntryInfo::default()
        };
        std::fs::write(base.with_extension("meta"), info.to_text()).unwrap();
    }
    let grammar = bonsai::grammar::Grammar::from_file(&common::grammar_path()).unwrap();
    let target = LinkedTarget {
        name: "planted",
        make: || Box::new(bonsai_target_planted::Planted),
    };
    let list = bonsai::triage::gather(&out).unwrap();
    assert_eq!(list.buckets.len(), 2, "{:?}", list.buckets);
    let triaged = bonsai::triage::reduce_buckets(
        &grammar,
        &list,
        target,
        std::time::Duration::from_millis(200),
        100,
    );
    assert_eq!(triaged.flaky.len(), 2, "{triaged:?}");
    assert!(triaged.reduced.is_empty());
    let again = bonsai::triage::gather(&out).unwrap();
    assert!(again.buckets.iter().all(|b| b.flaky), "{:?}", again.buckets);
    assert!(again.buckets.iter().all(|b| b.entry.is_file()), "kept");
    let listed = bonsai(&["faults", out.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains("[flaky: did not fault again when rerun]"),
        "{}",
        String::from_utf8_lossy(&listed.stdout)
    );
}
