//! `bonsai faults`: one bucket per planted bug, each said in words (the recursion of a stack
//! overflow, the loop of a hang), and what cannot be read named with its file and place,
//! without anything on disk changing.

mod common;

use std::path::{Path, PathBuf};

use common::{bonsai, fuzz};
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
    let seeds = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/seeds");
    fuzz(
        &out,
        &[
            "--bounds",
            "2,3,4",
            "--execs",
            "600",
            "--timeout-ms",
            "100",
            "--seeds",
            seeds.to_str().unwrap(),
        ],
    );
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
