//! Grammar coverage: which parts of the grammar a set of inputs exercises, criterion by
//! criterion, so that a corpus can be judged by the structure it holds as well as by the code it
//! reaches.
//!
//! The criteria are those of the grammar-testing literature (symbol, rule and context-dependent
//! rule coverage as Raselimo, Taljaard and Fischer define them; k-path coverage as Havrikov and
//! Zeller do), read on the normalized grammar the sampler and the parser share: a named rule or a
//! group made by lowering is a nonterminal, each of its alternatives a production, and `x?` or
//! `x*` the nonterminal `x` at that position of the production. What the start rule cannot
//! reach, or what derives no word, cannot be covered by any input; it is counted apart as
//! infeasible rather than left to look like a gap in the inputs.

mod criterion;
mod descendants;
mod element;
mod input_files;
mod item;
mod products;
mod report;
mod requirements;
mod tally;

pub use criterion::{Criterion, CriterionError};
pub use element::Element;
pub use input_files::{collect_inputs, derivation, tally_files};
pub use item::{Item, production};
pub use products::{Products, nonterminal_positions};
pub use report::CriterionReport;
pub use requirements::{MAX_LISTED, Required, Requirements};
pub use tally::{Tally, for_each_path_hash};
