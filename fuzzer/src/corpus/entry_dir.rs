//! A directory of entries (`queue/`, `crashes/`, `hangs/`, a campaign's `seeds/<node>/`, an
//! import's output, an exported corpus): which entries it holds and which number comes next.
//! Listing is decided here once, so that every command sees the same entries in the same
//! order.

use std::path::{Path, PathBuf};

use super::stored_entry::{EntryFile, StoredEntry};

/// A directory of entries. It need not exist: a run that kept nothing has no `crashes/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryDir {
    path: PathBuf,
}

impl EntryDir {
    /// The entries of `path`.
    pub fn new(path: impl Into<PathBuf>) -> EntryDir {
        EntryDir { path: path.into() }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Entry `number` of this directory, whether or not it exists.
    pub fn entry(&self, number: u32) -> StoredEntry {
        StoredEntry::numbered(&self.path, number)
    }

    /// Every file of the directory, sorted by path, for readers that judge each file (seeds,
    /// repair). The error is the listing's own, for the caller to say what it was reading.
    pub fn files(&self) -> std::io::Result<Vec<PathBuf>> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&self.path)?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        paths.sort();
        Ok(paths)
    }

    /// The files of the directory that are `file` of some entry, sorted by path.
    pub fn files_of(&self, file: EntryFile) -> std::io::Result<Vec<PathBuf>> {
        let mut paths = self.files()?;
        paths.retain(|p| EntryFile::of(p) == Some(file));
        Ok(paths)
    }

    /// The complete entries, those with a `.meta` (written last), in number order (1000000
    /// after 999999), entries not named by a number last. A missing directory has none.
    pub fn complete(&self) -> Vec<StoredEntry> {
        let mut entries: Vec<StoredEntry> = self
            .files_of(EntryFile::Meta)
            .unwrap_or_default()
            .iter()
            .map(|meta| StoredEntry::of_file(meta))
            .collect();
        entries.sort_by_cached_key(|e| {
            let number = e.number();
            (number.is_none(), number, e.clone())
        });
        entries
    }

    /// Every entry named by a number that has any of its three files, complete or not, in
    /// number order: what an export takes, noting the incomplete ones.
    pub fn numbered(&self) -> Vec<StoredEntry> {
        let mut entries: Vec<(u32, StoredEntry)> = self
            .files()
            .unwrap_or_default()
            .iter()
            .filter(|p| EntryFile::of(p).is_some())
            .filter_map(|p| {
                let entry = StoredEntry::of_file(p);
                Some((entry.number()?, entry))
            })
            .collect();
        entries.sort();
        entries.dedup();
        entries.into_iter().map(|(_, entry)| entry).collect()
    }

    /// One more than the highest number among the files of the directory (0 for an empty or
    /// missing one). Names have at least six digits and grow a seventh past 999999, so a
    /// name of any length counts: counting only six-digit names would hand out 1000000 again
    /// on every resume, over the entry already there. A reduced reproducer's files count as
    /// their entry's; temporary files (named with a leading dot) do not.
    pub fn next_free_number(&self) -> u32 {
        std::fs::read_dir(&self.path)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                let stem = name.split('.').next()?;
                (!stem.is_empty() && stem.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| stem.parse::<u32>().ok())
                    .flatten()
            })
            .max()
            .map_or(0, |n| n + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_entries_come_in_number_order_and_incomplete_ones_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "1000000.meta",
            "999999.meta",
            "000002.meta",
            "000003.txt",
            "notes.meta",
            ".000004.meta.tmp1",
        ] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let entries = EntryDir::new(dir.path());
        let names: Vec<_> = entries
            .complete()
            .iter()
            .map(|e| e.name().unwrap().to_string())
            .collect();
        assert_eq!(names, ["000002", "999999", "1000000", "notes"]);
        let numbered: Vec<_> = entries.numbered().iter().map(|e| e.number()).collect();
        assert_eq!(numbered, [Some(2), Some(3), Some(999_999), Some(1_000_000)]);
        assert_eq!(entries.next_free_number(), 1_000_001);
        assert!(
            EntryDir::new(dir.path().join("missing"))
                .complete()
                .is_empty()
        );
    }
}
