//! The corpus on disk: LibAFL's in-memory corpus, with every added entry written out as
//! readable files.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use libafl::HasMetadata;
use libafl::corpus::{Corpus, CorpusId, InMemoryCorpus, Testcase};
use libafl_bolts::Error;
use serde::{Deserialize, Serialize};

use super::EntryInfo;
use super::entry_dir::EntryDir;
use super::fault_slots::{FaultSlots, Slot, read_slot};
use super::stored_entry::{Durability, EntryContent, EntryFile, StoredEntry};
use crate::choice::{ChoiceInput, SavedChoices};
use crate::diagnostic::Diagnostic;
use crate::fault::{BucketKey, FaultKind};
use crate::layout::{CLAIMS_DIR, CRASHES_DIR, HANGS_DIR, QUEUE_DIR};

/// Which part of the output tree a store writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// `queue/`: the inputs fuzzing keeps.
    Queue,
    /// `crashes/` and `hangs/` (by [`FaultKind::directory`]): the objectives.
    Faults,
}

/// Writes `DIR/NNNNNN.choices` (the normalized choice sequence, which replays strictly to the
/// text), `NNNNNN.txt` (the rendered input) and `NNNNNN.meta` (one line; see
/// [`EntryInfo::to_text`]) for every added entry, in that order: a fault's each through a
/// temporary file, a sync and a rename, a queue entry's choices and text in place and its
/// `.meta` through a temporary file and a rename ([`Durability::InPlaceUntilMeta`]). The `.meta`
/// file is written last, so an entry whose metadata exists is complete; the choices come
/// first because everything else can be rebuilt from them (a resume does, see
/// `corpus::repair`), so a write cut short by a full disk or a kill after them leaves an entry
/// that loses nothing, and one cut short within them leaves torn choices and no text, an
/// input never saved, which the resume removes.
///
/// The disk is the source of truth: files are never deleted (but a torn first write, above),
/// and overwritten only when the
/// loop trims an entry it has just saved (`replace`, below), numbering continues after the
/// highest number already present, and an entry replayed from this
/// directory on resume (marked [`EntryInfo::existing`]) keeps its files and number, and gets
/// back its text or metadata if they are missing. LibAFL's
/// in-memory corpus keeps what the scheduler and mutators need; it travels through restarts in
/// the serialized state.
#[derive(Debug, Serialize, Deserialize)]
pub struct DiskCorpus {
    inner: InMemoryCorpus<ChoiceInput>,
    root: PathBuf,
    role: Role,
    grammar: u64,
    /// Next free number per directory name.
    next: Vec<(String, u32)>,
    /// Whether other processes write into the same directories (the clients of a multi-core
    /// run): numbers are then claimed by the file system, and an entry whose content or fault
    /// signature another client saved already is kept in memory only (see [`Self::shared`]).
    #[serde(default)]
    shared: bool,
    /// For the faults: the entry holding each bucket's reproducer.
    #[serde(default)]
    slots: FaultSlots,
}

impl DiskCorpus {
    /// Reads the next free numbers now: a hang or crash is saved from inside LibAFL's signal
    /// handler, where listing a directory (glibc's `opendir` calls `malloc` directly) could
    /// re-enter the allocator the signal interrupted.
    pub fn new(root: &Path, role: Role, grammar: u64) -> Self {
        let directories: &[&str] = match role {
            Role::Queue => &[QUEUE_DIR],
            Role::Faults => &[CRASHES_DIR, HANGS_DIR],
        };
        let next = directories
            .iter()
            .map(|d| {
                (
                    d.to_string(),
                    EntryDir::new(root.join(d)).next_free_number(),
                )
            })
            .collect();
        let slots = match role {
            Role::Queue => FaultSlots::default(),
            Role::Faults => FaultSlots::scan(root),
        };
        Self {
            inner: InMemoryCorpus::new(),
            root: root.to_path_buf(),
            role,
            grammar,
            next,
            shared: false,
            slots,
        }
    }

    /// A store that shares its directories with the other clients of a multi-core run. Each
    /// queue entry is saved once: a client that receives another's entry over LLMP keeps it
    /// in memory but finds its content claimed in `.claims/` and writes nothing. Each fault
    /// bucket is saved once across clients the same way, and its claim holds the entry's
    /// number, so that a client with a smaller reproducer replaces that entry.
    pub fn shared(mut self) -> Self {
        self.shared = true;
        self
    }

    /// Whether this process is the first of the clients sharing the directories to save
    /// `name` (a content hash or a fault signature).
    fn first_to_claim(&self, name: &str) -> Result<bool, Error> {
        let dir = self.root.join(CLAIMS_DIR);
        let io = |d: Diagnostic| Error::os_error(std::io::Error::other(d), "writing the corpus");
        if !dir.is_dir() {
            crate::create_dir(&dir).map_err(io)?;
        }
        crate::claim(&dir.join(name)).map_err(io)
    }

    fn directory(&self, info: &EntryInfo) -> &'static str {
        match (self.role, &info.fault) {
            (Role::Queue, _) => QUEUE_DIR,
            (Role::Faults, Some(fault)) => fault.kind.directory(),
            (Role::Faults, None) => FaultKind::Panic.directory(),
        }
    }

    /// What an entry's `.choices` file holds.
    fn saved(&self, input: &ChoiceInput) -> Result<SavedChoices, Error> {
        Ok(SavedChoices {
            grammar: self.grammar,
            bounds: input
                .bounds
                .ok_or_else(|| Error::illegal_state("corpus entry without bounds"))?,
            choices: input.choices.clone(),
            words: input.words.clone(),
        })
    }

    /// The claim name of an entry's content: a stable hash of its `.choices` bytes, the same
    /// in every client of one run (and on every machine).
    fn content_claim(bytes: &[u8]) -> String {
        let mut hasher = fnv::FnvHasher::default();
        std::hash::Hasher::write(&mut hasher, bytes);
        format!("queue-{:016x}", std::hash::Hasher::finish(&hasher))
    }

    fn take_number(&mut self, directory: &str) -> u32 {
        if let Some((_, next)) = self.next.iter_mut().find(|(d, _)| d == directory) {
            *next += 1;
            return *next - 1;
        }
        let first = EntryDir::new(self.root.join(directory)).next_free_number();
        self.next.push((directory.to_string(), first + 1));
        first
    }

    fn write(&mut self, testcase: &mut Testcase<ChoiceInput>) -> Result<(), Error> {
        let info = testcase
            .metadata::<EntryInfo>()
            .map_err(|_| Error::illegal_state("corpus entry without EntryInfo metadata"))?
            .clone();
        if let Some(existing) = info.existing {
            if let (true, Some(input)) = (self.shared, testcase.input()) {
                // Entries of an earlier run are on disk already; claiming their content keeps
                // the other clients from writing them again when they receive them.
                let bytes = self.saved(input)?.to_bytes();
                self.first_to_claim(&Self::content_claim(&bytes))?;
            }
            let mut info = info;
            info.number = Some(existing);
            self.repair(&info)?;
            *testcase.metadata_mut::<EntryInfo>()? = info;
            return Ok(());
        }
        let input = testcase
            .input()
            .as_ref()
            .ok_or_else(|| Error::illegal_state("corpus entry without input"))?;
        let bytes = self.saved(input)?.to_bytes();
        let bucket = match (&info.fault, self.role) {
            (Some(fault), Role::Faults) => Some((fault.kind, fault.signature)),
            _ => None,
        };
        if let Some(key) = bucket
            && let Some(slot) = self.known_slot(key)?
        {
            return self.replace_if_smaller(key, slot, &bytes, testcase);
        }
        if self.shared {
            let claim = match bucket {
                Some((kind, signature)) => Self::fault_claim(kind, signature),
                None => Self::content_claim(&bytes),
            };
            if !self.first_to_claim(&claim)? {
                // Another client saved it: kept in memory, without a number.
                return Ok(());
            }
        }
        let directory = self.directory(&info);
        // The diagnostic travels inside the error, so that the run can end with the file and
        // the reason (`fuzz::fatal`).
        let io = |d: Diagnostic| Error::os_error(std::io::Error::other(d), "writing the corpus");
        // Faults are rare and precious: synced. Queue entries come by the thousand early in a
        // campaign: written in place without a sync, the metadata renamed into place last.
        let durability = match self.role {
            Role::Faults => Durability::Synced,
            Role::Queue => Durability::InPlaceUntilMeta,
        };
        let entries = EntryDir::new(self.root.join(directory));
        let (number, entry) = loop {
            let number = self.take_number(directory);
            let entry = entries.entry(number);
            if !self.shared {
                entry
                    .write(EntryFile::Choices, &bytes, durability)
                    .map_err(io)?;
                break (number, entry);
            }
            // Another client took this number first: the next one, until one is free.
            if entry
                .write_new(EntryFile::Choices, &bytes, durability)
                .map_err(io)?
            {
                break (number, entry);
            }
        };
        entry
            .write(EntryFile::Text, info.text.as_bytes(), durability)
            .map_err(io)?;
        let mut info = info;
        info.number = Some(number);
        entry
            .write(EntryFile::Meta, info.to_text().as_bytes(), durability)
            .map_err(io)?;
        if let Some((kind, signature)) = bucket {
            let size = info.text.len();
            self.slots.offer((kind, signature), Slot { number, size });
            if self.shared {
                // The claim names the entry from now on, for the clients that find a smaller
                // reproducer (`known_slot`).
                let claim = self
                    .root
                    .join(CLAIMS_DIR)
                    .join(Self::fault_claim(kind, signature));
                crate::write_atomic_unsynced(&claim, number.to_string().as_bytes()).map_err(io)?;
            }
        }
        *testcase.metadata_mut::<EntryInfo>()? = info;
        Ok(())
    }

    fn fault_claim(kind: FaultKind, signature: u64) -> String {
        format!("fault-{kind}-{signature:016x}")
    }

    /// The entry that holds bucket `key` already, if any: one this store wrote or found when
    /// it started, or, in a multi-core run, the one another client's claim names (read from
    /// that entry's metadata, since its size changes as clients replace it). `None` while the
    /// claiming client has not finished writing.
    fn known_slot(&mut self, key: BucketKey) -> Result<Option<Slot>, Error> {
        if !self.shared {
            return Ok(self.slots.get(key));
        }
        let claim = self
            .root
            .join(CLAIMS_DIR)
            .join(Self::fault_claim(key.0, key.1));
        let Ok(number) = std::fs::read_to_string(&claim) else {
            return Ok(None);
        };
        let Ok(number) = number.trim().parse::<u32>() else {
            return Ok(None);
        };
        let entry = StoredEntry::numbered(&self.root.join(key.0.directory()), number);
        Ok(read_slot(&entry).map(|(_, slot)| slot))
    }

    /// Writes a known bucket's smaller reproducer over its entry (nothing for one no smaller;
    /// kept in memory either way). Clients that share the entry take turns by locking its
    /// claim, and check the size again inside the lock.
    fn replace_if_smaller(
        &mut self,
        key: BucketKey,
        slot: Slot,
        bytes: &[u8],
        testcase: &mut Testcase<ChoiceInput>,
    ) -> Result<(), Error> {
        let io = |d: Diagnostic| Error::os_error(std::io::Error::other(d), "writing the corpus");
        let mut info = testcase.metadata::<EntryInfo>()?.clone();
        if info.size() >= slot.size {
            return Ok(());
        }
        let _turn = if self.shared {
            let claim = self
                .root
                .join(CLAIMS_DIR)
                .join(Self::fault_claim(key.0, key.1));
            let turn = ClaimLock::take(&claim).map_err(io)?;
            match self.known_slot(key)? {
                Some(now) if now.number == slot.number && info.size() < now.size => {}
                _ => return Ok(()),
            }
            Some(turn)
        } else {
            None
        };
        let entry = StoredEntry::numbered(&self.root.join(key.0.directory()), slot.number);
        info.number = Some(slot.number);
        let meta = info.to_text();
        let content = EntryContent {
            choices: Some(bytes),
            text: info.text.as_bytes(),
            meta: Some(meta.as_bytes()),
        };
        entry.replace(content, Durability::Synced).map_err(io)?;
        self.slots.offer(
            key,
            Slot {
                number: slot.number,
                size: info.text.len(),
            },
        );
        *testcase.metadata_mut::<EntryInfo>()? = info;
        Ok(())
    }

    /// Replaces the files of an entry already written (its `EntryInfo::number`) with a smaller
    /// input that keeps what the entry was saved for. The metadata and the text go first, then
    /// the choices, text and metadata are written again: cut short anywhere, the entry is left
    /// with its old or its new choices and at worst without text or metadata, which a resume
    /// rebuilds (`corpus::repair`, `Seed::needs_meta`). It is never left with a text that its
    /// choices do not replay to. An entry without a number was never written: nothing to do.
    fn rewrite(&self, testcase: &Testcase<ChoiceInput>) -> Result<(), Error> {
        let Ok(info) = testcase.metadata::<EntryInfo>() else {
            return Ok(());
        };
        let Some(number) = info.number else {
            return Ok(());
        };
        if info.released_size.is_some() {
            // Its text is on disk only: writing `info.text` would empty the text file.
            return Err(Error::illegal_state(
                "rewriting a corpus entry without its text (EntryInfo::set_text)",
            ));
        }
        let input = testcase
            .input()
            .as_ref()
            .ok_or_else(|| Error::illegal_state("corpus entry without input"))?;
        let choices = self.saved(input)?.to_bytes();
        let entry = StoredEntry::numbered(&self.root.join(self.directory(info)), number);
        let io = |d: Diagnostic| Error::os_error(std::io::Error::other(d), "writing the corpus");
        let meta = info.to_text();
        let content = EntryContent {
            choices: Some(&choices),
            text: info.text.as_bytes(),
            meta: Some(meta.as_bytes()),
        };
        entry.replace(content, Durability::Unsynced).map_err(io)
    }

    /// Writes the text and the metadata of an entry of this directory that a resume replayed
    /// (`info.number` set), when a kill or a full disk kept them from being written or left
    /// the metadata unreadable. What is there and readable is left alone.
    fn repair(&self, info: &EntryInfo) -> Result<(), Error> {
        let Some(number) = info.number else {
            return Ok(());
        };
        let entry = StoredEntry::numbered(&self.root.join(self.directory(info)), number);
        let io = |d: Diagnostic| Error::os_error(std::io::Error::other(d), "writing the corpus");
        if !entry.has(EntryFile::Text) {
            entry
                .write(EntryFile::Text, info.text.as_bytes(), Durability::Unsynced)
                .map_err(io)?;
        }
        if !entry.meta_is_readable() {
            entry
                .write(
                    EntryFile::Meta,
                    info.to_text().as_bytes(),
                    Durability::Unsynced,
                )
                .map_err(io)?;
        }
        Ok(())
    }
}

/// An exclusive `flock` on a claim file, released when dropped (or when the process dies).
/// Once an entry's files are written, its text lives on disk only: a long run saves thousands
/// of entries, and each kept its text in memory too (2 KB on average on naga) though nothing
/// reads it back. Entries another client wrote are released as well.
fn release_text(testcase: &mut Testcase<ChoiceInput>) {
    if let Ok(info) = testcase.metadata_mut::<EntryInfo>() {
        info.release_text();
    }
}

struct ClaimLock(std::fs::File);

impl ClaimLock {
    fn take(path: &Path) -> Result<ClaimLock, Diagnostic> {
        let file = std::fs::File::open(path)
            .map_err(|e| Diagnostic::error(format!("cannot open: {e}")).in_file(path))?;
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on a descriptor we own.
        while unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            let error = std::io::Error::last_os_error();
            if error.kind() != std::io::ErrorKind::Interrupted {
                return Err(Diagnostic::error(format!("cannot lock: {error}")).in_file(path));
            }
        }
        Ok(ClaimLock(file))
    }
}

impl Drop for ClaimLock {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: unlocking our own descriptor.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

impl Corpus<ChoiceInput> for DiskCorpus {
    fn count(&self) -> usize {
        self.inner.count()
    }

    fn count_disabled(&self) -> usize {
        self.inner.count_disabled()
    }

    fn count_all(&self) -> usize {
        self.inner.count_all()
    }

    fn add(&mut self, mut testcase: Testcase<ChoiceInput>) -> Result<CorpusId, Error> {
        self.write(&mut testcase)?;
        release_text(&mut testcase);
        self.inner.add(testcase)
    }

    fn add_disabled(&mut self, mut testcase: Testcase<ChoiceInput>) -> Result<CorpusId, Error> {
        self.write(&mut testcase)?;
        release_text(&mut testcase);
        self.inner.add_disabled(testcase)
    }

    /// Replacing is LibAFL's way of minimizing an entry in place (the loop's trim does it); the
    /// entry's files are rewritten to match (see [`DiskCorpus::rewrite`]).
    fn replace(
        &mut self,
        id: CorpusId,
        mut testcase: Testcase<ChoiceInput>,
    ) -> Result<Testcase<ChoiceInput>, Error> {
        self.rewrite(&testcase)?;
        release_text(&mut testcase);
        self.inner.replace(id, testcase)
    }

    /// Removes the entry from memory only: saved inputs are never deleted.
    fn remove(&mut self, id: CorpusId) -> Result<Testcase<ChoiceInput>, Error> {
        self.inner.remove(id)
    }

    fn get(&self, id: CorpusId) -> Result<&RefCell<Testcase<ChoiceInput>>, Error> {
        self.inner.get(id)
    }

    fn get_from_all(&self, id: CorpusId) -> Result<&RefCell<Testcase<ChoiceInput>>, Error> {
        self.inner.get_from_all(id)
    }

    fn current(&self) -> &Option<CorpusId> {
        self.inner.current()
    }

    fn current_mut(&mut self) -> &mut Option<CorpusId> {
        self.inner.current_mut()
    }

    fn next(&self, id: CorpusId) -> Option<CorpusId> {
        self.inner.next(id)
    }

    fn peek_free_id(&self) -> CorpusId {
        self.inner.peek_free_id()
    }

    fn prev(&self, id: CorpusId) -> Option<CorpusId> {
        self.inner.prev(id)
    }

    fn first(&self) -> Option<CorpusId> {
        self.inner.first()
    }

    fn last(&self) -> Option<CorpusId> {
        self.inner.last()
    }

    fn nth_from_all(&self, nth: usize) -> CorpusId {
        self.inner.nth_from_all(nth)
    }

    fn load_input_into(&self, testcase: &mut Testcase<ChoiceInput>) -> Result<(), Error> {
        self.inner.load_input_into(testcase)
    }

    fn store_input_from(&self, testcase: &Testcase<ChoiceInput>) -> Result<(), Error> {
        self.inner.store_input_from(testcase)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::ChoiceSequence;
    use crate::fault::Fault;
    use crate::sampler::Bounds;

    fn entry(text: &str, choices: Vec<u32>, fault: Option<Fault>) -> Testcase<ChoiceInput> {
        let mut t = Testcase::new(ChoiceInput::new(
            ChoiceSequence(choices),
            Bounds::new(1, 2, 3).unwrap(),
        ));
        t.add_metadata(EntryInfo {
            text: text.into(),
            valid: true,
            mutator: "havoc".into(),
            fault,
            ..EntryInfo::default()
        });
        t
    }

    #[test]
    fn writes_readable_files_and_never_reuses_numbers() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("queue")).unwrap();
        // A file left by an earlier run: numbering continues after it.
        std::fs::write(dir.path().join("queue/000004.txt"), "old").unwrap();
        let mut store = DiskCorpus::new(dir.path(), Role::Queue, 7);
        store.add(entry("print 1;", vec![1, 0, 2], None)).unwrap();
        let text = std::fs::read_to_string(dir.path().join("queue/000005.txt")).unwrap();
        assert_eq!(text, "print 1;");
        let saved = SavedChoices::read(&dir.path().join("queue/000005.choices")).unwrap();
        assert_eq!(saved.choices.0, vec![1, 0, 2]);
        assert_eq!(saved.grammar, 7);
        let meta = std::fs::read_to_string(dir.path().join("queue/000005.meta")).unwrap();
        assert!(meta.starts_with(r#"{"size":8,"valid":true"#), "{meta}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("queue/000004.txt")).unwrap(),
            "old"
        );

        // An entry that exists on disk already keeps its number and files.
        let mut resumed = entry("print 2;", vec![1, 0, 3], None);
        resumed.metadata_mut::<EntryInfo>().unwrap().existing = Some(4);
        let id = store.add(resumed).unwrap();
        let number = store
            .get(id)
            .unwrap()
            .borrow()
            .metadata::<EntryInfo>()
            .unwrap()
            .number;
        assert_eq!(number, Some(4));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("queue/000004.txt")).unwrap(),
            "old"
        );
        assert!(!dir.path().join("queue/000006.txt").exists());
    }

    #[test]
    fn replacing_an_entry_rewrites_its_files_under_the_same_number() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("queue")).unwrap();
        let mut store = DiskCorpus::new(dir.path(), Role::Queue, 7);
        let id = store
            .add(entry("print 1 + 2;", vec![1, 0, 2, 5], None))
            .unwrap();
        let mut smaller = entry("print 1;", vec![1, 0, 2], None);
        smaller.metadata_mut::<EntryInfo>().unwrap().number = Some(0);
        store.replace(id, smaller).unwrap();
        let queue = dir.path().join("queue");
        assert_eq!(
            std::fs::read_to_string(queue.join("000000.txt")).unwrap(),
            "print 1;"
        );
        let saved = SavedChoices::read(&queue.join("000000.choices")).unwrap();
        assert_eq!(saved.choices.0, vec![1, 0, 2]);
        let meta = std::fs::read_to_string(queue.join("000000.meta")).unwrap();
        assert!(meta.starts_with(r#"{"size":8,"#), "{meta}");
        // One entry, no temporaries or second number left behind.
        assert_eq!(std::fs::read_dir(&queue).unwrap().count(), 3);
        assert_eq!(store.count(), 1);
    }

    #[test]
    fn a_written_entry_keeps_its_text_on_disk_only_and_a_trim_writes_the_new_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("queue")).unwrap();
        let mut store = DiskCorpus::new(dir.path(), Role::Queue, 7);
        let id = store
            .add(entry("print 1 + 2;", vec![1, 0, 2, 5], None))
            .unwrap();
        let held = store.get(id).unwrap().borrow().clone();
        let info = held.metadata::<EntryInfo>().unwrap();
        assert_eq!(
            info.text, "",
            "the text stays in memory after it was written"
        );
        assert_eq!(info.size(), 12);
        assert!(info.to_text().starts_with(r#"{"size":12,"#));

        // A clone whose text was not set again would empty the file: refused.
        assert!(store.replace(id, held.clone()).is_err());
        let queue = dir.path().join("queue");
        assert_eq!(
            std::fs::read_to_string(queue.join("000000.txt")).unwrap(),
            "print 1 + 2;"
        );

        // The trim's way: a clone given its smaller text.
        let mut smaller = held;
        *smaller.input_mut() = Some(ChoiceInput::new(
            ChoiceSequence(vec![1, 0, 2]),
            Bounds::new(1, 2, 3).unwrap(),
        ));
        smaller
            .metadata_mut::<EntryInfo>()
            .unwrap()
            .set_text("print 1;".into());
        store.replace(id, smaller).unwrap();
        assert_eq!(
            std::fs::read_to_string(queue.join("000000.txt")).unwrap(),
            "print 1;"
        );
        let meta = std::fs::read_to_string(queue.join("000000.meta")).unwrap();
        assert!(meta.starts_with(r#"{"size":8,"#), "{meta}");
        let now = store.get(id).unwrap().borrow();
        let info = now.metadata::<EntryInfo>().unwrap();
        assert_eq!((info.text.as_str(), info.size()), ("", 8));
    }

    #[test]
    fn a_resumed_entry_gets_back_the_files_a_cut_short_write_lost() {
        let dir = tempfile::tempdir().unwrap();
        let queue = dir.path().join("queue");
        std::fs::create_dir_all(&queue).unwrap();
        std::fs::write(queue.join("000003.choices"), "kept").unwrap();
        let mut store = DiskCorpus::new(dir.path(), Role::Queue, 7);
        let mut resumed = entry("print 3;", vec![1, 0, 3], None);
        resumed.metadata_mut::<EntryInfo>().unwrap().existing = Some(3);
        store.add(resumed).unwrap();
        assert_eq!(
            std::fs::read_to_string(queue.join("000003.txt")).unwrap(),
            "print 3;"
        );
        let meta = std::fs::read_to_string(queue.join("000003.meta")).unwrap();
        assert!(meta.starts_with(r#"{"size":8,"valid":true"#), "{meta}");
        assert_eq!(
            std::fs::read_to_string(queue.join("000003.choices")).unwrap(),
            "kept"
        );
    }

    #[test]
    fn numbering_goes_on_past_six_digits() {
        let dir = tempfile::tempdir().unwrap();
        let queue = dir.path().join("queue");
        std::fs::create_dir_all(&queue).unwrap();
        for name in [
            "999999.txt",
            "1000000.txt",
            "1000000.choices",
            "1000000.meta",
        ] {
            std::fs::write(queue.join(name), "old").unwrap();
        }
        // Not entries: a temporary file and a name that is not a number.
        std::fs::write(queue.join(".2000000.txt.tmp17"), "").unwrap();
        std::fs::write(queue.join("notes.txt"), "").unwrap();
        assert_eq!(EntryDir::new(&queue).next_free_number(), 1_000_001);
        let mut store = DiskCorpus::new(dir.path(), Role::Queue, 7);
        store.add(entry("print 1;", vec![1, 0, 2], None)).unwrap();
        assert_eq!(
            std::fs::read_to_string(queue.join("1000000.txt")).unwrap(),
            "old"
        );
        assert_eq!(
            std::fs::read_to_string(queue.join("1000001.txt")).unwrap(),
            "print 1;"
        );
    }

    #[test]
    fn faults_go_to_their_own_directories() {
        let dir = tempfile::tempdir().unwrap();
        for d in ["crashes", "hangs"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        let fault = |kind| Fault {
            kind,
            signature: 1,
            message: "m".into(),
            location: "in f".into(),
            frames: vec!["f (x.rs:1)".into()],
            recursion: Vec::new(),
            texts: Vec::new(),
        };
        let mut store = DiskCorpus::new(dir.path(), Role::Faults, 7);
        store
            .add(entry("a", vec![0], Some(fault(FaultKind::Panic))))
            .unwrap();
        store
            .add(entry("b", vec![1], Some(fault(FaultKind::Timeout))))
            .unwrap();
        store
            .add(entry("c", vec![2], Some(fault(FaultKind::Crash))))
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("crashes/000000.txt")).unwrap(),
            "a"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("crashes/000001.txt")).unwrap(),
            "c"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("hangs/000000.txt")).unwrap(),
            "b"
        );
        let meta = std::fs::read_to_string(dir.path().join("hangs/000000.meta")).unwrap();
        assert!(
            meta.contains(r#""kind":"timeout""#) && meta.contains(r#""frames":["f (x.rs:1)"]"#),
            "{meta}"
        );
    }

    fn bucket_fault(signature: u64) -> Fault {
        Fault {
            kind: FaultKind::Panic,
            signature,
            message: "m".into(),
            location: "x.rs:1:1 in f".into(),
            frames: vec![],
            recursion: Vec::new(),
            texts: Vec::new(),
        }
    }

    fn crash_files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.join("crashes"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn one_entry_per_bucket_replaced_by_smaller_inputs_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("crashes")).unwrap();
        let mut store = DiskCorpus::new(dir.path(), Role::Faults, 7);
        let add = |store: &mut DiskCorpus, text: &str, choice: u32, signature: u64| {
            store
                .add(entry(text, vec![choice], Some(bucket_fault(signature))))
                .unwrap();
        };
        add(&mut store, "print 12345;", 1, 9);
        add(&mut store, "print 99999;", 2, 9);
        add(&mut store, "print 1;", 3, 9);
        add(&mut store, "print 22;", 4, 9);
        add(&mut store, "while 1 {}", 5, 10);
        assert_eq!(
            crash_files(dir.path()),
            [
                "000000.choices",
                "000000.meta",
                "000000.txt",
                "000001.choices",
                "000001.meta",
                "000001.txt"
            ]
        );
        let read = |name: &str| std::fs::read_to_string(dir.path().join("crashes").join(name));
        assert_eq!(read("000000.txt").unwrap(), "print 1;");
        let saved = SavedChoices::read(&dir.path().join("crashes/000000.choices")).unwrap();
        assert_eq!(saved.choices.0, vec![3], "the choices of the smaller input");
        assert!(read("000000.meta").unwrap().contains(r#""size":8"#));

        // A resumed run knows the buckets on disk.
        let mut resumed = DiskCorpus::new(dir.path(), Role::Faults, 7);
        add(&mut resumed, "print 77;", 6, 9);
        add(&mut resumed, "new;", 7, 11);
        assert_eq!(read("000000.txt").unwrap(), "print 1;");
        assert_eq!(read("000002.txt").unwrap(), "new;");
    }

    #[test]
    fn clients_sharing_the_directories_replace_each_others_entries() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("crashes")).unwrap();
        let mut first = DiskCorpus::new(dir.path(), Role::Faults, 7).shared();
        let mut second = DiskCorpus::new(dir.path(), Role::Faults, 7).shared();
        first
            .add(entry("print 12345;", vec![1], Some(bucket_fault(9))))
            .unwrap();
        second
            .add(entry("print 99999;", vec![2], Some(bucket_fault(9))))
            .unwrap();
        second
            .add(entry("print 5;", vec![3], Some(bucket_fault(9))))
            .unwrap();
        first
            .add(entry("print 55;", vec![4], Some(bucket_fault(9))))
            .unwrap();
        assert_eq!(crash_files(dir.path()).len(), 3, "one entry");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("crashes/000000.txt")).unwrap(),
            "print 5;"
        );
    }
}
