//! A node's seeds: its predecessors' queues merged into one directory, with the user's seeds
//! that the node's bounds admit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::choice::SavedChoices;
use crate::corpus::{Durability, EntryContent, EntryDir, EntryFile, StoredEntry, input_directory};
use crate::diagnostic::Diagnostic;
use crate::layout::QUEUE_DIR;
use crate::sampler::Bounds;

/// One of the user's seeds (`bonsai campaign --seeds`): a `.choices` file, the bounds it was
/// recorded under, and its text.
#[derive(Clone, Debug)]
pub struct UserSeed {
    pub bounds: Bounds,
    pub seed: MergedSeed,
}

/// The seeds of the user's directories (each `NNNNNN.choices` beside its `.txt`, in a
/// directory or its `queue/`) recorded with this grammar. The others are returned apart, each
/// with why it cannot be used, for the campaign's log.
pub fn user_seeds(
    dirs: &[PathBuf],
    fingerprint: &str,
) -> Result<(Vec<UserSeed>, Vec<String>), Diagnostic> {
    let mut seeds = Vec::new();
    let mut unusable = Vec::new();
    // The fingerprint as `campaign.json` holds it: 16 hex digits, as `{:016x}` writes them.
    let expected = u64::from_str_radix(fingerprint, 16).ok();
    for dir in dirs {
        let dir = input_directory(dir);
        let paths = EntryDir::new(&dir)
            .files_of(EntryFile::Choices)
            .map_err(|e| {
                Diagnostic::error(format!("cannot read the seed directory: {e}")).in_file(&dir)
            })?;
        for path in paths {
            let entry = StoredEntry::of_file(&path);
            let (Ok(text), Ok(bytes)) = (entry.read_text(), entry.read(EntryFile::Choices)) else {
                unusable.push(format!("{}: no readable .txt beside it", path.display()));
                continue;
            };
            match SavedChoices::from_bytes(&bytes) {
                Ok(saved) if expected.is_some_and(|e| saved.check_grammar(e).is_ok()) => seeds
                    .push(UserSeed {
                        bounds: saved.bounds,
                        seed: MergedSeed {
                            text,
                            choices: bytes,
                            source: path,
                        },
                    }),
                Ok(_) => {
                    unusable.push(format!("{}: recorded with another grammar", path.display()))
                }
                Err(e) => unusable.push(format!("{}: {e}", path.display())),
            }
        }
    }
    Ok((seeds, unusable))
}

/// One saved input of a predecessor: its rendered text and its `.choices` file's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergedSeed {
    pub text: String,
    pub choices: Vec<u8>,
    /// Where it came from, for the log.
    pub source: PathBuf,
}

/// Complete entries (those with a `.meta`, which the store writes last) of `queue`, in number
/// order. A missing queue (a predecessor that kept nothing) has none.
fn queue_entries(queue: &Path) -> Result<Vec<MergedSeed>, Diagnostic> {
    let entries = EntryDir::new(queue).complete();
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        let text = entry.read(EntryFile::Text)?;
        let bytes = entry.read(EntryFile::Choices)?;
        out.push(MergedSeed {
            text: String::from_utf8_lossy(&text).into_owned(),
            choices: bytes,
            source: entry.choices_path(),
        });
    }
    Ok(out)
}

/// The union of the queues under `node_dirs`, deduplicated by rendered text and sorted
/// smallest first (text length, then text). Among inputs with the same text the first found
/// is kept: predecessors are given in lattice order, so the choice is reproducible.
///
/// The user's seeds that `bounds` admit join them (after the predecessors', so a text a
/// predecessor kept is kept in its form).
pub fn merge_with(
    node_dirs: &[PathBuf],
    user: &[UserSeed],
    bounds: Option<Bounds>,
) -> Result<Vec<MergedSeed>, Diagnostic> {
    let mut by_text: BTreeMap<(usize, String), MergedSeed> = BTreeMap::new();
    for dir in node_dirs {
        for seed in queue_entries(&dir.join(QUEUE_DIR))? {
            by_text
                .entry((seed.text.len(), seed.text.clone()))
                .or_insert(seed);
        }
    }
    for user_seed in user {
        if bounds.is_some_and(|b| user_seed.bounds.within(&b)) {
            let seed = user_seed.seed.clone();
            by_text
                .entry((seed.text.len(), seed.text.clone()))
                .or_insert(seed);
        }
    }
    Ok(by_text.into_values().collect())
}

/// Writes `seeds` to `dir` as `NNNNNN.txt` + `NNNNNN.choices`, numbered smallest first,
/// replacing whatever an interrupted earlier attempt left there. The merge is a pure function
/// of finished predecessors, so writing it again gives the same files.
pub fn write(dir: &Path, seeds: &[MergedSeed]) -> Result<(), Diagnostic> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| {
            Diagnostic::error(format!("cannot replace the merged seeds: {e}")).in_file(dir)
        })?;
    }
    crate::create_dir(dir)?;
    let entries = EntryDir::new(dir);
    for (number, seed) in (0..).zip(seeds) {
        let content = EntryContent {
            choices: Some(&seed.choices),
            text: seed.text.as_bytes(),
            meta: None,
        };
        entries
            .entry(number)
            .write_all(content, Durability::Unsynced)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(dir: &Path, number: u32, text: &str, choices: &[u8], complete: bool) {
        let queue = dir.join("queue");
        std::fs::create_dir_all(&queue).unwrap();
        let base = queue.join(format!("{number:06}"));
        std::fs::write(base.with_extension("txt"), text).unwrap();
        std::fs::write(base.with_extension("choices"), choices).unwrap();
        if complete {
            std::fs::write(base.with_extension("meta"), "size=1\n").unwrap();
        }
    }

    #[test]
    fn union_dedups_by_text_and_sorts_smallest_first() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        put(&a, 0, "print 10;", b"a0", true);
        put(&a, 1, "x;", b"a1", true);
        put(&b, 0, "x;", b"b0", true);
        put(&b, 1, "let a = 1;", b"b1", true);
        put(&b, 2, "aa;", b"b2", true);
        put(&b, 3, "half written", b"b3", false);
        let merged = merge_with(&[a.clone(), b, dir.path().join("missing")], &[], None).unwrap();
        let texts: Vec<&str> = merged.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(texts, ["x;", "aa;", "print 10;", "let a = 1;"]);
        // The duplicate "x;" comes from the first predecessor.
        assert_eq!(merged[0].choices, b"a1");

        let out = dir.path().join("seeds");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("stale.choices"), "old").unwrap();
        write(&out, &merged).unwrap();
        assert!(!out.join("stale.choices").exists());
        assert_eq!(
            std::fs::read_to_string(out.join("000001.txt")).unwrap(),
            "aa;"
        );
        assert_eq!(std::fs::read(out.join("000003.choices")).unwrap(), b"b1");
    }
}
