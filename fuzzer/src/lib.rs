//! Bonsai: grammar-based, coverage-guided fuzzing with bounded choice sequences.
//!
//! The modules follow the path of an input: grammar → analysis → choice sequence → tree →
//! sampler → text → target → feedback → corpus, driven by `mutators`, `schedule` and the loop
//! in `fuzz`, with `lattice` and `campaign` above. `ARCHITECTURE.md` at the repository root
//! lists them in dependency order (each uses only those above it) and says what each owns.
//!
//! The grammar toolkit (grammar, analysis, import, convert, parse, sampler, choice, tree, text,
//! coverage, cover, negative, with diagnostic, bounds and fs_util below them) is the crate
//! `bonsai-grammar`, which has no LibAFL in its dependencies. Its modules are re-exported here
//! under their old names, so `crate::grammar::…` in the engine and `bonsai::grammar::…` in
//! targets still resolve; `choice` adds the fuzzer's input type to the toolkit's module.

use bonsai_grammar::fs_util;
pub use bonsai_grammar::fs_util::{
    claim, create_dir, has_entries, read_json, write_atomic, write_atomic_unsynced, write_in_place,
    write_new,
};
pub use bonsai_grammar::{
    analysis, bounds, convert, cover, coverage, diagnostic, grammar, import, negative, parse,
    sampler, text, tree,
};

pub(crate) mod campaign;
pub mod cargo_bonsai;
pub(crate) mod child_process;
pub mod choice;
pub mod cli;
pub mod corpus;
pub(crate) mod dir_lock;
pub(crate) mod entry;
pub mod fault;
pub mod feedback;
pub(crate) mod fuzz;
pub(crate) mod lattice;
pub mod layout;
pub mod mutators;
pub(crate) mod observer;
pub mod peer;
pub(crate) mod provenance;
pub mod reduce;
pub mod regression;
pub mod replay;
pub mod report;
pub(crate) mod schedule;
pub mod target;
pub mod triage;
