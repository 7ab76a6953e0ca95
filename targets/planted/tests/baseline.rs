//! `bonsai-planted baseline-nautilus`, the peer fuzzer of `scripts/compare-nautilus`: it must
//! save each distinct fault once, described as `bonsai fuzz` describes it, with an input that
//! `bonsai replay` reproduces, so that the comparison can say which faults each side found and
//! anyone can rerun them; and log coverage over time in the same `coverage.csv` format.
//! Budgets are executions, never time.

mod common;

use common::{bonsai, fuzz, grammar_path, summary_of};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use bonsai::corpus::EntryInfo;
use bonsai::replay::{Execution, ForkedRunner, Outcome};
use bonsai::target::LinkedTarget;
use bonsai_target_planted::Planted;
use serde_json::Value;

/// A complete entry of a fault directory.
#[derive(Debug)]
struct Saved {
    stem: String,
    kind: String,
    signature: u64,
    meta: String,
    text: String,
}

fn saved(dir: &Path) -> Vec<Saved> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "meta") {
            continue;
        }
        let meta = std::fs::read_to_string(&path).unwrap();
        let parsed = EntryInfo::parse_line(&meta);
        let text = std::fs::read_to_string(path.with_extension("txt"))
            .unwrap_or_else(|e| panic!("{} has no input: {e}", path.display()));
        out.push(Saved {
            stem: path.file_stem().unwrap().to_string_lossy().into_owned(),
            kind: parsed.kind.unwrap_or_else(|| panic!("no kind in {meta}")),
            signature: parsed
                .signature
                .unwrap_or_else(|| panic!("no signature in {meta}")),
            meta,
            text,
        });
    }
    out.sort_by(|a, b| a.stem.cmp(&b.stem));
    out
}

fn baseline(out: &Path, extra: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_bonsai-planted"))
        .args(["baseline-nautilus", "--target", "planted", "--grammar"])
        .arg(grammar_path())
        .arg("--out")
        .arg(out)
        .arg("--json")
        .args(extra)
        .env("BONSAI_LOG", "warn")
        .output()
        .expect("bonsai-planted runs");
    assert!(
        output.status.success(),
        "baseline failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    summary_of(&output.stdout)
}

/// `bonsai replay`'s runner: each input in a forked child, the fault described and signed as
/// the fuzzing loop does it.
fn runner(timeout: Duration) -> ForkedRunner {
    let target = LinkedTarget {
        name: "planted",
        make: || Box::new(Planted),
    };
    ForkedRunner::new(target, timeout).unwrap()
}

fn outcome_of(kind: &str) -> Outcome {
    match kind {
        "panic" => Outcome::Panic,
        "timeout" => Outcome::Timeout,
        // Aborts, stack overflows and the memory limit all end the child with a signal.
        _ => Outcome::Crash,
    }
}

/// `bonsai replay --json DIR`: verdict per input name.
fn replay_verdicts(dir: &Path) -> Vec<(String, String)> {
    let output = bonsai(&[
        "replay",
        "--target",
        "planted",
        "--timeout-ms",
        "200",
        "--json",
        dir.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (_, inputs) = lines.split_last().unwrap();
    inputs
        .iter()
        .map(|i| {
            (
                i["name"].as_str().unwrap().to_string(),
                i["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn saves_each_fault_once_with_a_reproducer_and_bonsais_signature() {
    let dir = tempfile::tempdir().unwrap();
    let nautilus = dir.path().join("nautilus");
    // Seed 0 finds the panic after about 3,800 executions and the abort after about 5,000,
    // but not always: after the first fault LibAFL restarts the process, and one CI run in
    // about five (under load) did not reach the abort within 8,000 executions. The cause of
    // that variation is not known yet; the budget leaves room for it.
    let summary = baseline(
        &nautilus,
        &[
            "--bounds",
            "2,3,3",
            "--execs",
            "14000",
            "--seed",
            "0",
            // The timer measures wall time, so on a loaded machine an unoptimized run of a
            // few-KB input can pass a short timeout (seen at 50 and 200 ms: a saved "hang" that
            // replays as invalid). The planted hang lies beyond this budget, so a generous
            // timeout costs nothing here.
            "--timeout-ms",
            "1000",
        ],
    );
    let crashes = saved(&nautilus.join("crashes"));
    let hangs = saved(&nautilus.join("hangs"));
    assert_eq!(summary["crashes"], crashes.len(), "{summary}");
    assert_eq!(summary["hangs"], hangs.len(), "{summary}");
    assert_eq!(summary["faults"], crashes.len() + hangs.len(), "{summary}");
    assert!(
        summary["fault_executions"].as_u64().unwrap() > summary["faults"].as_u64().unwrap(),
        "faults recurred and were deduplicated: {summary}"
    );
    let all: Vec<&Saved> = crashes.iter().chain(&hangs).collect();
    let signatures: BTreeSet<_> = all.iter().map(|s| (&s.kind, s.signature)).collect();
    assert_eq!(signatures.len(), all.len(), "a fault saved twice: {all:?}");

    let panics: Vec<_> = crashes.iter().filter(|s| s.kind == "panic").collect();
    assert_eq!(
        panics.len(),
        1,
        "the panic is saved exactly once: {crashes:?}"
    );
    let panic = panics[0];
    assert!(panic.meta.contains("planted panic"), "{}", panic.meta);
    assert!(
        panic.meta.contains("check_block ("),
        "stack lines: {}",
        panic.meta
    );
    let aborts: Vec<_> = crashes
        .iter()
        .filter(|s| s.kind == "crash" && s.meta.contains("the target aborted"))
        .collect();
    assert_eq!(
        aborts.len(),
        1,
        "the abort is saved exactly once: {crashes:?}"
    );
    let abort = aborts[0];

    // Every saved input is a reproducer: run again the way `bonsai replay` runs it, it faults
    // the same way, and a crash at the same site (a hang's site depends on where the timer
    // lands, so only its looping function is checked).
    let mut replay = runner(Duration::from_millis(200));
    for fault in &all {
        let again: Execution = replay.run(fault.text.as_bytes());
        assert_eq!(again.outcome, outcome_of(&fault.kind), "{}", fault.meta);
        let described = again.fault.expect("a fault is described");
        if fault.kind == "timeout" {
            assert!(described.frames.iter().any(|f| f.contains("planted_hang")));
        } else {
            assert_eq!(described.signature, fault.signature, "{}", fault.meta);
        }
    }
    for (sub, faults) in [("crashes", &crashes), ("hangs", &hangs)] {
        let verdicts = replay_verdicts(&nautilus.join(sub));
        let expected: Vec<_> = faults
            .iter()
            .map(|s| (format!("{}.txt", s.stem), outcome_of(&s.kind).to_string()))
            .collect();
        assert_eq!(verdicts, expected, "bonsai replay {sub}");
    }

    // The same bugs reached by other inputs get the same signatures on Bonsai's side: the
    // panic from a hand-written program, the abort from `bonsai fuzz` itself (its seed is an
    // abort saved by an earlier run).
    let other_panic = replay.run(b"while 1 { if 1 { print 2; } }");
    assert_eq!(other_panic.outcome, Outcome::Panic);
    assert_eq!(other_panic.fault.unwrap().signature, panic.signature);
    let seeds = dir.path().join("seeds");
    std::fs::create_dir(&seeds).unwrap();
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        manifest.join("tests/seeds/abort.choices"),
        seeds.join("abort.choices"),
    )
    .unwrap();
    let bonsai_out = dir.path().join("bonsai");
    fuzz(
        &bonsai_out,
        &[
            "--bounds",
            "2,3,4",
            "--execs",
            "50",
            "--seeds",
            seeds.to_str().unwrap(),
            "--reduce-crashes",
            "0",
        ],
    );
    let theirs = saved(&bonsai_out.join("crashes"));
    assert!(
        theirs
            .iter()
            .any(|s| s.kind == "crash" && s.signature == abort.signature),
        "bonsai fuzz's abort has another signature: {theirs:?}\nagainst\n{}",
        abort.meta
    );

    // coverage.csv: the header, the origin, then lines that never go back, the last one being
    // the summary's figures.
    let csv = std::fs::read_to_string(nautilus.join("coverage.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("secs,execs,edges,corpus,valid,crashes,hangs")
    );
    assert_eq!(lines.next(), Some("0.000,0,0,0,0,0,0"));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|f| f.parse().unwrap()).collect())
        .collect();
    assert!(rows.len() >= 2, "{csv}");
    for pair in rows.windows(2) {
        assert_eq!(pair[1].len(), 7, "{csv}");
        for (column, (before, after)) in pair[0].iter().zip(&pair[1]).enumerate() {
            assert!(before <= after, "column {column} went back: {csv}");
        }
    }
    let last = rows.last().unwrap();
    assert_eq!(last[1], summary["execs"].as_f64().unwrap(), "{csv}");
    assert_eq!(last[2], summary["edges"].as_f64().unwrap(), "{csv}");
    assert_eq!(last[3], summary["corpus"].as_f64().unwrap(), "{csv}");
    assert_eq!(last[5], crashes.len() as f64, "{csv}");
    assert_eq!(last[6], hangs.len() as f64, "{csv}");
    let valid_share = summary["valid_share"].as_f64().unwrap();
    assert!(valid_share > 0.0 && valid_share < 1.0, "{summary}");
    assert!((last[4] / last[3] - valid_share).abs() < 1e-9, "{csv}");
}

#[test]
fn refuses_a_missing_budget_and_a_used_directory() {
    let dir = tempfile::tempdir().unwrap();
    let grammar = grammar_path();
    let grammar = grammar.to_str().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let common = [
        "baseline-nautilus",
        "--target",
        "planted",
        "--grammar",
        grammar,
        "--bounds",
        "2,3,3",
        "--out",
        out,
    ];
    let no_budget = bonsai(&common);
    assert_eq!(no_budget.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_budget.stderr).contains("--time or --execs"));

    std::fs::create_dir_all(out).unwrap();
    std::fs::write(dir.path().join("out/notes.txt"), "mine").unwrap();
    let used = bonsai(&[&common[..], &["--execs", "10"]].concat());
    assert_eq!(used.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&used.stderr).contains("not empty"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out/notes.txt")).unwrap(),
        "mine"
    );
}
