//! Bonsai: grammar-based, coverage-guided fuzzing with bounded choice sequences.
//!
//! The modules follow the path of an input, top to bottom:
//! grammar → analysis → sampler → choice sequence → tree → text → target → observer →
//! feedback → corpus, driven by `mutators`, `schedule` and the loop in `fuzz`.
//! See `ARCHITECTURE.md` at the repository root for what each owns.

pub mod analysis;
pub mod bounds;
pub mod campaign;
pub mod choice;
pub mod cli;
pub mod corpus;
pub mod diagnostic;
pub mod dir_lock;
pub mod entry;
pub mod export;
pub mod fault;
pub mod feedback;
pub mod fuzz;
pub mod grammar;
pub mod import;
pub mod mutators;
pub mod observer;
pub mod parse;
pub mod provenance;
pub mod sampler;
pub mod schedule;
pub mod target;
pub mod text;
pub mod tree;

mod fs_util;
pub use fs_util::{create_dir, write_atomic, write_atomic_unsynced};
pub mod lattice;
pub mod reduce;
pub mod regression;
pub mod replay;
pub mod report;
