//! Bonsai's grammar toolkit: everything about grammars that needs no fuzzing loop.
//!
//! A grammar is loaded (`grammar`, or `import` for tree-sitter, ANTLR4 and fuzzingbook
//! grammars), analysed (`analysis`), and written out for other tools (`convert`). The bounded
//! sampler (`sampler`) turns random draws into choice sequences (`choice`) and derivation trees
//! (`tree`), which the layout pass (`text`) renders; `parse` goes back from a text to its
//! choices. `coverage` measures which parts of the grammar a set of derivations exercised,
//! `cover` writes suites that cover a criterion, and `negative` writes suites of inputs the
//! grammar rejects. `diagnostic` locates every error in the file it came from, `bounds` holds
//! the bounds (m, n, d) that keep generation finite, and `fs_util` writes files atomically.
//!
//! The crate depends on no part of LibAFL, so that generation, grammar coverage and suites can
//! be used without building a fuzzer; random numbers come from `fast_rands`, the generators
//! LibAFL itself re-exports, so the engine passes its fuzzing state's generator straight in.
//! `ARCHITECTURE.md` at the repository root says what each module owns.

pub mod analysis;
pub mod bounds;
pub mod choice;
pub mod convert;
pub mod cover;
pub mod coverage;
pub mod diagnostic;
pub mod fs_util;
pub mod grammar;
pub mod import;
pub mod negative;
pub mod parse;
pub mod sampler;
pub mod text;
pub mod tree;

/// The random number generators the samplers draw from (LibAFL's own, without LibAFL).
pub use fast_rands as rands;
