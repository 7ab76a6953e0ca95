//! Bonsai: grammar-based, coverage-guided fuzzing with bounded choice sequences.
//!
//! The modules follow the path of an input: grammar → analysis → choice sequence → tree →
//! sampler → text → target → feedback → corpus, driven by `mutators`, `schedule` and the loop
//! in `fuzz`, with `lattice` and `campaign` above. `ARCHITECTURE.md` at the repository root
//! lists them in dependency order (each uses only those above it) and says what each owns.

pub mod analysis;
pub mod bounds;
pub(crate) mod campaign;
pub mod cargo_bonsai;
pub mod choice;
pub mod cli;
pub mod convert;
pub mod corpus;
pub mod cover;
pub mod coverage;
pub mod diagnostic;
pub(crate) mod dir_lock;
pub(crate) mod entry;
pub mod fault;
pub mod feedback;
pub(crate) mod fuzz;
pub mod grammar;
pub mod import;
pub mod mutators;
pub mod negative;
pub(crate) mod observer;
pub mod parse;
pub mod peer;
pub(crate) mod provenance;
pub mod sampler;
pub(crate) mod schedule;
pub mod target;
pub mod text;
pub mod tree;

mod fs_util;
pub mod layout;
pub use fs_util::{
    claim, create_dir, has_entries, read_json, write_atomic, write_atomic_unsynced, write_new,
};
pub(crate) mod lattice;
pub mod reduce;
pub mod regression;
pub mod replay;
pub mod report;
pub mod triage;
