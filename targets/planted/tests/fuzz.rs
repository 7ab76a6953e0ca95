//! End to end: `bonsai-planted fuzz` against the planted faults. Budgets are executions, never
//! time, so these tests do the same work on any machine.
//!
//! `tests/seeds/` holds three inputs the fuzzer found (abort, stack overflow, hang), saved
//! from its own `crashes/` and `hangs/`. If `grammars/planted.ebnf` changes, their grammar
//! fingerprint no longer matches and the test says so; regenerate them with
//! `bonsai-planted fuzz --target planted --grammar grammars/planted.ebnf --bounds 2,3,4
//! --execs 150000 --timeout-ms 50 --seed 2 --out DIR` and copy the matching entries.

mod common;

use common::{bonsai, fuzz, grammar_path};

use std::path::{Path, PathBuf};

use bonsai::choice::{Replay, SavedChoices};
use bonsai::grammar::Grammar;
use bonsai::sampler::{Sample, Sampler};
use bonsai::text::render;
use libafl_bolts::rands::StdRand;
use serde_json::Value;

/// `(stem, metadata line and stack lines)` of every complete entry of `dir`.
fn entries(dir: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "meta"))
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

fn field<'a>(meta: &'a str, key: &str) -> &'a str {
    let first = meta.lines().next().unwrap();
    first
        .split(' ')
        .find_map(|f| f.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
        .unwrap_or_else(|| panic!("no {key} in {first}"))
}

/// Every `.choices` of `dir` replays strictly, under its recorded bounds, to the `.txt` next to
/// it.
fn assert_choices_replay_to_text(dir: &Path) -> usize {
    let grammar = Grammar::from_file(&grammar_path()).unwrap();
    let mut rng = StdRand::with_seed(0);
    let mut checked = 0;
    for (stem, _) in entries(dir) {
        let saved = SavedChoices::read(&dir.join(format!("{stem}.choices"))).unwrap();
        assert_eq!(saved.grammar, grammar.fingerprint());
        let mut sampler = Sampler::new(&grammar, saved.bounds).unwrap();
        let mut sample = Sample::default();
        sampler
            .sample(
                saved.choices.as_slice(),
                Replay::Strict,
                &mut rng,
                &mut sample,
            )
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_eq!(sample.choices, saved.choices, "{stem}: not normalized");
        let text = std::fs::read_to_string(dir.join(format!("{stem}.txt"))).unwrap();
        assert_eq!(render(&grammar, &sample.tree), text, "{stem}");
        checked += 1;
    }
    checked
}

#[test]
fn finds_the_planted_panic_saves_it_once_and_keeps_going() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let summary = fuzz(
        &out,
        &[
            "--bounds",
            "2,3,3",
            "--execs",
            "20000",
            "--seed",
            "0",
            "--timeout-ms",
            "200",
        ],
    );
    for key in [
        "execs",
        "execs_per_sec",
        "edges",
        "corpus",
        "valid_share",
        "crashes",
        "hangs",
    ] {
        assert!(summary.get(key).is_some(), "summary lacks {key}: {summary}");
    }
    assert_eq!(summary["execs"], 20000, "the run goes on to its budget");
    let share = summary["valid_share"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&share));

    let panics: Vec<(String, String)> = entries(&out.join("crashes"))
        .into_iter()
        .filter(|(_, meta)| meta.contains("planted panic"))
        .collect();
    assert_eq!(
        panics.len(),
        1,
        "the panic is saved exactly once: {panics:?}"
    );
    assert!(
        summary["fault_executions"].as_u64().unwrap() > 1,
        "the panic recurred and was deduplicated: {summary}"
    );
    let (stem, meta) = &panics[0];
    assert_eq!(field(meta, "kind"), "panic");
    assert!(meta.contains("check_block ("), "stack lines: {meta}");
    let text = std::fs::read_to_string(out.join("crashes").join(format!("{stem}.txt"))).unwrap();
    assert!(
        text.contains("while") && text.contains("if") && text.contains("print"),
        "{text}"
    );

    // The campaign went on past the crash: entries were still being saved afterwards.
    let crash_time: f64 = field(meta, "time").trim_end_matches('s').parse().unwrap();
    let later = entries(&out.join("queue"))
        .iter()
        .filter(|(_, m)| {
            field(m, "time")
                .trim_end_matches('s')
                .parse::<f64>()
                .unwrap()
                > crash_time
        })
        .count();
    assert!(later > 0, "no corpus entry was saved after the crash");

    // The saved choices replay to the saved text, for the crash and every queue entry.
    assert_eq!(
        assert_choices_replay_to_text(&out.join("crashes")),
        entries(&out.join("crashes")).len()
    );
    let queue = assert_choices_replay_to_text(&out.join("queue"));
    assert_eq!(queue as u64, summary["corpus"].as_u64().unwrap());
    // And `generate --replay` agrees.
    let replayed = bonsai(&[
        "generate",
        grammar_path().to_str().unwrap(),
        "--replay",
        out.join("crashes")
            .join(format!("{stem}.choices"))
            .to_str()
            .unwrap(),
    ]);
    assert!(replayed.status.success());
    assert_eq!(String::from_utf8_lossy(&replayed.stdout).trim_end(), text);
}

#[test]
fn survives_abort_stack_overflow_and_hang() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let seeds = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/seeds");
    let summary = fuzz(
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
    assert_eq!(summary["seeds_loaded"], 3, "{summary}");
    assert_eq!(
        summary["execs"], 600,
        "the run goes on after each fault: {summary}"
    );
    assert!(summary["restarts"].as_u64().unwrap() >= 3, "{summary}");
    let crashes = entries(&out.join("crashes"));
    let abort = crashes
        .iter()
        .find(|(_, m)| field(m, "kind") == "crash" && m.contains("check_block ("))
        .unwrap_or_else(|| panic!("no abort in {crashes:?}"));
    assert_eq!(field(&abort.1, "mutator"), "seed");
    assert!(
        crashes
            .iter()
            .any(|(_, m)| m.contains("overflowed its stack")
                && m.contains("planted_stack_overflow (")),
        "no stack overflow in {crashes:?}"
    );
    let hangs = entries(&out.join("hangs"));
    assert!(
        hangs
            .iter()
            .any(|(_, m)| field(m, "kind") == "timeout" && m.contains("planted_hang (")),
        "no hang in {hangs:?}"
    );
    assert_choices_replay_to_text(&out.join("crashes"));
    assert_choices_replay_to_text(&out.join("hangs"));
}

#[test]
fn a_memory_limit_turns_big_allocations_into_oom_entries() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // The checker keeps every token in a vector: a few kilobytes is plenty to cross.
    let summary = fuzz(
        &out,
        &["--bounds", "2,3,3", "--execs", "300", "--mem-limit", "3K"],
    );
    assert!(summary["ooms"].as_u64().unwrap() >= 1, "{summary}");
    assert!(
        entries(&out.join("crashes"))
            .iter()
            .any(|(_, m)| field(m, "kind") == "oom")
    );
    assert_eq!(summary["execs"], 300);
}

#[test]
fn resuming_keeps_every_saved_input_and_known_faults() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let args = [
        "--bounds",
        "2,3,3",
        "--execs",
        "4000",
        "--seed",
        "0",
        "--timeout-ms",
        "200",
    ];
    fuzz(&out, &args);
    let read_all = |sub: &str| -> Vec<(String, String)> {
        entries(&out.join(sub))
            .into_iter()
            .map(|(stem, _)| {
                let text =
                    std::fs::read_to_string(out.join(sub).join(format!("{stem}.txt"))).unwrap();
                (stem, text)
            })
            .collect()
    };
    let queue_before = read_all("queue");
    let crashes_before = read_all("crashes");
    let second = fuzz(
        &out,
        &[
            "--bounds",
            "2,3,3",
            "--execs",
            "4000",
            "--seed",
            "1",
            "--timeout-ms",
            "200",
        ],
    );
    assert!(second["seeds_loaded"].as_u64().unwrap() >= 1);
    let queue_after = read_all("queue");
    for entry in &queue_before {
        assert!(
            queue_after.contains(entry),
            "{entry:?} was lost or rewritten"
        );
    }
    // Known faults are not saved again under new numbers.
    let panics = read_all("crashes").len();
    assert_eq!(
        panics,
        crashes_before.len(),
        "a known fault was saved again"
    );
    assert_choices_replay_to_text(&out.join("queue"));
}

#[test]
fn valid_only_keeps_only_valid_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let summary = fuzz(
        &out,
        &[
            "--bounds",
            "2,2,3",
            "--execs",
            "3000",
            "--valid-only",
            "--timeout-ms",
            "200",
        ],
    );
    let queue = entries(&out.join("queue"));
    assert!(!queue.is_empty());
    assert!(
        queue.iter().all(|(_, m)| field(m, "valid") == "yes"),
        "{queue:?}"
    );
    assert_eq!(summary["valid_share"], 1.0);
}

#[test]
fn bad_flags_and_foreign_directories_exit_2_with_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = dir.path().join("project");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let grammar = grammar_path();
    let base = |out: &Path, bounds: &str, time: &str| {
        bonsai(&[
            "fuzz",
            "--target",
            "planted",
            "--grammar",
            grammar.to_str().unwrap(),
            "--bounds",
            bounds,
            "--time",
            time,
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let refused = base(&foreign, "1,1,1", "1s");
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(foreign.to_str().unwrap()) && stderr.contains("not empty"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(&foreign).unwrap().count(),
        1,
        "nothing was written there"
    );

    let fresh = dir.path().join("fresh");
    assert_eq!(base(&fresh, "0,1,1", "1s").status.code(), Some(2));
    assert_eq!(base(&fresh, "1,1,1", "10x").status.code(), Some(2));
    let missing = dir.path().join("no-such-grammar.ebnf");
    let output = bonsai(&[
        "fuzz",
        "--target",
        "planted",
        "--grammar",
        missing.to_str().unwrap(),
        "--bounds",
        "1,1,1",
        "--execs",
        "10",
        "--out",
        fresh.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains(missing.to_str().unwrap()));
}

#[test]
fn replay_reports_verdicts_coverage_and_faults() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let seeds = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/seeds");
    let summary = fuzz(
        &out,
        &[
            "--bounds",
            "2,3,4",
            "--execs",
            "400",
            "--timeout-ms",
            "100",
            "--seeds",
            seeds.to_str().unwrap(),
        ],
    );
    let replay = bonsai(&[
        "replay",
        "--target",
        "planted",
        "--json",
        out.to_str().unwrap(),
    ]);
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&replay.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (total, inputs) = lines.split_last().unwrap();
    assert_eq!(
        inputs.len() as u64,
        summary["corpus"].as_u64().unwrap(),
        "the queue of the output"
    );
    assert!(inputs.iter().all(|i| i["edges"].as_u64().unwrap() > 0));
    let new: u64 = inputs
        .iter()
        .map(|i| i["new_edges"].as_u64().unwrap())
        .sum();
    assert_eq!(
        new,
        total["total"]["edges"].as_u64().unwrap(),
        "new edges add up to the total"
    );
    // The corpus reaches the edges the fuzzer reported (hit counts aside, the same set).
    assert_eq!(total["total"]["edges"], summary["edges"]);

    // Faults are reported, not fatal: each input runs in its own process.
    let grammar = grammar_path();
    let crashes = bonsai(&[
        "replay",
        "--target",
        "planted",
        "--grammar",
        grammar.to_str().unwrap(),
        "--timeout-ms",
        "200",
        out.join("crashes").to_str().unwrap(),
    ]);
    assert!(crashes.status.success());
    let table = String::from_utf8_lossy(&crashes.stdout);
    assert!(
        table.lines().filter(|l| l.contains(" crash ")).count() >= 2,
        "{table}"
    );
    let hangs = bonsai(&[
        "replay",
        "--target",
        "planted",
        "--grammar",
        grammar.to_str().unwrap(),
        "--timeout-ms",
        "200",
        out.join("hangs").to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&hangs.stdout).contains(" timeout "));
}
