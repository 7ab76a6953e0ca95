//! Reduced reproducers for the crashes a run saved: beside each `crashes/NNNNNN.txt`, a
//! `NNNNNN.min.txt` (and `NNNNNN.min.choices` while the result is a sentence of the grammar)
//! that crashes the target with the same kind and signature.
//!
//! Done by the supervisor once the fuzzing process has ended, every candidate in a forked
//! child: a crash that corrupts memory can corrupt nothing of the campaign, the saved
//! original is only read, and a resumed run reduces exactly the crashes that have no
//! reproducer yet. Hangs are left alone (every test of one costs a full timeout), and so are
//! out-of-memory entries (the children run without the memory limit).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::choice::SavedChoices;
use crate::corpus::EntryInfo;
use crate::grammar::Grammar;
use crate::layout::CRASHES_DIR;
use crate::parse::{Parser, with_large_stack};
use crate::reduce::{Hdd, Judge, SameCrash, Strategy, reduce_recorded};
use crate::replay::ForkedRunner;
use crate::target::LinkedTarget;

/// Tests (runs of the target) per crash, by default. HDD then ddmin on a fuzzer-sized input
/// needs a few hundred.
pub const DEFAULT_CRASH_TESTS: u64 = 1000;
/// Wall time per crash at most, whatever the test budget.
const TIME_PER_CRASH: Duration = Duration::from_secs(60);

/// One reproducer written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashReduced {
    pub path: PathBuf,
    pub before: usize,
    pub after: usize,
    pub tests: u64,
}

/// Reduces every crash of `root/crashes` that has no `.min.txt` yet. Problems with one crash
/// (unreadable, not reproducible in a fresh process) are logged and skip that crash only.
pub fn reduce_new_crashes(
    grammar: &Grammar,
    root: &Path,
    target: LinkedTarget,
    timeout: Duration,
    max_tests: u64,
) -> Vec<CrashReduced> {
    let metas = crate::corpus::complete_entries(&root.join(CRASHES_DIR));
    let mut parser = None;
    let mut done = Vec::new();
    for meta in metas {
        let stem = meta.with_extension("");
        let minimized = stem.with_extension("min.txt");
        if minimized.exists() {
            continue;
        }
        let kind = std::fs::read_to_string(&meta)
            .map(|t| EntryInfo::parse_line(&t).kind)
            .unwrap_or_default();
        if !matches!(kind.as_deref(), Some("panic" | "crash")) {
            continue;
        }
        let parser = parser.get_or_insert_with(|| Parser::new(grammar));
        // The parser and the strict replays recurse as deep as the crash's input nests, as in
        // every other command that parses.
        let reduced =
            with_large_stack(|| reduce_one(grammar, &stem, target, timeout, max_tests, parser));
        match reduced {
            Ok(reduced) => {
                tracing::info!(
                    "{}: reduced reproducer of {} bytes (from {}) in {} tests",
                    reduced.path.display(),
                    reduced.after,
                    reduced.before,
                    reduced.tests
                );
                done.push(reduced);
            }
            Err(why) => tracing::warn!("{}: not reduced: {why}", stem.display()),
        }
    }
    done
}

fn reduce_one(
    grammar: &Grammar,
    stem: &Path,
    target: LinkedTarget,
    timeout: Duration,
    max_tests: u64,
    parser: &Parser<'_>,
) -> Result<CrashReduced, String> {
    let saved = SavedChoices::read(&stem.with_extension("choices")).map_err(|d| d.message)?;
    if saved.grammar != grammar.fingerprint() {
        return Err("recorded with a different grammar".into());
    }
    let original = Hdd::new(grammar, saved.bounds)
        .map_err(|d| d.message)?
        .replay(saved.choices.as_slice())
        .map_err(|e| e.to_string())?;
    let runner = ForkedRunner::new(target, timeout).map_err(|e| e.to_string())?;
    let crash = SameCrash::of_input(runner, &original)
        .map_err(|why| format!("it does not fault again in a fresh process: {why}"))?;
    let mut judge = Judge::new(crash)
        .with_max_tests(max_tests)
        .with_deadline(Instant::now() + TIME_PER_CRASH);
    let reduced = reduce_recorded(
        grammar,
        &saved,
        Strategy::HddThenDdmin,
        &mut judge,
        Some(parser),
    )
    .map_err(|e| e.to_string())?;
    let path = stem.with_extension("min.txt");
    let choices = stem.with_extension("min.choices");
    match &reduced.choices {
        Some(saved) => saved.write(&choices).map_err(|d| d.message)?,
        None => {
            let _ = std::fs::remove_file(&choices);
        }
    }
    crate::write_atomic(&path, reduced.text.as_bytes()).map_err(|d| d.message)?;
    Ok(CrashReduced {
        path,
        before: original.len(),
        after: reduced.text.len(),
        tests: judge.tests() + 1,
    })
}
