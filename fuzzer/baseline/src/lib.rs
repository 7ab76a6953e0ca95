//! The peer baseline: LibAFL's own Nautilus fuzzer on the same grammar, target and budget,
//! as the subcommand `baseline-nautilus` of a target binary.
//!
//! Built the way LibAFL's Nautilus examples build it (derivation-tree inputs, the random,
//! recursion and splice mutators under a havoc scheduler, a hit-count edge map with
//! `MaxMapFeedback`, a queue scheduler), on Bonsai's grammar converted by
//! `convert::nautilus_rules`, so that `scripts/compare-nautilus` compares engines, not setups.
//! It shares Bonsai's supervision (a restarting manager, so aborts and hangs do not end the
//! run), its harness conditions (panics caught in-process, the same batched timeout, library
//! backtraces off; `bonsai::peer`) and its output: the corpus as text in `queue/`, which
//! `bonsai replay` measures like Bonsai's own, each distinct fault once in `crashes/` or
//! `hangs/` with the signature Bonsai's loop would give it (`faults`), and `coverage.csv`
//! (`timeline`).
//!
//! A crate of its own, not a module of the engine, because it is an experiment: only it needs
//! LibAFL's `nautilus` feature, and a target crate opts in by naming [`NAUTILUS`] in
//! `bonsai::target_main!`.

mod command;
mod faults;
mod run;
mod timeline;

pub use command::NAUTILUS;
