//! Running saved inputs again, outside the fuzzing loop: `bonsai replay`, the regression corpus
//! (`regression`), the report and the reducer's coverage and crash criteria all need the
//! same answer to "what does the target do with this input, and what does it cover?", asked
//! without letting one input's abort, stack overflow or hang end the caller.
//!
//! `forked`: one input in a forked child with a timer, repeatable run after run (verdict,
//! message, covered edges, a fault's signature, optionally the target's output), reported
//! through a shared page (`report_page`) as an `execution`. `inputs`: which files of a
//! directory are inputs, and the text each stands for.

mod execution;
mod forked;
mod inputs;
mod report_page;

pub use execution::{Execution, Outcome};
pub use forked::{ForkedRunner, run_forked};
pub use inputs::{InputError, input_text, list_inputs};
