//! End to end: `bonsai-planted campaign` runs the Bonsai lattice on the planted target, and
//! resumes after Ctrl-C and `kill -9` without losing a saved input. Node budgets are
//! executions where the test asserts on results, and short times where it only needs the
//! campaign to be busy when it is killed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bonsai::choice::{Replay, SavedChoices};
use bonsai::grammar::Grammar;
use bonsai::sampler::{Sample, Sampler};
use bonsai::text::render;
use libafl_bolts::rands::{Rand, StdRand};
use serde_json::Value;

mod common;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn grammar_path() -> PathBuf {
    root().join("grammars/planted.ebnf")
}

fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bonsai-planted"));
    cmd.args(args).env("BONSAI_LOG", "warn");
    cmd
}

fn bonsai(args: &[&str]) -> Output {
    command(args).output().expect("bonsai-planted runs")
}

fn new_campaign_args(out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "campaign",
        "--target",
        "planted",
        "--grammar",
        grammar_path().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--timeout-ms",
        "100",
        "--jobs",
        "2",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Turns `new_campaign_args`' two jobs into one: one node runs at a time.
fn one_job(args: &mut [String]) {
    let jobs = args.iter().position(|a| a == "--jobs").unwrap();
    args[jobs + 1] = "1".into();
}

fn state(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("campaign.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn nodes(state: &Value) -> Vec<Value> {
    state["nodes"].as_array().unwrap().clone()
}

/// `(text, choices bytes)` of every entry of `dir`, by file stem.
fn entries(dir: &Path) -> BTreeMap<String, (String, Vec<u8>)> {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    listing
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "choices"))
        .filter_map(|p| {
            let stem = p.file_stem()?.to_string_lossy().into_owned();
            let text = std::fs::read_to_string(p.with_extension("txt")).ok()?;
            let choices = std::fs::read(&p).ok()?;
            Some((stem, (text, choices)))
        })
        .collect()
}

fn queue_texts(node_dir: &Path) -> Vec<(String, Vec<u8>)> {
    let queue = node_dir.join("queue");
    entries(&queue)
        .into_iter()
        .filter(|(stem, _)| queue.join(format!("{stem}.meta")).exists())
        .map(|(_, v)| v)
        .collect()
}

#[test]
fn a_small_lattice_runs_end_to_end_and_seeds_each_node_with_its_predecessors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("camp");
    let args = new_campaign_args(
        &out,
        &[
            "--max-bounds",
            "2,2,2",
            "--node-execs",
            "1500",
            "--seed",
            "3",
            "--json",
        ],
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = bonsai(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{}\n{stdout}\n{stderr}",
        output.status
    );
    let summary: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(summary["nodes"], 16);
    assert_eq!(summary["done"], 16);
    assert_eq!(summary["interrupted"], false);
    assert!(stderr.contains("campaign complete"), "{stderr}");

    let state = state(&out);
    assert_eq!(state["version"], 1);
    assert_eq!(state["target"], "planted");
    assert_eq!(state["max_bounds"], "2,2,2");
    assert_eq!(state["top"], "m2-n2-d2-u");
    let nodes = nodes(&state);
    assert_eq!(nodes.len(), 16);
    let by_name: BTreeMap<String, Value> = nodes
        .iter()
        .map(|n| (n["name"].as_str().unwrap().to_string(), n.clone()))
        .collect();
    let grammar = Grammar::from_file(&grammar_path()).unwrap();
    for node in &nodes {
        let name = node["name"].as_str().unwrap();
        assert_eq!(node["state"], "done", "{name}");
        assert_eq!(node["attempts"], 1, "{name}");
        assert_eq!(node["stop"], "execs", "{name}");
        assert!(node["finished_unix"].as_f64() >= node["started_unix"].as_f64());
        let summary = &node["summary"];
        assert_eq!(summary["bounds"], node["bounds"]);
        assert_eq!(summary["valid_only"], node["valid_only"]);
        assert_eq!(node["valid_only"], name.ends_with("-r"), "{name}");

        // Seeds: exactly the union of the predecessors' queues, deduplicated by text, smallest
        // first, each with the choices of the first predecessor (in lattice order) that has it.
        let predecessors: Vec<&str> = node["predecessors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        let seeds = entries(&out.join("seeds").join(name));
        if predecessors.is_empty() {
            assert_eq!(name, "m1-n1-d1-r");
            assert!(seeds.is_empty());
            continue;
        }
        let mut expected: BTreeMap<(usize, String), Vec<u8>> = BTreeMap::new();
        for p in &predecessors {
            assert_eq!(by_name[*p]["state"], "done");
            for (text, choices) in queue_texts(&out.join("nodes").join(p)) {
                expected.entry((text.len(), text)).or_insert(choices);
            }
        }
        let got: Vec<(String, Vec<u8>)> = seeds.into_values().collect();
        let want: Vec<(String, Vec<u8>)> = expected.into_iter().map(|((_, t), c)| (t, c)).collect();
        assert_eq!(got, want, "seeds of {name}");
        // Every seed replays strictly under the node's larger bounds: none is skipped. A node
        // whose fuzzing process was relaunched within its attempt (on a loaded machine a slow
        // execution can be taken for a hang) also reloads its own queue, so it may load more.
        let loaded = summary["seeds_loaded"].as_u64().unwrap() as usize;
        if summary["restarts"].as_u64() == Some(0) {
            assert_eq!(loaded, want.len(), "{name}");
        } else {
            assert!(loaded >= want.len(), "{name}: {loaded} < {}", want.len());
        }
        assert_eq!(summary["seeds_skipped"], 0, "{name}");
        // A node replays all its predecessors' inputs on the same deterministic target, so it
        // covers at least what each of them covered (restricted nodes: valid edges).
        for p in &predecessors {
            let mine = summary["edges"].as_u64().unwrap();
            let theirs = by_name[*p]["summary"]["edges"].as_u64().unwrap();
            assert!(
                mine >= theirs,
                "{name} has {mine} edges, its predecessor {p} {theirs}"
            );
        }
    }

    // The result: the top node's queue, every input readable and replaying to its text.
    let top = out.join("nodes/m2-n2-d2-u/queue");
    let top_entries = queue_texts(&out.join("nodes/m2-n2-d2-u"));
    assert!(!top_entries.is_empty());
    let top_bounds = "2,2,2".parse().unwrap();
    let mut rng = StdRand::with_seed(0);
    for (text, choices) in &top_entries {
        let saved = SavedChoices::from_bytes(choices).unwrap();
        assert!(saved.bounds.within(&top_bounds));
        let mut sampler = Sampler::new(&grammar, top_bounds).unwrap();
        let mut sample = Sample::default();
        sampler
            .sample(
                saved.choices.as_slice(),
                Replay::Strict,
                &mut rng,
                &mut sample,
            )
            .unwrap();
        assert_eq!(
            &render(&grammar, &sample.tree),
            text,
            "in {}",
            top.display()
        );
    }
    let top_summary = &by_name["m2-n2-d2-u"]["summary"];
    let max_edges = nodes
        .iter()
        .map(|n| n["summary"]["edges"].as_u64().unwrap())
        .max()
        .unwrap();
    assert_eq!(top_summary["edges"].as_u64().unwrap(), max_edges);

    let log = std::fs::read_to_string(out.join("campaign.log")).unwrap();
    for node in by_name.keys() {
        assert!(log.contains(&format!("node {node} started")), "{log}");
        assert!(log.contains(&format!("node {node} done")), "{log}");
    }
    assert!(log.contains("campaign complete"));
}

/// Under `--budget`, nodes share one pot of time: each node is promised an even share of
/// what is left as it starts, so what saturating nodes leave goes to the ones above them. The
/// shares are checked against the recorded times (arithmetic on what the campaign wrote), not
/// against a clock.
#[test]
fn a_campaign_budget_passes_the_time_saturated_nodes_leave_up_to_the_top() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut args = new_campaign_args(
        &out,
        &[
            "--max-bounds",
            "1,1,2",
            "--budget",
            "12s",
            "--saturate-execs",
            "300",
            "--no-report",
        ],
    );
    // One node at a time, so that every share is decided by finished nodes alone.
    one_job(&mut args);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = bonsai(&args);
    assert!(run.status.success(), "{run:?}");
    let state = state(&out);
    assert_eq!(state["budget_secs"].as_f64(), Some(12.0));
    let nodes = nodes(&state);
    assert_eq!(nodes.len(), 4);
    let mut spent = 0.0;
    let mut started: Vec<&Value> = nodes.iter().collect();
    started.sort_by(|a, b| {
        a["started_unix"]
            .as_f64()
            .unwrap()
            .total_cmp(&b["started_unix"].as_f64().unwrap())
    });
    for (i, node) in started.iter().enumerate() {
        let share = ((12.0 - spent) / (nodes.len() - i) as f64).max(1.0);
        let allotted = node["allotted_secs"].as_f64().unwrap();
        assert!(
            (allotted - share).abs() < 1e-6,
            "{} was given {allotted} s, its share is {share} s",
            node["name"]
        );
        spent += node["elapsed_secs"].as_f64().unwrap();
    }
    // The planted lattice saturates long before its shares run out, so the last node (the
    // top) was given more than an even quarter.
    let top = started.last().unwrap();
    assert_eq!(top["name"], "m1-n1-d2-u");
    assert!(top["allotted_secs"].as_f64().unwrap() > 3.0, "{top}");
    // And, with no node above it to pass time to, it used all of it instead of stopping at
    // saturation as the nodes below did.
    assert_eq!(top["stop"], "time", "{top}");
    assert!(
        started[..3].iter().all(|n| n["stop"] == "saturated"),
        "{started:?}"
    );
}

fn spawn_in_own_group(args: &[String]) -> Child {
    use std::os::unix::process::CommandExt;
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    command(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap()
}

fn done_count(out: &Path) -> usize {
    std::fs::read_to_string(out.join("campaign.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .map_or(0, |s| {
            nodes(&s).iter().filter(|n| n["state"] == "done").count()
        })
}

/// Every complete queue entry of every node: (node, stem) -> choices bytes.
fn saved_inputs(out: &Path) -> BTreeMap<(String, String), Vec<u8>> {
    let mut all = BTreeMap::new();
    let Ok(listing) = std::fs::read_dir(out.join("nodes")) else {
        return all;
    };
    for node in listing.filter_map(Result::ok) {
        let name = node.file_name().to_string_lossy().into_owned();
        let queue = node.path().join("queue");
        let Ok(files) = std::fs::read_dir(&queue) else {
            continue;
        };
        for file in files.filter_map(Result::ok) {
            let path = file.path();
            if path.extension().is_some_and(|x| x == "choices") {
                let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
                if let Ok(bytes) = std::fs::read(&path) {
                    all.insert((name.clone(), stem), bytes);
                }
            }
        }
    }
    all
}

#[test]
fn kill_9_at_random_moments_loses_no_saved_input_and_the_campaign_completes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("camp");
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("kill moments from seed {seed}");
    let mut rng = StdRand::with_seed(seed);
    let first = new_campaign_args(&out, &["--max-bounds", "2,2,1", "--node-time", "3s"]);
    let resume: Vec<String> = ["campaign", "--resume", out.to_str().unwrap()]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut seen: BTreeMap<(String, String), Vec<u8>> = BTreeMap::new();
    let mut restarted: BTreeSet<String> = BTreeSet::new();
    for round in 0..4 {
        let args = if round == 0 { &first } else { &resume };
        let mut child = spawn_in_own_group(args);
        let group = child.id();
        // Spread the kills over the campaign: wait until about two more nodes per round are
        // done, then a random moment into whatever runs next.
        let target_done = 2 * round + rng.below(core::num::NonZero::new(2).unwrap());
        let deadline = Instant::now() + Duration::from_secs(60);
        // A campaign killed before it wrote campaign.json never existed: there is nothing to
        // resume, so the first kill waits for the file.
        while (done_count(&out) < target_done || !out.join("campaign.json").exists())
            && child.try_wait().unwrap().is_none()
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        let delay = Duration::from_millis(rng.below(core::num::NonZero::new(2500).unwrap()) as u64);
        std::thread::sleep(delay);
        if child.try_wait().unwrap().is_some() {
            break; // finished before this kill: nothing more to interrupt
        }
        // SAFETY: our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
        child.wait().unwrap();
        common::wait_for_group_to_end(group);
        let state = state(&out);
        for node in nodes(&state) {
            if node["state"] == "running" {
                restarted.insert(node["name"].as_str().unwrap().to_string());
            }
        }
        let now = saved_inputs(&out);
        for (key, bytes) in &seen {
            assert_eq!(
                now.get(key),
                Some(bytes),
                "round {round}: {key:?} lost or changed"
            );
        }
        seen = now;
        eprintln!(
            "round {round}: killed {delay:?} after {target_done} nodes were done; {} inputs saved",
            seen.len()
        );
    }
    let output = bonsai(&resume.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        output.status.success(),
        "{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let now = saved_inputs(&out);
    for (key, bytes) in &seen {
        assert_eq!(
            now.get(key),
            Some(bytes),
            "{key:?} lost or changed by the final run"
        );
    }
    let state = state(&out);
    for node in nodes(&state) {
        let name = node["name"].as_str().unwrap();
        assert_eq!(node["state"], "done", "{name}");
        if restarted.contains(name) {
            assert!(
                node["attempts"].as_u64().unwrap() >= 2,
                "{name} was running when killed"
            );
        }
    }
    let log = std::fs::read_to_string(out.join("campaign.log")).unwrap();
    assert!(log.contains("campaign resumed"), "{log}");
    assert!(log.contains("campaign complete"), "{log}");
}

#[test]
fn ctrl_c_stops_the_nodes_cleanly_and_resume_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("camp");
    let args = new_campaign_args(&out, &["--max-bounds", "1,2,1", "--node-time", "3s"]);
    let child = spawn_in_own_group(&args);
    let group = child.id();
    // Wait until a node runs, then interrupt as a terminal's Ctrl-C does: the whole group.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let running = std::fs::read_to_string(out.join("campaign.json"))
            .is_ok_and(|t| t.contains("\"running\""));
        if running {
            break;
        }
        assert!(Instant::now() < deadline, "no node started");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: our own process group.
    unsafe { libc::kill(-(group as i32), libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("--resume"), "{stderr}");
    common::wait_for_group_to_end(group);
    let state = state(&out);
    let states: Vec<String> = nodes(&state)
        .iter()
        .map(|n| n["state"].as_str().unwrap().to_string())
        .collect();
    assert!(
        states.iter().all(|s| s == "waiting" || s == "done"),
        "{states:?}"
    );
    assert!(states.iter().any(|s| s == "waiting"));

    let output = bonsai(&["campaign", "--resume", out.to_str().unwrap(), "--jobs", "1"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        nodes(&crate::state(&out))
            .iter()
            .all(|n| n["state"] == "done")
    );
}

fn assert_usage_error(output: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(needle), "expected '{needle}' in: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bad_flags_and_corrupt_state_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("camp");
    let run = |extra: &[&str]| {
        let args = new_campaign_args(&out, extra);
        bonsai(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    assert_usage_error(&run(&["--max-bounds", "0,1,1"]), "at least 1");
    // Two million nodes were written to campaign.json before anything started.
    assert_usage_error(
        &run(&["--max-bounds", "100,100,100"]),
        "'--max-bounds <M,N,D>': the lattice up to 100,100,100 would have 2000000 nodes",
    );
    assert!(!out.exists(), "a refused campaign creates nothing");
    assert_usage_error(&run(&["--node-time", "5x"]), "unit");
    let zero_jobs = bonsai(&[
        "campaign",
        "--target",
        "planted",
        "--grammar",
        grammar_path().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "0",
    ]);
    assert_usage_error(&zero_jobs, "--jobs must be at least 1");
    assert!(!out.exists(), "a refused campaign creates nothing");
    let missing = bonsai(&[
        "campaign",
        "--target",
        "planted",
        "--grammar",
        "/nonexistent.ebnf",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_usage_error(&missing, "grammar file not found");
    let barren = dir.path().join("barren.ebnf");
    std::fs::write(&barren, "program = \"x\" program ;\n").unwrap();
    let barren = bonsai(&[
        "campaign",
        "--target",
        "planted",
        "--grammar",
        barren.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_usage_error(&barren, "cannot derive any word");
    let unwritable = bonsai(&[
        "campaign",
        "--target",
        "planted",
        "--grammar",
        grammar_path().to_str().unwrap(),
        "--out",
        "/proc/bonsai-campaign",
    ]);
    assert_usage_error(&unwritable, "/proc/bonsai-campaign");
    assert_usage_error(
        &bonsai(&[
            "campaign",
            "--resume",
            out.to_str().unwrap(),
            "--max-bounds",
            "2,2,2",
        ]),
        "cannot be used with",
    );
    assert_usage_error(
        &bonsai(&["campaign", "--resume", out.to_str().unwrap()]),
        "campaign directory not found",
    );

    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(
        out.join("campaign.json"),
        "{\n  \"version\": 1,\n  \"target\": ",
    )
    .unwrap();
    let corrupt = bonsai(&["campaign", "--resume", out.to_str().unwrap()]);
    assert_usage_error(&corrupt, "campaign.json:3:");
    // A new campaign never overwrites an existing one.
    assert_usage_error(&run(&[]), "--resume");
    std::fs::write(out.join("campaign.json"), "[]").unwrap();
    assert_usage_error(
        &bonsai(&["campaign", "--resume", out.to_str().unwrap()]),
        "corrupt campaign state",
    );
}

/// `campaign --resume DIR` names no target, so the plain `bonsai` binary (no target linked
/// in) resumed the campaign itself and then skipped the export "for want of the target",
/// exiting 0. It now hands the command to `bonsai-TARGET`, found as for every other command,
/// or fails. A binary with another target linked in stands for the plain one here: the
/// campaign's target is renamed to `fake`, whose binary is a script on PATH.
#[test]
fn resume_runs_in_the_binary_of_the_campaigns_target_or_fails() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("campaign");
    let args = new_campaign_args(
        &out,
        &["--max-bounds", "1,1,1", "--node-execs", "30", "--no-report"],
    );
    let first = bonsai(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let mut state = state(&out);
    state["target"] = "fake".into();
    std::fs::write(out.join("campaign.json"), state.to_string()).unwrap();

    let resume = ["campaign", "--resume", out.to_str().unwrap()];
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let without = command(&resume).env("PATH", &bin).output().unwrap();
    assert_usage_error(&without, "unknown target 'fake'");

    let called = dir.path().join("called");
    let script = bin.join("bonsai-fake");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"$@\" > {}\n", called.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let with = command(&resume).env("PATH", &bin).output().unwrap();
    assert!(
        with.status.success(),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&called).unwrap().trim_end(),
        resume.join(" ")
    );
}

/// `campaign --grammar-feedback kpath:K` reaches every node: campaign.json records it, and
/// each node's fuzzing run logs its queue's K-paths (a node run without the flag logs 2-paths).
#[test]
fn grammar_feedback_reaches_every_node() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("camp");
    let args = new_campaign_args(
        &out,
        &[
            "--max-bounds",
            "1,1,2",
            "--node-execs",
            "300",
            "--grammar-feedback",
            "kpath:3",
        ],
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = bonsai(&args);
    assert!(output.status.success(), "{output:?}");
    let state = state(&out);
    assert_eq!(state["grammar_feedback"], 3, "{state}");
    let nodes = nodes(&state);
    assert_eq!(nodes.len(), 4);
    for node in &nodes {
        let name = node["name"].as_str().unwrap();
        let csv = std::fs::read_to_string(out.join("nodes").join(name).join("coverage.csv"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            csv.starts_with("secs,execs,edges,corpus,valid,crashes,hangs,kpath3\n"),
            "{name}: {csv}"
        );
    }
}

/// Issue 13: imported seeds enter the lattice where they fit. Each seed joins the seeds of
/// every node whose bounds admit the bounds it was imported with (so the bottom node starts
/// from the smallest and they rise with the corpora); a seed beyond the top node is named in
/// campaign.log with the bounds it needs.
#[test]
fn user_seeds_enter_the_nodes_whose_bounds_admit_them() {
    let dir = tempfile::tempdir().unwrap();
    let texts = dir.path().join("texts");
    std::fs::create_dir(&texts).unwrap();
    let small = "let a = 1;";
    let deeper = "print 1 + 2;";
    let wide = "let a = 1; let b = 2; let c = 3; let d = 4;";
    for (name, text) in [("s1.txt", small), ("s2.txt", deeper), ("s3.txt", wide)] {
        std::fs::write(texts.join(name), text).unwrap();
    }
    let seeds = dir.path().join("seeds");
    let imported = bonsai(&[
        "import",
        grammar_path().to_str().unwrap(),
        texts.to_str().unwrap(),
        "--out",
        seeds.to_str().unwrap(),
    ]);
    assert!(imported.status.success(), "{imported:?}");
    let report = std::fs::read_to_string(seeds.join("import-report.txt")).unwrap();
    assert!(
        report.contains("s1.txt: accepted as 000000 (exact, bounds 1,1,1)"),
        "{report}"
    );
    assert!(
        report.contains("s2.txt: accepted as 000001 (exact, bounds 1,1,2)"),
        "{report}"
    );
    assert!(
        report.contains("s3.txt: accepted as 000002 (exact, bounds 4,4,1)"),
        "{report}"
    );

    let out = dir.path().join("camp");
    let args = new_campaign_args(
        &out,
        &[
            "--max-bounds",
            "1,1,2",
            "--node-execs",
            "200",
            "--seeds",
            seeds.to_str().unwrap(),
        ],
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = bonsai(&args);
    assert!(output.status.success(), "{output:?}");
    let state = state(&out);
    assert_eq!(state["seeds"][0], seeds.to_str().unwrap(), "{state}");
    let log = std::fs::read_to_string(out.join("campaign.log")).unwrap();
    assert!(
        log.contains("3 seeds given, 2 within the top node's bounds 1,1,2, 1 beyond them"),
        "{log}"
    );
    assert!(log.contains("000002.choices needs bounds 4,4,1"), "{log}");
    // Every node's seeds hold exactly the user's seeds its bounds admit (and what its
    // predecessors kept).
    for node in nodes(&state) {
        let name = node["name"].as_str().unwrap();
        let texts: Vec<String> = queue_like_texts(&out.join("seeds").join(name));
        let depth: u32 = node["bounds"]
            .as_str()
            .unwrap()
            .rsplit(',')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(texts.iter().any(|t| t == small), "{name}: {texts:?}");
        assert_eq!(
            texts.iter().any(|t| t == deeper),
            depth >= 2,
            "{name}: {texts:?}"
        );
        assert!(!texts.iter().any(|t| t == wide), "{name}: {texts:?}");
    }
}

/// The texts of the `.txt` files of a directory (a node's merged seeds).
fn queue_like_texts(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// `campaign --cores-per-node 2`: every node is a `fuzz --cores` run of two clients (its
/// `clients/0` and `clients/1`), campaign.json records the split for a resume, and the lattice
/// still ends with every node done and the top node seeded by its predecessors.
#[test]
fn nodes_run_as_multi_core_fuzzers_with_cores_per_node() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("campaign");
    let mut args = new_campaign_args(
        &out,
        &[
            "--max-bounds",
            "1,1,2",
            "--node-time",
            "3s",
            "--cores-per-node",
            "2",
            "--no-report",
        ],
    );
    // One node at a time: its two clients take the machine's cores.
    one_job(&mut args);
    let output = bonsai(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let state = state(&out);
    assert_eq!(state["cores_per_node"], 2);
    let nodes = nodes(&state);
    assert!(nodes.len() >= 4, "{state}");
    for node in &nodes {
        let name = node["name"].as_str().unwrap();
        assert_eq!(node["state"], "done", "{name}");
        let summary = &node["summary"];
        assert_eq!(summary["clients"], 2, "{name}: {summary}");
        for k in 0..2 {
            let client = out
                .join("nodes")
                .join(name)
                .join(format!("clients/{k}/summary.json"));
            assert!(client.is_file(), "{}", client.display());
        }
    }
    let top = state["top"].as_str().unwrap();
    let top_summary = &nodes.iter().find(|n| n["name"] == top).unwrap()["summary"];
    assert!(
        top_summary["seeds_loaded"].as_u64().unwrap() > 0,
        "{top_summary}"
    );
}
