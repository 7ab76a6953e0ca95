//! The output directory of a campaign: what is in it, and whether a run may write there.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::EntryDir;
use super::EntryInfo;
use super::FaultSlots;
use super::MetaRecord;
use crate::diagnostic::Diagnostic;
use crate::fault::{FaultKind, FaultLog, SeenFaults};
use crate::layout::{CRASHES_DIR, HANGS_DIR, QUEUE_DIR};

/// The file that marks a directory as a Bonsai fuzzing output. It records what the run was
/// fuzzing, so that resuming with another grammar or target is refused instead of producing
/// a queue whose choices mean different things.
pub const MANIFEST: &str = crate::layout::FUZZ_JSON;
/// The file holding the result of a run's last complete run, which `bonsai report` reads.
pub const SUMMARY: &str = crate::layout::SUMMARY_JSON;
/// The subdirectories every fuzzing output has, created by [`OutDir::prepare`] even when empty.
pub const DIRECTORIES: [&str; 3] = [QUEUE_DIR, CRASHES_DIR, HANGS_DIR];

/// The contents of [`MANIFEST`]: what a fuzzing output was made with. Target and grammar
/// fingerprint decide whether a run may resume in the directory; the rest is informative.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Name of the target the run fuzzed.
    pub target: String,
    /// The grammar file as given on the command line; only informative, the fingerprint decides.
    pub grammar: PathBuf,
    /// [`crate::grammar::Grammar::fingerprint`] as 16 hex digits; a resume with another one is
    /// refused.
    pub grammar_fingerprint: String,
    /// The run's bounds as `M,N,D`.
    pub bounds: String,
    /// Whether the run kept only inputs the target accepted as valid.
    pub valid_only: bool,
}

/// A prepared output directory.
#[derive(Clone, Debug)]
pub struct OutDir {
    /// The output directory; the subdirectories of [`DIRECTORIES`] exist below it.
    pub root: PathBuf,
    /// The directory held a previous run of the same campaign: its queue becomes the seeds.
    pub resumed: bool,
}

impl OutDir {
    /// Creates `root` with `queue/`, `crashes/` and `hangs/`, or reopens a previous output of
    /// the same target and grammar. Refuses a non-empty directory that is not a Bonsai output
    /// (so that a typo never scatters files into someone's source tree), and an output of a
    /// different campaign.
    pub fn prepare(root: &Path, manifest: &Manifest) -> Result<OutDir, Diagnostic> {
        let marker = root.join(MANIFEST);
        let mut resumed = false;
        let json = serde_json::to_string_pretty(manifest).expect("plain data serializes");
        let json = format!("{json}\n");
        let mut unchanged = false;
        if marker.is_file() {
            let text = std::fs::read_to_string(&marker)
                .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(&marker))?;
            unchanged = text == json;
            let previous: Manifest = serde_json::from_str(&text).map_err(|e| {
                Diagnostic::error(format!("not a Bonsai fuzzing manifest: {e}")).in_file(&marker)
            })?;
            if previous.target != manifest.target
                || previous.grammar_fingerprint != manifest.grammar_fingerprint
            {
                return Err(Diagnostic::error(format!(
                    "this directory holds a campaign of target '{}' with grammar {} (fingerprint {}); \
                     resuming it with target '{}' and grammar {} would mix inputs that mean different things. \
                     Choose another --out directory",
                    previous.target,
                    previous.grammar.display(),
                    previous.grammar_fingerprint,
                    manifest.target,
                    manifest.grammar.display()
                ))
                .in_file(root));
            }
            resumed = true;
        } else if crate::fs_util::has_entries(root) {
            return Err(Diagnostic::error(
                "the output directory is not empty and is not a previous `bonsai fuzz` output; \
                 choose an empty or new directory",
            )
            .in_file(root));
        }
        crate::create_dir(root)?;
        for dir in DIRECTORIES {
            crate::create_dir(&root.join(dir))?;
        }
        // A resume with the same settings writes nothing here, so it can start on a disk that
        // has just filled up, and clean up after the run that filled it.
        if !unchanged {
            crate::write_atomic(&marker, json.as_bytes())?;
        }
        Ok(OutDir {
            root: root.to_path_buf(),
            resumed,
        })
    }

    /// The buckets of the faults already saved, so that a resumed run does not save them
    /// again, with the counts and times `log` (the process's `faults.json`) kept of them, so
    /// that the counts go on across resumes.
    pub fn seen_faults(&self, log: &Path) -> SeenFaults {
        let mut seen = SeenFaults::default();
        let now = crate::fault::unix_now();
        for (key, slot) in FaultSlots::scan(&self.root).iter() {
            seen.know(key, slot.size, now);
            if matches!(key.0, FaultKind::StackOverflow | FaultKind::Timeout) {
                let entry = EntryDir::new(self.root.join(key.0.directory())).entry(slot.number);
                let saved = entry
                    .read_meta()
                    .ok()
                    .and_then(|text| MetaRecord::read(&text).ok()?.fault);
                if let Some(saved) = saved {
                    seen.know_recursion(key, &saved.location, &saved.recursion);
                }
            }
        }
        match FaultLog::read(log) {
            Ok(Some(log)) => {
                for (key, stats) in log.entries() {
                    let saved = seen.buckets.get(&key).map(|s| s.smallest);
                    let mut stats = stats;
                    stats.smallest = stats.smallest.min(saved.unwrap_or(usize::MAX));
                    seen.occurrences += stats.count;
                    seen.buckets.insert(key, stats);
                }
            }
            Ok(None) => {}
            Err(why) => tracing::warn!("{why}; the fault counts start again"),
        }
        seen
    }

    /// Crashes (panics and signals), hangs, out-of-memory entries and wrong answers saved so
    /// far.
    pub fn fault_counts(&self) -> FaultCounts {
        let mut counts = FaultCounts {
            hangs: self.count(HANGS_DIR),
            ..FaultCounts::default()
        };
        for entry in EntryDir::new(self.root.join(CRASHES_DIR)).complete() {
            let text = entry.read_meta().unwrap_or_default();
            let kind = EntryInfo::parse_line(&text).kind;
            match kind.as_deref().and_then(crate::fault::FaultKind::parse) {
                Some(crate::fault::FaultKind::OutOfMemory) => counts.ooms += 1,
                Some(k) if k.is_wrong_answer() => counts.wrong_answers += 1,
                _ => counts.crashes += 1,
            }
        }
        counts
    }

    /// Number of complete entries (those with a `.meta` file) in the subdirectory `dir`; an entry
    /// whose write was cut short is not counted. 0 when the directory cannot be read.
    pub fn count(&self, dir: &str) -> usize {
        EntryDir::new(self.root.join(dir)).complete().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(target: &str) -> Manifest {
        Manifest {
            target: target.into(),
            grammar: "g.ebnf".into(),
            grammar_fingerprint: "00ff".into(),
            bounds: "1,1,1".into(),
            valid_only: false,
        }
    }

    #[test]
    fn a_resumed_run_joins_a_stack_overflow_to_the_saved_recursion_it_is_one_with() {
        use crate::fault::Fault;
        let dir = tempfile::tempdir().unwrap();
        let out = OutDir::prepare(dir.path(), &manifest("planted")).unwrap();
        let overflow = Fault::stack_overflow;
        let info = EntryInfo {
            text: "((((".into(),
            fault: Some(overflow(7, &["expr", "paren", "unary"])),
            ..EntryInfo::default()
        };
        std::fs::write(dir.path().join("crashes/000000.txt"), &info.text).unwrap();
        std::fs::write(dir.path().join("crashes/000000.meta"), info.to_text()).unwrap();

        let mut seen = out.seen_faults(&dir.path().join("faults.json"));
        let mut calls = overflow(8, &["call", "expr", "unary"]);
        seen.join_recursion(&mut calls);
        assert_eq!(calls.signature, 7, "the saved bucket, not a new one");
        assert_eq!(calls.location, "recursion through expr, paren, unary");
    }

    #[test]
    fn creates_reopens_and_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let first = OutDir::prepare(&out, &manifest("planted")).unwrap();
        assert!(!first.resumed);
        assert!(out.join("queue").is_dir() && out.join("hangs").is_dir());
        let again = OutDir::prepare(&out, &manifest("planted")).unwrap();
        assert!(again.resumed);
        let other = OutDir::prepare(&out, &manifest("naga")).unwrap_err();
        assert!(other.message.contains("'planted'"), "{}", other.message);

        let foreign = dir.path().join("src");
        std::fs::create_dir_all(&foreign).unwrap();
        std::fs::write(foreign.join("main.rs"), "fn main() {}").unwrap();
        let refused = OutDir::prepare(&foreign, &manifest("planted")).unwrap_err();
        assert!(refused.message.contains("not empty"));
        assert_eq!(refused.path.as_deref(), Some(foreign.as_path()));
    }
}

/// The faults an output directory holds, by what the user does with them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultCounts {
    /// Panics, signals and stack overflows.
    pub crashes: usize,
    /// Timeouts (`hangs/`).
    pub hangs: usize,
    /// Inputs that allocated past `--mem-limit`.
    pub ooms: usize,
    /// Round-trip and differential violations.
    pub wrong_answers: usize,
}
