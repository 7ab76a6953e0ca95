//! The regression corpus and the report, end to end on a small hand-made campaign: two
//! lattice nodes fuzzed with `bonsai-planted fuzz` (the second seeded from the first) and a
//! `campaign.json` written as `bonsai campaign` writes it. Budgets are executions, not time.

mod common;

use common::bonsai;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use serde_json::{Value, json};

const FIRST: &str = "m1-n2-d2-r";
const TOP: &str = "m2-n2-d2-u";

fn grammar_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../grammars/planted.ebnf")
}

fn text(output: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn fuzz(out: &Path, bounds: &str, execs: &str, extra: &[&str]) -> Value {
    let grammar = grammar_path();
    let mut args = vec![
        "fuzz",
        "--target",
        "planted",
        "--grammar",
        grammar.to_str().unwrap(),
        "--bounds",
        bounds,
        "--execs",
        execs,
        "--seed",
        "1",
        "--timeout-ms",
        "200",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let output = bonsai(&args);
    assert!(output.status.success(), "fuzz failed: {}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

struct Fixture {
    /// Kept alive for the whole test binary.
    _dir: tempfile::TempDir,
    campaign: PathBuf,
    summaries: HashMap<&'static str, Value>,
}

/// The campaign, fuzzed once for all tests of this file, and its corpus exported (golden).
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let campaign = dir.path().join("campaign");
        let first = campaign.join("nodes").join(FIRST);
        let top = campaign.join("nodes").join(TOP);
        let mut summaries = HashMap::new();
        summaries.insert(FIRST, fuzz(&first, "1,2,2", "3000", &["--valid-only"]));
        let seeds = first.join("queue");
        summaries.insert(
            TOP,
            fuzz(&top, "2,2,2", "3000", &["--seeds", seeds.to_str().unwrap()]),
        );
        let node = |name: &str, bounds: &str, valid_only: bool, preds: &[&str], start: f64| {
            json!({ "name": name, "bounds": bounds, "valid_only": valid_only,
                    "predecessors": preds, "state": "done", "attempts": 1,
                    "started_unix": start, "finished_unix": start + 2.0,
                    "elapsed_secs": summaries[name]["elapsed_secs"], "stop": "execs",
                    "summary": summaries[name] })
        };
        let state = json!({
            "version": 1, "target": "planted", "grammar": grammar_path(),
            "grammar_fingerprint": "", "max_bounds": "2,2,2", "node_time_secs": 1.0,
            "saturate_secs": null, "saturate_execs": null, "jobs": 1, "seed": 1,
            "timeout_ms": 200, "created_unix": 1000.0,
            "nodes": [node(FIRST, "1,2,2", true, &[], 1000.0),
                      node(TOP, "2,2,2", false, &[FIRST], 1003.0)],
            "top": TOP
        });
        std::fs::write(campaign.join("campaign.json"), state.to_string()).unwrap();
        let corpus = campaign.join("corpus");
        let output = bonsai(&[
            "export",
            campaign.to_str().unwrap(),
            "--out",
            corpus.to_str().unwrap(),
            "--target",
            "planted",
            "--golden",
        ]);
        assert!(output.status.success(), "export failed: {}", text(&output));
        Fixture {
            _dir: dir,
            campaign,
            summaries,
        }
    })
}

fn manifest(corpus: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(corpus.join("manifest.json")).unwrap()).unwrap()
}

/// `(text, .choices bytes, .meta)` of each complete queue entry of a node.
fn queue(node: &Path) -> Vec<(String, Vec<u8>, String)> {
    let mut metas: Vec<PathBuf> = std::fs::read_dir(node.join("queue"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "meta"))
        .collect();
    metas.sort();
    metas
        .iter()
        .map(|m| {
            (
                std::fs::read_to_string(m.with_extension("txt")).unwrap(),
                std::fs::read(m.with_extension("choices")).unwrap(),
                std::fs::read_to_string(m).unwrap(),
            )
        })
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, target).unwrap();
        }
    }
}

#[test]
fn export_writes_every_distinct_input_with_its_verdict_finder_and_unique_edges() {
    let fixture = fixture();
    let corpus = fixture.campaign.join("corpus");
    let manifest = manifest(&corpus);
    assert_eq!(manifest["format"], "bonsai-regression-corpus");
    assert_eq!(manifest["target"], "planted");
    assert_eq!(manifest["bounds"], "2,2,2");
    assert_eq!(manifest["golden"], true);

    let top = queue(&fixture.campaign.join("nodes").join(TOP));
    let mut seen = HashSet::new();
    let distinct: Vec<_> = top
        .iter()
        .filter(|(t, _, _)| seen.insert(t.clone()))
        .collect();
    let first: HashSet<String> = queue(&fixture.campaign.join("nodes").join(FIRST))
        .into_iter()
        .map(|(t, _, _)| t)
        .collect();
    let inputs = manifest["inputs"].as_array().unwrap();
    // After the top node's inputs, each fault bucket's reproducer (over every node), so that
    // `replay --check` runs every bug the campaign found.
    let listed = bonsai(&["faults", fixture.campaign.to_str().unwrap(), "--json"]);
    let listed = common::summary_of(&listed.stdout);
    let reproducers: HashSet<String> = listed["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| std::fs::read_to_string(b["reproducer"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(inputs.len(), distinct.len() + reproducers.len());
    let (inputs, fault_inputs) = inputs.split_at(distinct.len());
    let exported_faults: HashSet<String> = fault_inputs
        .iter()
        .map(|i| std::fs::read_to_string(corpus.join(i["file"].as_str().unwrap())).unwrap())
        .collect();
    assert_eq!(exported_faults, reproducers);
    let total = manifest["edges"].as_u64().unwrap();
    assert!(total > 0);
    let (mut unique_sum, mut by_node) = (0, HashMap::<String, usize>::new());
    for (input, (text, choices, meta)) in inputs.iter().zip(&distinct) {
        let file = input["file"].as_str().unwrap();
        assert!(file.ends_with(".txt"), "{file}");
        assert_eq!(&std::fs::read_to_string(corpus.join(file)).unwrap(), text);
        assert_eq!(input["size"].as_u64().unwrap() as usize, text.len());
        let saved = std::fs::read(corpus.join(input["choices"].as_str().unwrap())).unwrap();
        assert_eq!(&saved, choices, "{file}: choices copied unchanged");
        // The fuzzer's own verdict in the .meta line and the replayed one agree.
        let verdict = input["verdict"].as_str().unwrap();
        assert!(matches!(verdict, "valid" | "invalid"), "{file}: {verdict}");
        assert_eq!(
            meta.contains(r#""valid":true"#),
            verdict == "valid",
            "{file}: {meta}"
        );
        // Planted's golden output is its verdict and message.
        let message = input.get("message").and_then(Value::as_str).unwrap_or("");
        let expected = if verdict == "valid" {
            "valid".to_string()
        } else {
            format!("invalid: {message}")
        };
        assert_eq!(input["output"], expected.as_str(), "{file}");
        let edges = input["edges"].as_u64().unwrap();
        let unique = input["unique_edges"].as_u64().unwrap();
        assert!(edges > 0 && unique <= edges && edges <= total, "{input}");
        unique_sum += unique;
        let node = input["node"].as_str().unwrap();
        assert_eq!(
            node == FIRST,
            first.contains(text),
            "{file} attributed to {node}"
        );
        *by_node.entry(node.to_string()).or_default() += 1;
    }
    assert!(
        unique_sum <= total,
        "{unique_sum} unique edges > {total} edges"
    );
    assert!(by_node.get(FIRST).is_some_and(|n| *n > 0), "{by_node:?}");
    assert!(by_node.get(TOP).is_some_and(|n| *n > 0), "{by_node:?}");
}

#[test]
fn export_refuses_a_foreign_directory_and_replaces_its_own() {
    let fixture = fixture();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "mine").unwrap();
    let campaign = fixture.campaign.to_str().unwrap();
    let out = dir.path().to_str().unwrap();
    let refused = bonsai(&["export", campaign, "--out", out, "--target", "planted"]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(text(&refused).contains("not empty"), "{}", text(&refused));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.md")).unwrap(),
        "mine"
    );

    let again = dir.path().join("again");
    copy_dir(&fixture.campaign.join("corpus"), &again);
    std::fs::write(again.join("9999.txt"), "stale").unwrap();
    let output = bonsai(&[
        "export",
        campaign,
        "--out",
        again.to_str().unwrap(),
        "--target",
        "planted",
    ]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(!again.join("9999.txt").exists(), "stale input removed");
    let before = manifest(&fixture.campaign.join("corpus"));
    let after = manifest(&again);
    assert_eq!(after["golden"], false);
    let files = |m: &Value| -> Vec<(Value, Value)> {
        m["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| (i["file"].clone(), i["verdict"].clone()))
            .collect()
    };
    assert_eq!(files(&before), files(&after));

    let nowhere = bonsai(&[
        "export",
        out,
        "--out",
        "/nonexistent-x",
        "--target",
        "planted",
    ]);
    assert_eq!(nowhere.status.code(), Some(2), "{}", text(&nowhere));
    assert!(
        text(&nowhere).contains("neither a campaign"),
        "{}",
        text(&nowhere)
    );
}

/// What a kill or a full disk can leave in a queue: an entry without its `.meta`, one with a
/// truncated `.choices`, one whose text is gone, one with nothing but its `.meta`. Export
/// takes each as far as the entry itself allows, copies only choices that replay to the
/// text, and lists what it could not take whole; nothing is dropped in silence.
#[test]
fn export_rebuilds_damaged_entries_and_lists_what_it_cannot() {
    let fixture = fixture();
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    copy_dir(&fixture.campaign.join("nodes").join(TOP), &run);
    let queue = run.join("queue");
    let mut stems: Vec<String> = std::fs::read_dir(&queue)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "meta"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    stems.sort();
    let text_of = |stem: &str| std::fs::read_to_string(queue.join(format!("{stem}.txt"))).unwrap();
    // The export also writes each fault's reproducer, so an entry whose text is a saved fault
    // too (an input that once ran in time and once did not) is exported whatever happens to
    // its queue files: none of the four is such an entry.
    let fault_texts: HashSet<String> = ["crashes", "hangs"]
        .iter()
        .filter_map(|sub| std::fs::read_dir(run.join(sub)).ok())
        .flatten()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let mut distinct = HashSet::new();
    let picked: Vec<String> = stems
        .iter()
        .filter(|s| !fault_texts.contains(&text_of(s)))
        .filter(|s| distinct.insert(text_of(s)))
        .take(4)
        .cloned()
        .collect();
    let [no_meta, truncated, no_text, nothing] = picked.as_slice() else {
        panic!("too few entries: {stems:?}");
    };
    let texts: HashSet<String> = stems
        .iter()
        .filter(|s| *s != nothing)
        .map(|s| text_of(s))
        .collect();
    let truncated_text = text_of(truncated);
    let text_of_nothing = text_of(nothing);
    let no_text_text = text_of(no_text);
    let path = |stem: &str, extension: &str| queue.join(format!("{stem}.{extension}"));
    std::fs::remove_file(path(no_meta, "meta")).unwrap();
    let bytes = std::fs::read(path(truncated, "choices")).unwrap();
    std::fs::write(path(truncated, "choices"), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::remove_file(path(no_text, "txt")).unwrap();
    std::fs::remove_file(path(nothing, "txt")).unwrap();
    std::fs::remove_file(path(nothing, "choices")).unwrap();

    let corpus = dir.path().join("corpus");
    let output = bonsai(&[
        "export",
        run.to_str().unwrap(),
        "--out",
        corpus.to_str().unwrap(),
        "--target",
        "planted",
    ]);
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains(&format!("{truncated}.txt: exported without its choices")),
        "{said}"
    );
    assert!(
        said.contains(&format!("{no_text}.choices: its text is missing")),
        "{said}"
    );
    assert!(said.contains(&format!("{nothing}: not exported")), "{said}");
    let manifest = manifest(&corpus);
    let inputs = manifest["inputs"].as_array().unwrap();
    let exported: HashMap<String, &Value> = inputs
        .iter()
        .map(|i| {
            let file = corpus.join(i["file"].as_str().unwrap());
            (std::fs::read_to_string(file).unwrap(), i)
        })
        .collect();
    // Every input but the one with nothing left, and besides them only the faults'
    // reproducers (the export ends with each bucket's).
    let exported_texts: HashSet<String> = exported.keys().cloned().collect();
    assert!(
        texts.is_subset(&exported_texts),
        "missing: {:?}",
        texts.difference(&exported_texts).collect::<Vec<_>>()
    );
    let others: Vec<_> = exported_texts
        .difference(&texts)
        .filter(|t| !fault_texts.contains(*t))
        .collect();
    assert!(
        others.is_empty(),
        "exported besides the queue and the faults: {others:?}"
    );
    assert!(!exported_texts.contains(&text_of_nothing));
    assert!(exported[&truncated_text]["choices"].is_null());
    assert!(exported[&no_text_text]["choices"].is_string());
    let grammar = grammar_path();
    for (text, input) in &exported {
        let Some(choices) = input["choices"].as_str() else {
            continue;
        };
        let replayed = bonsai(&[
            "generate",
            grammar.to_str().unwrap(),
            "--replay",
            corpus.join(choices).to_str().unwrap(),
        ]);
        assert!(replayed.status.success(), "{}", self::text(&replayed));
        assert_eq!(
            String::from_utf8_lossy(&replayed.stdout).trim_end(),
            text.trim_end()
        );
    }
}

#[test]
fn replay_check_passes_unchanged_and_reports_every_change() {
    let fixture = fixture();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    copy_dir(&fixture.campaign.join("corpus"), &corpus);
    let path = corpus.to_str().unwrap();
    let check = || bonsai(&["replay", "--target", "planted", path, "--check"]);

    let unchanged = check();
    assert!(unchanged.status.success(), "{}", text(&unchanged));
    assert!(
        text(&unchanged).contains(": 0 changed"),
        "{}",
        text(&unchanged)
    );

    let mut edited = manifest(&corpus);
    let inputs = edited["inputs"].as_array_mut().unwrap();
    let valid = inputs.iter().position(|i| i["verdict"] == "valid").unwrap();
    let file = inputs[valid]["file"].as_str().unwrap().to_string();
    inputs[valid]["verdict"] = json!("invalid");
    let other = (valid + 1) % inputs.len();
    let other_file = inputs[other]["file"].as_str().unwrap().to_string();
    inputs[other]["output"] = json!("something else");
    std::fs::write(corpus.join("manifest.json"), edited.to_string()).unwrap();
    let changed = check();
    assert_eq!(changed.status.code(), Some(1), "{}", text(&changed));
    let report = text(&changed);
    assert!(
        report.contains(&format!("{file}: verdict: \"invalid\" -> \"valid\"")),
        "{report}"
    );
    assert!(
        report.contains(&format!("{other_file}: output differs")),
        "{report}"
    );
    assert!(report.contains("2 changed"), "{report}");

    std::fs::write(
        corpus.join("manifest.json"),
        "{\"format\": \"bonsai-regression-corpus\",\n\"version\": x}",
    )
    .unwrap();
    let corrupt = check();
    assert_eq!(corrupt.status.code(), Some(2), "{}", text(&corrupt));
    assert!(
        text(&corrupt).contains("manifest.json:2:"),
        "{}",
        text(&corrupt)
    );
}

#[test]
fn coverage_csv_is_monotone_and_ends_at_the_summary() {
    let fixture = fixture();
    for (name, summary) in &fixture.summaries {
        let csv = std::fs::read_to_string(
            fixture
                .campaign
                .join("nodes")
                .join(name)
                .join("coverage.csv"),
        )
        .unwrap();
        let mut lines = csv.lines();
        assert_eq!(
            lines.next(),
            Some("secs,execs,edges,corpus,valid,crashes,hangs,kpath2")
        );
        let rows: Vec<Vec<f64>> = lines
            .map(|l| l.split(',').map(|f| f.parse().unwrap()).collect())
            .collect();
        assert!(rows.len() >= 2, "{name}: {csv}");
        assert_eq!(
            rows[0],
            vec![0.0; 8],
            "{name}: a fresh run starts at the origin"
        );
        for pair in rows.windows(2) {
            for column in [0, 1, 2, 7] {
                assert!(pair[0][column] <= pair[1][column], "{name}: {csv}");
            }
        }
        let last = rows.last().unwrap();
        assert_eq!(last[1], summary["execs"].as_f64().unwrap(), "{name}");
        assert_eq!(last[2], summary["edges"].as_f64().unwrap(), "{name}");
        assert_eq!(last[3], summary["corpus"].as_f64().unwrap(), "{name}");
        assert_eq!(last[7], summary["kpaths"].as_f64().unwrap(), "{name}");
    }
}

#[test]
fn coverage_csv_continues_its_clock_when_a_run_is_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let first = fuzz(&out, "1,2,2", "500", &[]);
    let second = fuzz(&out, "1,2,2", "500", &[]);
    let csv = std::fs::read_to_string(out.join("coverage.csv")).unwrap();
    let rows: Vec<Vec<f64>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|f| f.parse().unwrap()).collect())
        .collect();
    assert_eq!(csv.lines().filter(|l| l.starts_with("secs")).count(), 1);
    for pair in rows.windows(2) {
        assert!(
            pair[0][0] <= pair[1][0] && pair[0][1] <= pair[1][1],
            "{csv}"
        );
    }
    let total = first["execs"].as_f64().unwrap() + second["execs"].as_f64().unwrap();
    assert_eq!(rows.last().unwrap()[1], total, "{csv}");
    let elapsed =
        first["elapsed_secs"].as_f64().unwrap() + second["elapsed_secs"].as_f64().unwrap();
    assert!((rows.last().unwrap()[0] - elapsed).abs() < 0.01, "{csv}");
}

#[test]
fn report_of_a_campaign_has_every_section_plot_and_contribution() {
    let fixture = fixture();
    // A copy, so that the report's files do not race the other tests' reads.
    let dir = tempfile::tempdir().unwrap();
    let campaign = dir.path().join("c");
    copy_dir(&fixture.campaign, &campaign);
    // The same fault saved by both nodes (each keeps its own record) is listed once.
    for node in [FIRST, TOP] {
        let crashes = campaign.join("nodes").join(node).join("crashes");
        std::fs::write(crashes.join("000000.txt"), "print 1;").unwrap();
        std::fs::write(
            crashes.join("000000.meta"),
            concat!(
                r#"{"size":8,"valid":false,"edges":3,"new_edges":0,"parent":null,"#,
                r#""mutator":"havoc","time":1.0,"fault":{"kind":"panic","#,
                r#""signature":"00000000000000ab","message":"planted boom","#,
                r#""location":"boom.rs:1:5 in planted::boom","frames":["planted::boom (boom.rs:1)"]}}"#,
                "\n"
            ),
        )
        .unwrap();
    }
    let output = bonsai(&["report", campaign.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(text(&output).contains("report.html"));
    let md = std::fs::read_to_string(campaign.join("report.md")).unwrap();
    for section in [
        "## Coverage over time",
        "## Lattice",
        "## Valid share per node",
        "## Input sizes",
        "## Top inputs by unique coverage",
        "## Grammar coverage",
        "## Faults",
        "](plots/coverage.svg)",
        "](plots/valid.svg)",
        "](plots/sizes.svg)",
    ] {
        assert!(md.contains(section), "report.md lacks {section}:\n{md}");
    }
    for node in [FIRST, TOP] {
        assert!(md.contains(&format!("| {node} |")), "{md}");
    }
    let html = std::fs::read_to_string(campaign.join("report.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 4, "plots inlined");
    assert!(!html.contains("<?xml"));
    for plot in ["coverage.svg", "valid.svg", "sizes.svg", "lattice.svg"] {
        let svg = std::fs::read_to_string(campaign.join("plots").join(plot)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("<rect"), "{plot}");
    }
    // The lattice picture: a box per node, the top one outlined, an arrow per seeding.
    let lattice = std::fs::read_to_string(campaign.join("plots/lattice.svg")).unwrap();
    assert!(md.contains("](plots/lattice.svg)"), "{md}");
    assert_eq!(lattice.matches("<g class=\"node").count(), 2, "{lattice}");
    assert_eq!(
        lattice.matches("<g class=\"node top\">").count(),
        1,
        "{lattice}"
    );
    assert!(
        lattice.contains(&format!("<g class=\"node top\"><title>{TOP}: ")),
        "{lattice}"
    );
    assert_eq!(lattice.matches("class=\"seeds\"").count(), 1, "{lattice}");
    assert!(
        lattice.contains(&format!("<title>{FIRST} seeds {TOP}</title>")),
        "{lattice}"
    );
    let fault = format!(
        "| [nodes/{FIRST}/crashes/000000.txt (8 B)](nodes/{FIRST}/crashes/000000.txt) | panic | boom.rs:1:5 in planted::boom |"
    );
    assert!(md.contains(&fault), "{md}");
    let row = md.lines().find(|l| l.contains("planted boom")).unwrap();
    assert!(
        row.contains(&format!("{FIRST}, {TOP}")),
        "hit by both nodes: {row}"
    );
    assert_eq!(md.matches("planted boom").count(), 1, "{md}");
    // Every distinct input of the top corpus is credited to exactly one node.
    let facts = bonsai::report::Facts::gather(&campaign).unwrap();
    let credited: usize = facts.nodes.iter().map(|n| n.contributed).sum();
    assert_eq!(credited, facts.top_sizes.len());
    assert!(
        facts
            .nodes
            .iter()
            .all(|n| n.contributed > 0 && !n.coverage.is_empty())
    );
    let manifest = manifest(&campaign.join("corpus"));
    // The grammar coverage is that of the exported corpus, every input read through its
    // choices, and says which productions no input uses.
    let grammar = facts.grammar_coverage.as_ref().expect("the grammar loads");
    assert_eq!(grammar.of, "corpus");
    assert_eq!(grammar.inputs, manifest["inputs"].as_array().unwrap().len());
    assert!(grammar.refused.is_empty(), "{:?}", grammar.refused);
    let rule = &grammar.criteria[0];
    assert_eq!(rule.criterion, "rule");
    assert!(rule.covered > 0 && rule.covered <= rule.total);
    assert_eq!(rule.total - rule.covered, rule.missing.len() as u128);
    let best = manifest["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .max_by_key(|i| i["unique_edges"].as_u64())
        .unwrap();
    if best["unique_edges"].as_u64() > Some(0) {
        let link = format!("(corpus/{})", best["file"].as_str().unwrap());
        assert!(md.contains(&link), "best input {link} not listed:\n{md}");
    }

    // A single fuzzing output reports as one run, its corpus exported with the target its
    // fuzz.json names.
    let single = campaign.join("nodes").join(FIRST);
    let output = bonsai(&["report", single.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output));
    let md = std::fs::read_to_string(single.join("report.md")).unwrap();
    assert!(md.contains("## Run"), "{md}");
    assert_eq!(crate::manifest(&single.join("corpus"))["target"], "planted");
}

/// `campaign.json` (or a fuzzing output's `fuzz.json`) already names the target: export and
/// report take it from there, and a run whose target binary is not at hand still gets a report.
#[test]
fn export_and_report_take_the_target_the_run_recorded() {
    let fixture = fixture();
    let dir = tempfile::tempdir().unwrap();
    let campaign = dir.path().join("c");
    copy_dir(&fixture.campaign, &campaign);
    std::fs::remove_dir_all(campaign.join("corpus")).unwrap();

    let corpus = dir.path().join("exported");
    let output = bonsai(&[
        "export",
        campaign.to_str().unwrap(),
        "--out",
        corpus.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output));
    let exported = manifest(&corpus);
    assert_eq!(exported["target"], "planted");
    assert_eq!(
        exported["inputs"].as_array().unwrap().len(),
        manifest(&fixture.campaign.join("corpus"))["inputs"]
            .as_array()
            .unwrap()
            .len()
    );

    let output = bonsai(&["report", campaign.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(text(&output).contains("exported"), "{}", text(&output));
    let md = std::fs::read_to_string(campaign.join("report.md")).unwrap();
    assert!(md.contains("## Top inputs by unique coverage"), "{md}");
    assert!(!md.contains("No exported corpus"), "{md}");

    // A campaign of a target no binary here has: export cannot run it and says which...
    let state_path = campaign.join("campaign.json");
    let mut state: Value =
        serde_json::from_str(&std::fs::read_to_string(&state_path).unwrap()).unwrap();
    state["target"] = json!("nosuchtarget");
    std::fs::write(&state_path, state.to_string()).unwrap();
    let output = bonsai(&[
        "export",
        campaign.to_str().unwrap(),
        "--out",
        dir.path().join("other").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("unknown target 'nosuchtarget'"),
        "{}",
        text(&output)
    );
    // ...and report writes what the files hold, saying what it left out.
    std::fs::remove_dir_all(campaign.join("corpus")).unwrap();
    let output = bonsai(&["report", campaign.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(
        text(&output).contains("no binary bonsai-nosuchtarget"),
        "{}",
        text(&output)
    );
    let md = std::fs::read_to_string(campaign.join("report.md")).unwrap();
    assert!(md.contains("No exported corpus"), "{md}");
}

/// An exported corpus names its grammar relative to where it was exported (the repository's
/// root, typically); replay finds it from anywhere below that directory.
#[test]
fn replay_of_an_exported_corpus_finds_its_grammar_from_the_manifest() {
    let fixture = fixture();
    let repo = tempfile::tempdir().unwrap();
    let corpus = repo.path().join("corpus").join("planted");
    copy_dir(&fixture.campaign.join("corpus"), &corpus);
    std::fs::create_dir(repo.path().join("grammars")).unwrap();
    let grammar = repo.path().join("grammars").join("planted.ebnf");
    std::fs::copy(grammar_path(), &grammar).unwrap();
    let mut edited = manifest(&corpus);
    edited["grammar"] = json!("grammars/planted.ebnf");
    std::fs::write(corpus.join("manifest.json"), edited.to_string()).unwrap();
    let inputs = edited["inputs"].as_array().unwrap().len();

    // Run from a directory where the relative path does not lead to the grammar.
    let elsewhere = tempfile::tempdir().unwrap();
    let replay = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_bonsai-planted"))
            .args(["replay", "--target", "planted"])
            .arg(&corpus)
            .current_dir(elsewhere.path())
            .env("BONSAI_LOG", "warn")
            .output()
            .unwrap()
    };
    let output = replay();
    assert!(output.status.success(), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("total: {inputs} inputs")),
        "{stdout}"
    );
    assert!(!stdout.contains(" error "), "{stdout}");

    // A grammar changed since the export is named; its choices do not replay.
    std::fs::write(&grammar, "start = \"x\" ;\n").unwrap();
    let output = replay();
    assert!(
        text(&output).contains("is not the grammar the corpus was exported with"),
        "{}",
        text(&output)
    );

    std::fs::remove_file(&grammar).unwrap();
    let output = replay();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let message = text(&output);
    assert!(
        message.contains("manifest.json") && message.contains("grammars/planted.ebnf"),
        "{message}"
    );
    assert!(message.contains("pass --grammar"), "{message}");
}

#[test]
fn run_forked_survives_and_classifies_every_planted_fault() {
    use bonsai::replay::{Outcome, input_text, run_forked};
    use bonsai::target::LinkedTarget;
    let target = LinkedTarget {
        name: "planted",
        make: || Box::new(bonsai_target_planted::Planted),
    };
    let grammar = bonsai::grammar::Grammar::from_file(&grammar_path()).unwrap();
    let seeds = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/seeds");
    let budget = std::time::Duration::from_millis(200);
    for (seed, outcome) in [
        ("abort", Outcome::Crash),
        ("stack-overflow", Outcome::StackOverflow),
        ("hang", Outcome::Timeout),
    ] {
        let text = input_text(&seeds.join(format!("{seed}.choices")), Some(&grammar)).unwrap();
        let run = run_forked(target, text.as_bytes(), budget, true);
        assert_eq!(run.outcome, outcome, "{seed}: {run:?}");
        assert!(
            run.edges.is_empty() && run.output.is_none(),
            "{seed}: {run:?}"
        );
    }
    // A valid input: its edges, the same on every run (nothing leaks between children), and
    // the target's output.
    let first = run_forked(target, b"", budget, true);
    assert_eq!(first.outcome, Outcome::Valid, "{first:?}");
    assert!(!first.edges.is_empty());
    assert_eq!(first.output.as_deref(), Some("valid"));
    assert_eq!(run_forked(target, b"", budget, false).edges, first.edges);
}

#[test]
fn coverage_csv_keeps_one_clock_across_restarts_after_crashes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let seeds = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/seeds");
    // The seeds abort, overflow the stack and hang: three restarts of the fuzzing process.
    let summary = fuzz(&out, "2,3,4", "400", &["--seeds", seeds.to_str().unwrap()]);
    assert!(summary["restarts"].as_u64().unwrap() >= 3, "{summary}");
    let csv = std::fs::read_to_string(out.join("coverage.csv")).unwrap();
    let rows: Vec<Vec<f64>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|f| f.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.iter().filter(|r| r[0] == 0.0).count(), 1, "{csv}");
    for pair in rows.windows(2) {
        for column in [0, 1, 2] {
            assert!(pair[0][column] <= pair[1][column], "{csv}");
        }
    }
    let last = rows.last().unwrap();
    assert_eq!(last[2], summary["edges"].as_f64().unwrap(), "{csv}");
    assert_eq!(last[6], summary["hangs"].as_f64().unwrap(), "{csv}");
}
