//! The derivation tree that a choice sequence replays to. Every node knows the span
//! of choices that produced it.

mod encoding;
mod node;
#[allow(clippy::module_inception)]
mod tree;

pub use node::{Node, NodeId, NodeKind};
pub use tree::{Children, DerivationTree};
