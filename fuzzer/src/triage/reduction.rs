//! A reduced reproducer for each bucket of a run, once per bucket: beside the bucket's
//! smallest saved entry `NNNNNN.txt`, a `NNNNNN.min.txt` (and `NNNNNN.min.choices` while the
//! result is a sentence of the grammar) that faults the target with the same kind and bucket.
//! A saved input that does not fault the same way when rerun in a fresh process is marked
//! flaky in its `.meta`, and kept.
//!
//! Done once the fuzzing processes have ended (by the run, the coordinator of a multi-core
//! run, or the campaign for all its nodes at once), every candidate in a forked child: a
//! crash that corrupts memory can corrupt nothing of the run, the saved original is only
//! read, and a resumed run reduces exactly the buckets that have no reproducer yet. Hangs are
//! rerun once, not reduced (every test of one costs a full timeout); out-of-memory entries
//! are left alone (the children run without the memory limit).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::bucket_list::{FaultBucket, FaultList};
use crate::corpus::{MetaRecord, StoredEntry};
use crate::fault::FaultKind;
use crate::grammar::Grammar;
use crate::parse::{Parser, with_large_stack};
use crate::reduce::{Hdd, Judge, SameCrash, Strategy, reduce_recorded};
use crate::replay::{ForkedRunner, Outcome};
use crate::target::LinkedTarget;

/// Tests (runs of the target) per bucket, by default. HDD then ddmin on a fuzzer-sized input
/// needs a few hundred.
pub const DEFAULT_CRASH_TESTS: u64 = 1000;
/// Wall time per bucket at most, whatever the test budget.
const TIME_PER_BUCKET: Duration = Duration::from_secs(60);

/// One reproducer written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashReduced {
    /// The reproducer, `NNNNNN.min.txt`.
    pub path: PathBuf,
    /// Bytes of the saved input.
    pub before: usize,
    /// Bytes of the reproducer.
    pub after: usize,
    /// Runs of the target it took.
    pub tests: u64,
}

/// What the reduction of a run's faults did.
#[derive(Clone, Debug, Default)]
pub struct Triaged {
    /// Reproducers written.
    pub reduced: Vec<CrashReduced>,
    /// Entries marked flaky.
    pub flaky: Vec<PathBuf>,
    /// Hangs rerun and found hanging again.
    pub hangs_confirmed: usize,
    /// Wall time, in seconds.
    pub seconds: f64,
}

/// Reduces each bucket of `list` that has no reduced reproducer yet (or one larger than its
/// saved input, after a smaller one replaced it), and reruns each hang not yet marked.
/// Problems with one bucket (unreadable, recorded with another grammar) are logged and skip
/// that bucket only.
pub fn reduce_buckets(
    grammar: &Grammar,
    list: &FaultList,
    target: LinkedTarget,
    timeout: Duration,
    max_tests: u64,
) -> Triaged {
    let started = Instant::now();
    let mut triaged = Triaged::default();
    let mut parser = None;
    for bucket in &list.buckets {
        if bucket.flaky || !bucket.entry.is_file() {
            continue;
        }
        if bucket.kind == FaultKind::Timeout {
            recheck_hang(bucket, target, timeout, &mut triaged);
            continue;
        }
        if !bucket.kind.is_reducible()
            || bucket
                .reduced
                .as_ref()
                .is_some_and(|r| r.size <= bucket.size)
        {
            continue;
        }
        let parser = parser.get_or_insert_with(|| Parser::new(grammar));
        // The parser and the strict replays recurse as deep as the crash's input nests, as in
        // every other command that parses.
        let reduced =
            with_large_stack(|| reduce_one(grammar, bucket, target, timeout, max_tests, parser));
        match reduced {
            Ok(reduced) => {
                tracing::info!(
                    "{}: reduced reproducer of {} bytes (from {}) in {} tests",
                    reduced.path.display(),
                    reduced.after,
                    reduced.before,
                    reduced.tests
                );
                triaged.reduced.push(reduced);
            }
            Err(Failure::Flaky(why)) => mark_flaky(bucket, &why, &mut triaged),
            Err(Failure::Other(why)) => {
                tracing::warn!("{}: not reduced: {why}", bucket.entry.display())
            }
        }
    }
    triaged.seconds = started.elapsed().as_secs_f64();
    triaged
}

enum Failure {
    /// It does not fault the same way in a fresh process.
    Flaky(String),
    Other(String),
}

/// Runs a hang's input once more: marked flaky when it finishes in time.
fn recheck_hang(
    bucket: &FaultBucket,
    target: LinkedTarget,
    timeout: Duration,
    triaged: &mut Triaged,
) {
    let Ok(text) = std::fs::read(&bucket.entry) else {
        return;
    };
    let Ok(mut runner) = ForkedRunner::new(target, timeout) else {
        return;
    };
    let run = runner.run(&text);
    if run.outcome == Outcome::Timeout {
        triaged.hangs_confirmed += 1;
    } else {
        let why = format!("it ran to the end in a fresh process ({})", run.outcome);
        mark_flaky(bucket, &why, triaged);
    }
}

/// Marks the bucket's entry flaky in its `.meta` (kept, as every saved input is).
fn mark_flaky(bucket: &FaultBucket, why: &str, triaged: &mut Triaged) {
    let entry = StoredEntry::of_file(&bucket.entry);
    let meta = entry.meta_path();
    let marked = entry
        .read_meta()
        .ok()
        .and_then(|text| MetaRecord::read(&text).ok())
        .and_then(|mut record| {
            record.fault.as_mut()?.flaky = true;
            crate::write_atomic(&meta, record.to_line().as_bytes()).ok()
        });
    tracing::warn!(
        "{}: flaky: {why}{}",
        bucket.entry.display(),
        if marked.is_some() {
            ""
        } else {
            " (could not mark its .meta)"
        }
    );
    triaged.flaky.push(bucket.entry.clone());
}

fn reduce_one(
    grammar: &Grammar,
    bucket: &FaultBucket,
    target: LinkedTarget,
    timeout: Duration,
    max_tests: u64,
    parser: &Parser<'_>,
) -> Result<CrashReduced, Failure> {
    let other = Failure::Other;
    let entry = StoredEntry::of_file(&bucket.entry);
    let saved = entry.read_choices().map_err(|d| other(d.message))?;
    saved
        .check_grammar(grammar.fingerprint())
        .map_err(|e| other(e.to_string()))?;
    let original = Hdd::new(grammar, saved.bounds)
        .map_err(|d| other(d.message))?
        .replay(saved.choices.as_slice())
        .map_err(|e| other(e.to_string()))?;
    let runner = ForkedRunner::new(target, timeout).map_err(|e| other(e.to_string()))?;
    let crash = SameCrash::of_input(runner, &original)
        .map_err(|why| Failure::Flaky(format!("it does not fault in a fresh process: {why}")))?;
    if !bucket.holds(crash.fault()) {
        return Err(Failure::Flaky(format!(
            "it faults otherwise in a fresh process: {} ({})",
            crash.fault().kind,
            crash.fault().location
        )));
    }
    let mut judge = Judge::new(crash)
        .with_max_tests(max_tests)
        .with_deadline(Instant::now() + TIME_PER_BUCKET);
    let reduced = reduce_recorded(
        grammar,
        &saved,
        Strategy::HddThenDdmin,
        &mut judge,
        Some(parser),
    )
    .map_err(|e| other(e.to_string()))?;
    let path = entry.reduced_text_path();
    let choices = entry.reduced_choices_path();
    match &reduced.choices {
        Some(saved) => saved.write(&choices).map_err(|d| other(d.message))?,
        None => {
            let _ = std::fs::remove_file(&choices);
        }
    }
    crate::write_atomic(&path, reduced.text.as_bytes()).map_err(|d| other(d.message))?;
    Ok(CrashReduced {
        path,
        before: original.len(),
        after: reduced.text.len(),
        tests: judge.tests() + 1,
    })
}

/// Gathers the faults of the run in `dir` and reduces them (see [`reduce_buckets`]); a
/// directory that is not a run has nothing to reduce.
pub fn reduce_run(
    grammar: &Grammar,
    dir: &Path,
    target: LinkedTarget,
    timeout: Duration,
    max_tests: u64,
) -> Triaged {
    match super::gather(dir) {
        Ok(list) => reduce_buckets(grammar, &list, target, timeout, max_tests),
        Err(why) => {
            tracing::warn!("{why}");
            Triaged::default()
        }
    }
}
