//! Which entry of `crashes/` or `hangs/` holds each fault bucket's reproducer, so that a
//! smaller input of a known bucket replaces that entry instead of adding another: one saved
//! fault per bug, and the smallest input seen for it.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::entry::EntryInfo;
use super::entry_dir::EntryDir;
use super::stored_entry::{EntryFile, StoredEntry};
use crate::fault::{BucketKey, FaultKind};
use crate::layout::{CRASHES_DIR, HANGS_DIR};

/// Where one bucket's reproducer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    /// Its file number in the kind's directory.
    pub number: u32,
    /// Its size in bytes.
    pub size: usize,
}

/// The slots of an output directory's faults.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FaultSlots {
    slots: HashMap<BucketKey, Slot>,
}

impl FaultSlots {
    /// The faults saved under `root` (an entry whose metadata does not read is left out; an
    /// output of an earlier version may hold several entries of one bucket: the smallest
    /// counts).
    pub fn scan(root: &Path) -> FaultSlots {
        let mut slots = FaultSlots::default();
        for dir in [CRASHES_DIR, HANGS_DIR] {
            for entry in EntryDir::new(root.join(dir)).complete() {
                let Some((key, slot)) = read_slot(&entry) else {
                    continue;
                };
                slots.offer(key, slot);
            }
        }
        slots
    }

    /// The slot of bucket `key`, if one is saved.
    pub fn get(&self, key: BucketKey) -> Option<Slot> {
        self.slots.get(&key).copied()
    }

    /// Records `slot` for `key` unless a smaller one is recorded.
    pub fn offer(&mut self, key: BucketKey, slot: Slot) {
        let known = self.slots.entry(key).or_insert(slot);
        if slot.size < known.size {
            *known = slot;
        }
    }

    /// Every bucket and its slot.
    pub fn iter(&self) -> impl Iterator<Item = (BucketKey, Slot)> + '_ {
        self.slots.iter().map(|(&key, &slot)| (key, slot))
    }
}

/// The bucket and slot of `entry`, from its metadata; `None` for an entry that is not a
/// fault's or whose metadata does not read.
pub fn read_slot(entry: &StoredEntry) -> Option<(BucketKey, Slot)> {
    let number = entry.number()?;
    let parsed = EntryInfo::parse_line(&entry.read_meta().ok()?);
    let kind = FaultKind::parse(parsed.kind.as_deref()?)?;
    let size = match parsed.size {
        Some(size) => size,
        None => std::fs::metadata(entry.path(EntryFile::Text)).ok()?.len() as usize,
    };
    Some(((kind, parsed.signature?), Slot { number, size }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Durability, EntryContent};
    use crate::fault::Fault;

    fn meta(size: usize, kind: FaultKind, signature: u64) -> String {
        EntryInfo {
            text: "x".repeat(size),
            fault: Some(Fault {
                kind,
                signature,
                message: "m".into(),
                location: "l".into(),
                frames: vec![],
                recursion: Vec::new(),
                texts: Vec::new(),
            }),
            ..EntryInfo::default()
        }
        .to_text()
    }

    #[test]
    fn scans_the_smallest_entry_of_each_bucket_and_replaces_entries_whole() {
        let dir = tempfile::tempdir().unwrap();
        let crashes = dir.path().join("crashes");
        std::fs::create_dir_all(&crashes).unwrap();
        std::fs::write(crashes.join("000000.meta"), meta(9, FaultKind::Panic, 1)).unwrap();
        std::fs::write(crashes.join("000001.meta"), meta(4, FaultKind::Panic, 1)).unwrap();
        std::fs::write(crashes.join("000002.meta"), meta(7, FaultKind::Crash, 1)).unwrap();
        std::fs::write(crashes.join("000003.meta"), "{damaged").unwrap();
        let slots = FaultSlots::scan(dir.path());
        assert_eq!(
            slots.get((FaultKind::Panic, 1)),
            Some(Slot { number: 1, size: 4 })
        );
        assert_eq!(slots.get((FaultKind::Crash, 1)).map(|s| s.number), Some(2));
        assert_eq!(slots.iter().count(), 2);

        let entry = EntryDir::new(&crashes).entry(2);
        std::fs::write(entry.choices_path(), "old").unwrap();
        let line = meta(2, FaultKind::Crash, 1);
        let content = EntryContent {
            choices: None,
            text: b"ab",
            meta: Some(line.as_bytes()),
        };
        entry.replace(content, Durability::Synced).unwrap();
        assert!(!entry.choices_path().exists(), "no stale choices");
        assert_eq!(entry.read_text().unwrap(), "ab");
        let (_, slot) = read_slot(&entry).unwrap();
        assert_eq!(slot.size, 2);
    }
}
