//! One fuzzer of the lattice, F(m,n,d,v).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::Restriction;
use crate::sampler::Bounds;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Node {
    pub bounds: Bounds,
    pub validity: Restriction,
}

impl Node {
    pub fn new(bounds: Bounds, validity: Restriction) -> Self {
        Self { bounds, validity }
    }

    /// The paper's order: bounds componentwise, and v equal or the larger node unrestricted.
    pub fn precedes_or_equals(&self, other: &Node) -> bool {
        self.bounds.within(&other.bounds)
            && (self.validity == other.validity || other.validity == Restriction::Unrestricted)
    }

    /// Distance from the bottom node F(1,1,1,r). Every covering step adds exactly one, so
    /// nodes of equal rank are never ordered against each other.
    pub fn rank(&self) -> u32 {
        let b = self.bounds;
        b.idents + b.items + b.depth - 3 + u32::from(self.validity == Restriction::Unrestricted)
    }

    /// A file-system friendly name, `m2-n1-d3-u`, used for the node's folder.
    pub fn slug(&self) -> String {
        let b = self.bounds;
        format!("m{}-n{}-d{}-{}", b.idents, b.items, b.depth, self.validity)
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.bounds;
        write!(
            f,
            "F({},{},{},{})",
            b.idents, b.items, b.depth, self.validity
        )
    }
}

impl FromStr for Node {
    type Err = String;

    /// Accepts both `F(2,1,3,u)` and `m2-n1-d3-u`.
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("expected a node like F(2,1,3,u) or m2-n1-d3-u, got '{s}'");
        let parts: Vec<&str> =
            if let Some(inner) = s.strip_prefix("F(").and_then(|r| r.strip_suffix(')')) {
                inner.split(',').map(str::trim).collect()
            } else {
                s.split('-')
                    .enumerate()
                    .map(|(i, p)| match i {
                        0 => p.strip_prefix('m').unwrap_or("?"),
                        1 => p.strip_prefix('n').unwrap_or("?"),
                        2 => p.strip_prefix('d').unwrap_or("?"),
                        _ => p,
                    })
                    .collect()
            };
        let [m, n, d, v] = parts.as_slice() else {
            return Err(bad());
        };
        let bounds: Bounds = format!("{m},{n},{d}").parse().map_err(|_| bad())?;
        let mut letters = v.chars();
        let validity = match (letters.next(), letters.next()) {
            (Some(c), None) => Restriction::from_letter(c).ok_or_else(bad)?,
            _ => return Err(bad()),
        };
        Ok(Node::new(bounds, validity))
    }
}
