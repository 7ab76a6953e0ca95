//! The corpus on disk, readable by a person: `queue/`, `crashes/`, `hangs/`, each
//! entry `NNNNNN.txt` (the input), `NNNNNN.choices` (its choice sequence) and `NNNNNN.meta`
//! (one line about it). `stored_entry` names, reads and writes one entry's files, `entry_dir`
//! lists a directory of them (every command that reads or writes entries goes through these
//! two), `entry` is the metadata line, `store` writes entries as LibAFL adds them,
//! `fault_slots` says which entry holds each fault bucket (one per bug, the smallest input),
//! `seeds` reads choice sequences back (strictly), `out_dir` owns the directory tree, `repair`
//! makes whole what an interrupted run left half-written.

mod entry;
mod entry_dir;
mod fault_slots;
mod out_dir;
mod repair;
mod seeds;
mod store;
mod stored_entry;

pub use entry::{EntryInfo, FaultRecord, MetaRecord, ParsedMeta, valid_entries};
pub use entry_dir::EntryDir;
pub use fault_slots::{FaultSlots, Slot, read_slot};
pub use out_dir::{DIRECTORIES, FaultCounts, MANIFEST, Manifest, OutDir, SUMMARY};
pub use repair::{Repaired, repair};
pub use seeds::{IMPORT_REPORT_JSON, IMPORT_REPORT_TXT, Seed, Seeds, Skipped, input_directory};
pub use store::{DiskCorpus, Role};
pub use stored_entry::{Durability, EntryContent, EntryFile, StoredEntry};
