//! The regression corpus: the top node's queue of a campaign (or a fuzzing run's queue) as
//! small readable files plus a manifest of what each input did, so that rerunning it against
//! a changed compiler shows every verdict or output that changed.
//!
//! `source` reads campaign and fuzzing directories, `manifest` is the corpus's
//! `manifest.json`, `export` writes a corpus (all of the queue, or the `distill`ed inputs that carry its coverage)
//! from the entries as `export_input` reads and checks them, `check` replays one against the manifest.

mod check;
mod distill;
mod export;
mod export_input;
mod manifest;
mod source;

pub use check::{Change, CheckReport, check};
pub use distill::distill;
pub use export::{ExportOptions, ExportSummary, export, natural_extension};
pub use manifest::{CORPUS_FORMAT, CORPUS_MANIFEST, CorpusEntry, CorpusManifest};
pub use source::{NodeSource, QueueEntry, Source, node_name, read_json};
