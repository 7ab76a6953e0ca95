//! One list of a run's faults, one bucket per bug, whatever the run was: a fuzzing output, a
//! multi-core run (one log per client) or a campaign (one fuzzing output per lattice node).
//! The saved entries say what each bucket is and where its reproducer is; the `faults.json`
//! logs of the processes say how often and when each was hit, and by whom.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::corpus::{EntryDir, MetaRecord, StoredEntry};
use crate::diagnostic::{Diagnostic, Location};
use crate::fault::{BucketKey, BucketStats, Fault, FaultKind, FaultLog, one_recursion};
use crate::layout::{
    CAMPAIGN_JSON, CLIENTS_DIR, CRASHES_DIR, FAULTS_JSON, FUZZ_JSON, HANGS_DIR, NODES_DIR,
};

/// One bug: everything known of one bucket across the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FaultBucket {
    /// `FaultKind`'s word.
    pub kind: FaultKind,
    /// 16 hex digits in JSON, as in `.meta` files.
    #[serde(serialize_with = "hex")]
    pub signature: u64,
    /// What the bucket was computed from, in words.
    pub location: String,
    /// The message of its smallest saved input.
    pub message: String,
    /// The first frames of that input's stack.
    pub frames: Vec<String>,
    /// Faulting executions in the bucket, over every process of the run.
    pub count: u64,
    /// When it was first and last hit, in seconds since the Unix epoch (from the logs, else
    /// from when its entries were written).
    pub first_seen: f64,
    /// See `first_seen`.
    pub last_seen: f64,
    /// The parts of the run that hit it: `run`, `client K`, a lattice node's name.
    pub seen_by: Vec<String>,
    /// The smallest saved input of the bucket (its `.txt`), and its size.
    pub entry: PathBuf,
    /// See `entry`.
    pub size: usize,
    /// Its reduced reproducer (`NNNNNN.min.txt`) and size, once reduced.
    pub reduced: Option<Reproducer>,
    /// Whether a rerun in a fresh process did not fault the same way.
    pub flaky: bool,
    /// Entries of this bucket saved in the run (more than one across a campaign's nodes).
    pub saved: usize,
    /// For a stack overflow or a hang in a recursion: the functions its entries recur through,
    /// all together, sorted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recursion: Vec<String>,
}

/// A reduced reproducer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reproducer {
    /// `NNNNNN.min.txt`.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: usize,
    /// `NNNNNN.min.choices`, while the reduced input is a sentence of the grammar.
    pub choices: Option<PathBuf>,
}

impl FaultBucket {
    /// The smallest input known to fault this way: the reduced one, else the saved entry.
    pub fn reproducer(&self) -> (&Path, usize) {
        match &self.reduced {
            Some(reduced) if reduced.size <= self.size => (&reduced.path, reduced.size),
            _ => (&self.entry, self.size),
        }
    }

    /// The bucket's key.
    pub fn key(&self) -> BucketKey {
        (self.kind, self.signature)
    }

    /// Whether `fault` (of a rerun, a reduction's candidate) is this bucket's bug: its key, or
    /// one recursion with it (`fault::one_recursion`).
    pub fn holds(&self, fault: &Fault) -> bool {
        fault.kind == self.kind
            && (fault.signature == self.signature
                || one_recursion(&self.recursion, &fault.recursion))
    }

    /// The location for reading: a path into cargo's registry starts at the crate
    /// (`starlark-0.14.2/src/typing/ty.rs:41:5 in eq`).
    pub fn short_location(&self) -> String {
        shorten_paths(&self.location)
    }

    /// A name for files and tests: `panic_0123456789abcdef`.
    pub fn name(&self) -> String {
        format!(
            "{}_{:016x}",
            self.kind.to_string().replace('-', "_"),
            self.signature
        )
    }
}

/// `text` with each path into cargo's registry (`.../registry/src/<index>/CRATE-VERSION/...`)
/// cut to start at the crate.
pub fn shorten_paths(text: &str) -> String {
    const REGISTRY: &str = "/registry/src/";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(REGISTRY) {
        let start = rest[..at].rfind([' ', '(']).map_or(0, |i| i + 1);
        out.push_str(&rest[..start]);
        let after = &rest[at + REGISTRY.len()..];
        rest = after.find('/').map_or(after, |slash| &after[slash + 1..]);
    }
    out.push_str(rest);
    out
}

fn hex<S: serde::Serializer>(signature: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format!("{signature:016x}"))
}

/// The buckets of a run, and what could not be read.
#[derive(Clone, Debug, Default)]
pub struct FaultList {
    /// By first sighting.
    pub buckets: Vec<FaultBucket>,
    /// Faulting executions over all buckets.
    pub executions: u64,
    /// A damaged `.meta` or log, a missing reproducer: each said where it is. The files are
    /// left as they are.
    pub problems: Vec<Diagnostic>,
}

/// One fuzzing output of the run, and the logs of its processes.
struct Part {
    dir: PathBuf,
    /// Each log with the name of the process that wrote it.
    logs: Vec<(String, PathBuf)>,
    /// What the entries of this output are credited to when no log says.
    name: String,
}

/// Reads the faults of the run in `dir`: a fuzzing output (`fuzz.json`) or a campaign
/// (`campaign.json`). An error only when `dir` is neither; damaged files are problems of the
/// list.
pub fn gather(dir: &Path) -> Result<FaultList, Diagnostic> {
    Ok(merge(&parts_of(dir, None)?))
}

/// One list for several runs: the output directories of machines that fuzzed together
/// (`fuzz --connect`, each with its own `--out`), or any runs of one target and grammar.
/// The parts of each are named after its directory.
pub fn gather_runs(dirs: &[PathBuf]) -> Result<FaultList, Diagnostic> {
    let mut parts = Vec::new();
    for dir in dirs {
        let name = (dirs.len() > 1).then(|| dir.display().to_string());
        parts.extend(parts_of(dir, name)?);
    }
    Ok(merge(&parts))
}

/// The fuzzing outputs of the run in `dir`, their names prefixed with `machine` when given.
fn parts_of(dir: &Path, machine: Option<String>) -> Result<Vec<Part>, Diagnostic> {
    // The Nautilus baseline's outputs have no `fuzz.json`, but faults saved the same way.
    let fuzzed = [FUZZ_JSON, CRASHES_DIR, HANGS_DIR]
        .iter()
        .any(|name| dir.join(name).exists());
    let mut parts = if dir.join(CAMPAIGN_JSON).is_file() {
        campaign_parts(dir)
    } else if fuzzed {
        vec![fuzz_part(dir, None)]
    } else {
        return Err(Diagnostic::error(format!(
            "neither a fuzzing output ({FUZZ_JSON}, {CRASHES_DIR}/, {HANGS_DIR}/) nor a campaign \
             ({CAMPAIGN_JSON})"
        ))
        .in_file(dir));
    };
    if let Some(machine) = machine {
        for part in &mut parts {
            part.name = format!("{machine}: {}", part.name);
            for (name, _) in &mut part.logs {
                *name = format!("{machine}: {name}");
            }
        }
    }
    Ok(parts)
}

fn campaign_parts(dir: &Path) -> Vec<Part> {
    let mut nodes: Vec<PathBuf> = std::fs::read_dir(dir.join(NODES_DIR))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    nodes.sort();
    nodes
        .iter()
        .map(|node| {
            let name = node.file_name().map(|n| n.to_string_lossy().into_owned());
            fuzz_part(node, name)
        })
        .collect()
}

/// A fuzzing output, named `node` in a campaign.
fn fuzz_part(dir: &Path, node: Option<String>) -> Part {
    let own = node.clone().unwrap_or_else(|| "run".to_string());
    let mut logs = vec![(own.clone(), dir.join(FAULTS_JSON))];
    let mut clients: Vec<(u64, PathBuf)> = std::fs::read_dir(dir.join(CLIENTS_DIR))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path())))
        .collect();
    clients.sort();
    for (k, client) in clients {
        let name = match &node {
            Some(node) => format!("{node} client {k}"),
            None => format!("client {k}"),
        };
        logs.push((name, client.join(FAULTS_JSON)));
    }
    Part {
        dir: dir.to_path_buf(),
        logs,
        name: own,
    }
}

/// What the logs say of a bucket, summed over processes.
#[derive(Default)]
struct Tally {
    stats: Option<BucketStats>,
    seen_by: Vec<String>,
}

fn merge(parts: &[Part]) -> FaultList {
    let mut list = FaultList::default();
    let mut tallies: BTreeMap<BucketKey, Tally> = BTreeMap::new();
    let mut buckets: BTreeMap<BucketKey, FaultBucket> = BTreeMap::new();
    for part in parts {
        for (name, path) in &part.logs {
            let log = match FaultLog::read(path) {
                Ok(Some(log)) => log,
                Ok(None) => continue,
                Err(problem) => {
                    list.problems.push(problem);
                    continue;
                }
            };
            for (key, stats) in log.entries() {
                let tally = tallies.entry(key).or_default();
                tally.stats = Some(match tally.stats {
                    None => stats,
                    Some(sum) => BucketStats {
                        count: sum.count + stats.count,
                        first_seen: sum.first_seen.min(stats.first_seen),
                        last_seen: sum.last_seen.max(stats.last_seen),
                        smallest: sum.smallest.min(stats.smallest),
                    },
                });
                tally.seen_by.push(name.clone());
            }
        }
        for dir in [CRASHES_DIR, HANGS_DIR] {
            for entry in EntryDir::new(part.dir.join(dir)).complete() {
                match read_entry(&entry) {
                    Ok(found) => add_entry(&mut buckets, found, &part.name),
                    Err(problem) => list.problems.push(problem),
                }
            }
        }
    }
    for (key, tally) in &tallies {
        if !buckets.contains_key(key) {
            list.problems.push(Diagnostic::error(format!(
                "{} {:016x} was hit {} times (by {}) but no entry of it is saved",
                key.0,
                key.1,
                tally.stats.map_or(0, |s| s.count),
                tally.seen_by.join(", ")
            )));
        }
    }
    for (key, bucket) in &mut buckets {
        if let Some(tally) = tallies.remove(key) {
            if let Some(stats) = tally.stats {
                bucket.count = stats.count.max(bucket.saved as u64);
                bucket.first_seen = stats.first_seen;
                bucket.last_seen = stats.last_seen.max(bucket.first_seen);
            }
            // The logs name the processes; the entries only the output they were saved in.
            bucket.seen_by = tally.seen_by;
        }
        bucket.seen_by.sort();
        bucket.seen_by.dedup();
        if !bucket.entry.is_file() {
            list.problems.push(
                Diagnostic::error("the reproducer of this fault is missing (its .meta is there)")
                    .in_file(&bucket.entry),
            );
        }
    }
    list.buckets = buckets.into_values().collect();
    list.buckets.sort_by(|a, b| {
        a.first_seen
            .total_cmp(&b.first_seen)
            .then(a.key().cmp(&b.key()))
    });
    list.buckets = join_recursions(std::mem::take(&mut list.buckets));
    list.executions = list.buckets.iter().map(|b| b.count).sum();
    list
}

/// A saved fault entry, read.
struct Found {
    key: BucketKey,
    record: MetaRecord,
    text: PathBuf,
    written: f64,
    reduced: Option<Reproducer>,
}

fn read_entry(entry: &StoredEntry) -> Result<Found, Diagnostic> {
    let meta = &entry.meta_path();
    let text = entry.read_meta()?;
    let record = MetaRecord::read(&text).map_err(|e| {
        Diagnostic::error(format!("damaged fault record: {e}")).at(Location {
            path: meta.to_path_buf(),
            line: e.line().max(1),
            column: e.column().max(1),
        })
    })?;
    let fault = record.fault.as_ref().ok_or_else(|| {
        Diagnostic::error("a fault's record without its `fault` field").in_file(meta)
    })?;
    let kind = FaultKind::parse(&fault.kind).ok_or_else(|| {
        Diagnostic::error(format!("unknown fault kind '{}'", fault.kind)).in_file(meta)
    })?;
    let signature = u64::from_str_radix(&fault.signature, 16).map_err(|_| {
        Diagnostic::error(format!(
            "a signature of 16 hex digits, not '{}'",
            fault.signature
        ))
        .in_file(meta)
    })?;
    let written = std::fs::metadata(meta)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0.0, |d| d.as_secs_f64());
    let reduced_path = entry.reduced_text_path();
    let reduced = std::fs::metadata(&reduced_path).ok().map(|m| Reproducer {
        size: m.len() as usize,
        choices: Some(entry.reduced_choices_path()).filter(|p| p.is_file()),
        path: reduced_path,
    });
    Ok(Found {
        key: (kind, signature),
        text: entry.text_path(),
        record,
        written,
        reduced,
    })
}

fn add_entry(buckets: &mut BTreeMap<BucketKey, FaultBucket>, found: Found, part: &str) {
    let fault = found.record.fault.as_ref().expect("checked by read_entry");
    let size = found.record.size;
    let bucket = buckets.entry(found.key).or_insert_with(|| FaultBucket {
        kind: found.key.0,
        signature: found.key.1,
        location: fault.location.clone(),
        message: fault.message.clone(),
        frames: fault.frames.clone(),
        count: 0,
        first_seen: found.written,
        last_seen: found.written,
        seen_by: Vec::new(),
        entry: found.text.clone(),
        size,
        reduced: None,
        flaky: false,
        saved: 0,
        recursion: Vec::new(),
    });
    join_sorted(&mut bucket.recursion, &fault.recursion);
    bucket.saved += 1;
    bucket.count += 1;
    bucket.first_seen = bucket.first_seen.min(found.written);
    bucket.last_seen = bucket.last_seen.max(found.written);
    bucket.seen_by.push(part.to_string());
    bucket.flaky |= fault.flaky;
    if size < bucket.size || (size == bucket.size && found.text < bucket.entry) {
        bucket.entry = found.text;
        bucket.size = size;
        bucket.location = fault.location.clone();
        bucket.message = fault.message.clone();
        bucket.frames = fault.frames.clone();
    }
    if let Some(reduced) = found.reduced
        && bucket
            .reduced
            .as_ref()
            .is_none_or(|r| reduced.size < r.size)
    {
        bucket.reduced = Some(reduced);
    }
}

/// Adds the functions of `more` that `functions` lacks, keeping it sorted.
fn join_sorted(functions: &mut Vec<String>, more: &[String]) {
    for function in more {
        if let Err(at) = functions.binary_search(function) {
            functions.insert(at, function.clone());
        }
    }
}

/// Folds each fault in a recursion (stack overflows, hangs) into the first bucket of its kind
/// (by first sighting) whose recursion it is one with. Every process joins the recursions it sees itself (`SeenFaults::join_recursion`);
/// this joins those of different processes (a campaign's nodes, the clients of `--cores`),
/// which each saw their own first.
fn join_recursions(buckets: Vec<FaultBucket>) -> Vec<FaultBucket> {
    let mut kept: Vec<FaultBucket> = Vec::with_capacity(buckets.len());
    for bucket in buckets {
        let into = (kept.iter_mut())
            .find(|k| k.kind == bucket.kind && one_recursion(&k.recursion, &bucket.recursion));
        let Some(into) = into else {
            kept.push(bucket);
            continue;
        };
        join_sorted(&mut into.recursion, &bucket.recursion);
        let smaller = bucket.reproducer().1 < into.reproducer().1;
        into.count += bucket.count;
        into.saved += bucket.saved;
        into.last_seen = into.last_seen.max(bucket.last_seen);
        into.seen_by.extend(bucket.seen_by);
        into.seen_by.sort();
        into.seen_by.dedup();
        into.flaky &= bucket.flaky;
        if smaller {
            into.entry = bucket.entry;
            into.size = bucket.size;
            into.reduced = bucket.reduced;
            into.message = bucket.message;
            into.frames = bucket.frames;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::EntryInfo;
    use crate::fault::{Fault, SeenFaults};

    /// A fuzzing output with one saved fault of bucket `signature`, `size` bytes, and a log of
    /// `hits` sightings in `log_dir` (the output itself, or a client's directory).
    fn output(dir: &Path, log_dir: &Path, signature: u64, size: usize, hits: u64, at: f64) {
        std::fs::create_dir_all(dir.join(CRASHES_DIR)).unwrap();
        std::fs::create_dir_all(log_dir).unwrap();
        std::fs::write(dir.join(FUZZ_JSON), "{}").unwrap();
        let info = EntryInfo {
            text: "x".repeat(size),
            fault: Some(Fault {
                kind: FaultKind::Panic,
                signature,
                message: format!("boom {size}"),
                location: "src/lib.rs:3:5 in c::f".into(),
                frames: vec!["c::f (src/lib.rs:3)".into()],
                recursion: Vec::new(),
                texts: Vec::new(),
            }),
            ..EntryInfo::default()
        };
        let base = dir.join(CRASHES_DIR).join("000000");
        std::fs::write(base.with_extension("txt"), &info.text).unwrap();
        std::fs::write(base.with_extension("meta"), info.to_text()).unwrap();
        let mut seen = SeenFaults::default();
        for k in 0..hits {
            seen.see((FaultKind::Panic, signature), size, at + k as f64);
        }
        FaultLog::of(&seen)
            .write(&log_dir.join(FAULTS_JSON))
            .unwrap();
    }

    #[test]
    fn one_list_over_clients_and_machines_with_counts_summed_and_the_smallest_input() {
        let temp = tempfile::tempdir().unwrap();
        let first = temp.path().join("first");
        let second = temp.path().join("second");
        output(&first, &first.join("clients/0"), 7, 30, 5, 100.0);
        output(&first, &first.join("clients/1"), 7, 30, 2, 90.0);
        output(&second, &second, 7, 12, 4, 200.0);
        let list = gather_runs(&[first.clone(), second.clone()]).unwrap();
        assert!(list.problems.is_empty(), "{:?}", list.problems);
        assert_eq!(list.buckets.len(), 1);
        let bucket = &list.buckets[0];
        assert_eq!(bucket.count, 11);
        assert_eq!(list.executions, 11);
        assert_eq!((bucket.first_seen, bucket.last_seen), (90.0, 203.0));
        assert_eq!(bucket.size, 12);
        assert!(bucket.entry.starts_with(&second));
        assert_eq!(bucket.message, "boom 12");
        assert_eq!(bucket.saved, 2);
        let first_name = first.display().to_string();
        assert_eq!(
            bucket.seen_by,
            vec![
                format!("{first_name}: client 0"),
                format!("{first_name}: client 1"),
                format!("{}: run", second.display())
            ]
        );
        // A reduced reproducer is the one to use.
        std::fs::write(second.join("crashes/000000.min.txt"), "xx").unwrap();
        let list = gather_runs(&[first, second.clone()]).unwrap();
        let (path, size) = list.buckets[0].reproducer();
        assert_eq!(
            (path, size),
            (second.join("crashes/000000.min.txt").as_path(), 2)
        );
        assert_eq!(list.buckets[0].name(), "panic_0000000000000007");
    }

    /// A campaign node that saved one stack overflow through `functions`, logged at `at`.
    fn overflow_node(campaign: &Path, node: &str, signature: u64, functions: &[&str], at: f64) {
        let dir = campaign.join(NODES_DIR).join(node);
        std::fs::create_dir_all(dir.join(CRASHES_DIR)).unwrap();
        std::fs::write(dir.join(FUZZ_JSON), "{}").unwrap();
        let info = EntryInfo {
            text: "(".repeat(functions.len() * 100),
            fault: Some(Fault::stack_overflow(signature, functions)),
            ..EntryInfo::default()
        };
        let base = dir.join(CRASHES_DIR).join("000000");
        std::fs::write(base.with_extension("txt"), &info.text).unwrap();
        std::fs::write(base.with_extension("meta"), info.to_text()).unwrap();
        let mut seen = SeenFaults::default();
        seen.see((FaultKind::StackOverflow, signature), info.text.len(), at);
        FaultLog::of(&seen).write(&dir.join(FAULTS_JSON)).unwrap();
    }

    #[test]
    fn stack_overflows_of_one_recursion_in_different_processes_are_one_bucket() {
        let temp = tempfile::tempdir().unwrap();
        let campaign = temp.path();
        std::fs::write(campaign.join(CAMPAIGN_JSON), "{}").unwrap();
        overflow_node(campaign, "a", 1, &["expr", "paren", "unary"], 10.0);
        overflow_node(campaign, "b", 2, &["call", "expr", "unary"], 20.0);
        overflow_node(campaign, "c", 3, &["resolve", "scope"], 30.0);
        let list = gather(campaign).unwrap();
        assert!(list.problems.is_empty(), "{:?}", list.problems);
        let buckets: Vec<_> = (list.buckets.iter())
            .map(|b| (b.signature, b.saved, b.count, b.recursion.join(" ")))
            .collect();
        assert_eq!(
            buckets,
            [
                (1, 2, 2, "call expr paren unary".to_string()),
                (3, 1, 1, "resolve scope".to_string())
            ]
        );
        assert_eq!(list.buckets[0].seen_by, ["a", "b"]);
        assert_eq!(list.buckets[0].size, 300, "the smaller reproducer");
        let rerun = |recursion: &[&str]| Fault::stack_overflow(99, recursion);
        assert!(list.buckets[0].holds(&rerun(&["call", "expr"])));
        assert!(!list.buckets[0].holds(&rerun(&["resolve", "scope"])));
    }

    #[test]
    fn registry_paths_are_read_from_the_crate_on() {
        assert_eq!(
            shorten_paths(
                "/root/.cargo/registry/src/index.crates.io-19/starlark-0.14.2/src/ty.rs:3:4 in eq"
            ),
            "starlark-0.14.2/src/ty.rs:3:4 in eq"
        );
        assert_eq!(
            shorten_paths("f (/h/.cargo/registry/src/ix/a-1/x.rs:1)"),
            "f (a-1/x.rs:1)"
        );
        assert_eq!(
            shorten_paths("src/lib.rs:1:2 in c::f"),
            "src/lib.rs:1:2 in c::f"
        );
    }

    #[test]
    fn a_campaign_is_one_list_over_its_nodes() {
        let temp = tempfile::tempdir().unwrap();
        let campaign = temp.path();
        std::fs::write(campaign.join(CAMPAIGN_JSON), "{}").unwrap();
        let node = |name: &str| campaign.join(NODES_DIR).join(name);
        output(&node("m1-n1-d1-r"), &node("m1-n1-d1-r"), 3, 8, 1, 10.0);
        output(&node("m2-n1-d1-r"), &node("m2-n1-d1-r"), 3, 6, 3, 20.0);
        output(&node("m2-n2-d1-r"), &node("m2-n2-d1-r"), 4, 6, 1, 30.0);
        let list = gather(campaign).unwrap();
        assert_eq!(list.buckets.len(), 2);
        assert_eq!(list.buckets[0].signature, 3, "by first sighting");
        assert_eq!(list.buckets[0].count, 4);
        assert_eq!(list.buckets[0].seen_by, ["m1-n1-d1-r", "m2-n1-d1-r"]);
        assert!(gather(&campaign.join(NODES_DIR)).is_err(), "not a run");
    }
}
