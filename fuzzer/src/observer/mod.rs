//! Beside the pipeline: what one execution of the target shows. `edges` reads the target's
//! coverage counters; `replay` carries what the harness replayed and the verdict it got.

mod edges;
mod replay;

pub use edges::{EdgeObserver, HitWord, covers};
pub use replay::{ExecutionClass, LastExecution, ReplayObserver};
