//! The corpus on disk, readable by a person: `queue/`, `crashes/`, `hangs/`, each
//! entry `NNNNNN.txt` (the input), `NNNNNN.choices` (its choice sequence) and `NNNNNN.meta`
//! (one line about it). `entry` is that line, `store` writes entries as LibAFL adds them,
//! `fault_slots` says which entry holds each fault bucket (one per bug, the smallest input),
//! `seeds` reads choice sequences back (strictly), `out_dir` owns the directory tree, `repair`
//! makes whole what an interrupted run left half-written.

mod entry;
mod fault_slots;
mod out_dir;
mod repair;
mod seeds;
mod store;

pub use entry::{EntryInfo, FaultRecord, MetaRecord, ParsedMeta, valid_entries};
pub use fault_slots::{FaultSlots, Slot, read_slot, replace_entry};
pub use out_dir::{DIRECTORIES, FaultCounts, MANIFEST, Manifest, OutDir, SUMMARY};
pub use repair::{Repaired, repair};
pub use seeds::{IMPORT_REPORT_JSON, IMPORT_REPORT_TXT, Seed, Seeds, Skipped, input_directory};
pub use store::{DiskCorpus, Role, complete_entries, next_free_number};
