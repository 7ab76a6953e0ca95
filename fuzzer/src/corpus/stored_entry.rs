//! One entry of a directory of entries, as files: `NNNNNN.txt`, `NNNNNN.choices`,
//! `NNNNNN.meta`. Every reader and writer of `queue/`, `crashes/`, `hangs/`, a campaign's
//! seeds, an import or an exported corpus names an entry's files here, so that the three
//! extensions and the order in which they are written are decided once.

use std::path::{Path, PathBuf};

use super::EntryInfo;
use crate::choice::SavedChoices;
use crate::diagnostic::Diagnostic;
use crate::layout::{ENTRY_CHOICES, ENTRY_META, ENTRY_TEXT, REDUCED_CHOICES, REDUCED_TXT};

/// The three files of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryFile {
    /// The input as it was run.
    Text,
    /// Its choice sequence (`SavedChoices`).
    Choices,
    /// One line about it (`EntryInfo::to_text`).
    Meta,
}

impl EntryFile {
    /// The extension that names this file of an entry.
    pub fn extension(self) -> &'static str {
        match self {
            EntryFile::Text => ENTRY_TEXT,
            EntryFile::Choices => ENTRY_CHOICES,
            EntryFile::Meta => ENTRY_META,
        }
    }

    /// Which file of an entry `path` is, by its extension; `None` for any other file.
    pub fn of(path: &Path) -> Option<EntryFile> {
        let extension = path.extension()?;
        [EntryFile::Text, EntryFile::Choices, EntryFile::Meta]
            .into_iter()
            .find(|file| extension == file.extension())
    }
}

/// Whether a write must reach the disk before it counts. Faults are rare and precious;
/// queue entries come by the thousand early in a campaign, and a rename without a sync keeps
/// them whole at a fraction of the cost (see `write_atomic_unsynced`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// Written, synced and renamed into place.
    Synced,
    /// Written and renamed into place.
    Unsynced,
    /// Choices and text written straight to their names, the metadata written and renamed
    /// into place last, none synced: for a new entry of a run's own queue, which a resume
    /// repairs (`corpus::repair`). A first write cut short leaves an entry without `.meta`,
    /// like a cut-short [`Self::Unsynced`] one, but its last file written may be torn. On a
    /// disk, a temporary name and a rename cost a new queue entry twice the time of writing
    /// its files in place (some 150 µs against 80 on this project's machines), and the first
    /// minutes of a run save an entry every twenty executions. Never for a replaced entry: its
    /// old choices would be torn.
    InPlaceUntilMeta,
}

/// What an entry's files hold, to write them all at once. An entry without choices is one
/// whose input is not a sentence of the grammar (`reduce-corpus`, a fault's text); one without
/// metadata is a seed, which the run that reads it describes.
#[derive(Clone, Copy, Debug)]
pub struct EntryContent<'a> {
    /// The `.choices` file's bytes.
    pub choices: Option<&'a [u8]>,
    /// The input.
    pub text: &'a [u8],
    /// The `.meta` line.
    pub meta: Option<&'a [u8]>,
}

/// An entry: its directory and its name without extension (`DIR/NNNNNN`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StoredEntry {
    base: PathBuf,
}

impl StoredEntry {
    /// Entry `number` of `dir`: six digits at least, a seventh past 999999.
    pub fn numbered(dir: &Path, number: u32) -> StoredEntry {
        StoredEntry {
            base: dir.join(format!("{number:06}")),
        }
    }

    /// The entry called `name` in `dir`, for entries whose names are copied from another
    /// directory rather than counted.
    pub fn named(dir: &Path, name: &str) -> StoredEntry {
        StoredEntry {
            base: dir.join(name),
        }
    }

    /// The entry that `file`, one of its files, belongs to.
    pub fn of_file(file: &Path) -> StoredEntry {
        StoredEntry {
            base: file.with_extension(""),
        }
    }

    /// Its number, when its name is all digits.
    pub fn number(&self) -> Option<u32> {
        let name = self.name()?;
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        name.parse().ok()
    }

    /// Its path without extension (`DIR/NNNNNN`), to name the entry as a whole.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// Its name without extension (`NNNNNN`).
    pub fn name(&self) -> Option<&str> {
        self.base.file_name()?.to_str()
    }

    /// The path of one of its files.
    pub fn path(&self, file: EntryFile) -> PathBuf {
        self.base.with_extension(file.extension())
    }

    /// `NNNNNN.txt`.
    pub fn text_path(&self) -> PathBuf {
        self.path(EntryFile::Text)
    }

    /// `NNNNNN.choices`.
    pub fn choices_path(&self) -> PathBuf {
        self.path(EntryFile::Choices)
    }

    /// `NNNNNN.meta`.
    pub fn meta_path(&self) -> PathBuf {
        self.path(EntryFile::Meta)
    }

    /// A fault's reduced reproducer, `NNNNNN.min.txt`.
    pub fn reduced_text_path(&self) -> PathBuf {
        self.base.with_extension(REDUCED_TXT)
    }

    /// The reduced reproducer's choices, `NNNNNN.min.choices`, while it is a sentence.
    pub fn reduced_choices_path(&self) -> PathBuf {
        self.base.with_extension(REDUCED_CHOICES)
    }

    /// Whether the entry has `file` (a cut-short write or an older version may leave one out).
    pub fn has(&self, file: EntryFile) -> bool {
        self.path(file).exists()
    }

    /// The bytes of one of its files; the error names the file.
    pub fn read(&self, file: EntryFile) -> Result<Vec<u8>, Diagnostic> {
        let path = self.path(file);
        std::fs::read(&path)
            .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(&path))
    }

    /// The input; the error names the file.
    pub fn read_text(&self) -> Result<String, Diagnostic> {
        let path = self.text_path();
        std::fs::read_to_string(&path)
            .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(&path))
    }

    /// The choice sequence, decoded; the error names the file and what is wrong with it.
    pub fn read_choices(&self) -> Result<SavedChoices, Diagnostic> {
        SavedChoices::read(&self.choices_path())
    }

    /// The metadata line; the error names the file.
    pub fn read_meta(&self) -> Result<String, Diagnostic> {
        let path = self.meta_path();
        std::fs::read_to_string(&path)
            .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(&path))
    }

    /// Whether the metadata can be read back: text whose first line has the `valid` and
    /// `edges` fields that a resumed run, `replay` and the reports take from it. A missing
    /// file, or one a crash or a stray write left truncated or overwritten, is written again
    /// when a resumed run replays its entry (see `corpus::repair`).
    pub fn meta_is_readable(&self) -> bool {
        std::fs::read_to_string(self.meta_path()).is_ok_and(|text| {
            let meta = EntryInfo::parse_line(&text);
            meta.valid.is_some() && meta.edges.is_some()
        })
    }

    /// Writes one file as `durability` says: through a temporary file and a rename, but for
    /// an entry's choices and text under [`Durability::InPlaceUntilMeta`].
    pub fn write(
        &self,
        file: EntryFile,
        bytes: &[u8],
        durability: Durability,
    ) -> Result<(), Diagnostic> {
        let path = self.path(file);
        match durability {
            Durability::Synced => crate::write_atomic(&path, bytes),
            Durability::InPlaceUntilMeta if file != EntryFile::Meta => {
                crate::write_in_place(&path, bytes)
            }
            Durability::Unsynced | Durability::InPlaceUntilMeta => {
                crate::write_atomic_unsynced(&path, bytes)
            }
        }
    }

    /// Writes one file unless it exists: `false` when another process sharing the directory
    /// took this entry first.
    pub fn write_new(
        &self,
        file: EntryFile,
        bytes: &[u8],
        durability: Durability,
    ) -> Result<bool, Diagnostic> {
        crate::write_new(&self.path(file), bytes, durability == Durability::Synced)
    }

    /// Writes the entry's files, choices first and metadata last: everything else can be
    /// rebuilt from the choices (a resume does, see `corpus::repair`), and a `.meta` marks the
    /// entry complete, so a write cut short by a full disk or a kill loses nothing.
    pub fn write_all(
        &self,
        content: EntryContent<'_>,
        durability: Durability,
    ) -> Result<(), Diagnostic> {
        if let Some(choices) = content.choices {
            self.write(EntryFile::Choices, choices, durability)?;
        }
        self.write(EntryFile::Text, content.text, durability)?;
        match content.meta {
            Some(meta) => self.write(EntryFile::Meta, meta, durability),
            None => Ok(()),
        }
    }

    /// Replaces the entry's files with another input: the metadata and the text go first
    /// (and the choices, for an input without), then the files are written as
    /// [`Self::write_all`] does, so that, cut short anywhere, the entry never has a text that
    /// its choices do not replay to, and at worst lacks text or metadata, which a resume
    /// rebuilds (`corpus::repair`, `Seed::needs_meta`).
    pub fn replace(
        &self,
        content: EntryContent<'_>,
        durability: Durability,
    ) -> Result<(), Diagnostic> {
        let mut old = vec![self.meta_path(), self.text_path()];
        if content.choices.is_none() {
            old.push(self.choices_path());
        }
        for path in old {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(Diagnostic::error(format!("cannot replace: {e}")).in_file(&path));
                }
            }
        }
        // The old choices stay until the new ones are renamed over them: torn in place, they
        // would lose an entry that was saved.
        let durability = match durability {
            Durability::InPlaceUntilMeta => Durability::Unsynced,
            other => other,
        };
        self.write_all(content, durability)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entrys_files_share_its_number_and_are_recognised_by_extension() {
        let entry = StoredEntry::numbered(Path::new("out/queue"), 7);
        assert_eq!(entry.text_path(), Path::new("out/queue/000007.txt"));
        assert_eq!(entry.choices_path(), Path::new("out/queue/000007.choices"));
        assert_eq!(entry.meta_path(), Path::new("out/queue/000007.meta"));
        assert_eq!(
            entry.reduced_text_path(),
            Path::new("out/queue/000007.min.txt")
        );
        assert_eq!(StoredEntry::of_file(&entry.meta_path()), entry);
        assert_eq!(entry.number(), Some(7));
        assert_eq!(
            StoredEntry::numbered(Path::new("q"), 1_000_000).number(),
            Some(1_000_000)
        );
        assert_eq!(StoredEntry::named(Path::new("q"), "notes").number(), None);
        assert_eq!(
            EntryFile::of(&entry.choices_path()),
            Some(EntryFile::Choices)
        );
        assert_eq!(EntryFile::of(Path::new("q/000007.json")), None);
    }

    #[test]
    fn replacing_drops_choices_the_new_input_does_not_have() {
        let dir = tempfile::tempdir().unwrap();
        let entry = StoredEntry::numbered(dir.path(), 0);
        let first = EntryContent {
            choices: Some(b"c"),
            text: b"old",
            meta: Some(b"m\n"),
        };
        entry.write_all(first, Durability::Unsynced).unwrap();
        let second = EntryContent {
            choices: None,
            text: b"new",
            meta: Some(b"n\n"),
        };
        entry.replace(second, Durability::Synced).unwrap();
        assert!(!entry.has(EntryFile::Choices));
        assert_eq!(entry.read_text().unwrap(), "new");
        assert_eq!(entry.read_meta().unwrap(), "n\n");
    }
}
