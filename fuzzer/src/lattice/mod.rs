//! The Bonsai lattice of fuzzers F(m,n,d,v), ordered by their bounds, each seeded
//! with its predecessors' corpora.

#[allow(clippy::module_inception)]
mod lattice;
mod node;
mod restriction;

pub use lattice::Lattice;
pub use node::Node;
pub use restriction::Restriction;
