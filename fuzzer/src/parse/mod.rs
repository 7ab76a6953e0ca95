//! The reverse path: from text to a derivation tree to the choice sequence that replays it.
//!
//! `bonsai parse` and `bonsai import` use it to bring users' existing seed files into the
//! choice-sequence world: a parsed seed can be mutated, shrunk and replayed like any generated
//! input. The pipeline is: [`ParseInput`] (layout tokens from line structure) → Earley
//! recognizer over a desugared [`ParseTable`] → extraction of one derivation in the exact shape
//! the sampler builds → the tree's choices (`DerivationTree::choices`).
//!
//! Parsing is tolerant of layout: outside lexical rules any run of spaces and tabs (and line
//! breaks, in grammars without layout tokens) may precede a token, while inside a lexical rule
//! nothing may separate its pieces. Every text the renderer produces therefore parses, and its
//! choices replay to the identical text.

mod chart;
mod earley;
mod extract;
mod input;
mod parse_error;
#[allow(clippy::module_inception)]
mod parser;
mod pool_renamer;
mod rejection;
mod scan_queue;
mod scanner;
mod table;

pub use extract::MAX_NESTING;
pub use input::ParseInput;
pub use parse_error::ParseError;
pub use parser::{ParseOptions, Parsed, Parser};
pub use pool_renamer::Rename;
pub use table::ParseTable;
