//! The three Bonsai bounds.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::DepthTracker;
use crate::grammar::{Grammar, Terminal};
use crate::tree::{DerivationTree, NodeKind};

/// Bounds (m, n, d) of the Bonsai paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Bounds {
    /// m: how many distinct values each pool may use.
    pub idents: u32,
    /// n: how many items a `*`/`+` group may have in total (a group whose own minimum is
    /// larger keeps its minimum; see [`Bounds::item_limit`]).
    pub items: u32,
    /// d: how deep nesting may go, as the grammar's `%depth` measures it (see
    /// [`DepthTracker`]): by default, how many times one named rule may occur on a
    /// root-to-leaf path.
    pub depth: u32,
}

impl Bounds {
    pub fn new(idents: u32, items: u32, depth: u32) -> Result<Self, String> {
        if idents == 0 || items == 0 || depth == 0 {
            return Err(format!(
                "bounds must be at least 1 each, got {idents},{items},{depth}"
            ));
        }
        Ok(Self {
            idents,
            items,
            depth,
        })
    }

    /// Componentwise order: every input within `self` is also within `other`.
    pub fn within(&self, other: &Bounds) -> bool {
        self.idents <= other.idents && self.items <= other.items && self.depth <= other.depth
    }

    /// The smallest bounds under which the sampler can build `tree`: one more than the largest
    /// pool index, the most items of any repetition with more than its minimum (see
    /// [`Self::item_limit`]: n caps the whole count, never below the minimum), and the tree's
    /// nesting depth (each at least 1). A tree that comes from a parser rather than from the
    /// sampler needs these stored with its choices, or its replay may be out of bounds.
    pub fn required_by(grammar: &Grammar, tree: &DerivationTree) -> Bounds {
        let idents = tree
            .nodes()
            .iter()
            .filter_map(|node| match node.kind {
                NodeKind::Terminal { terminal, value } => {
                    matches!(grammar.terminal(terminal), Terminal::Pool(_)).then_some(value + 1)
                }
                _ => None,
            })
            .max()
            .unwrap_or(1);
        let items = tree
            .repetitions(grammar)
            .filter(|&(count, min, _)| count > min)
            .map(|(count, _, _)| count)
            .max()
            .unwrap_or(1);
        Bounds {
            idents: idents.max(1),
            items: items.max(1),
            depth: DepthTracker::depth_of(grammar, tree).max(1),
        }
    }

    /// The largest item count allowed for `body{min,max}`: n, but never below the group's own
    /// minimum (a fixed count is not a choice) nor above its maximum.
    pub fn item_limit(&self, min: u32, max: Option<u32>) -> u32 {
        self.items.max(min).min(max.unwrap_or(u32::MAX))
    }
}

impl fmt::Display for Bounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.idents, self.items, self.depth)
    }
}

impl FromStr for Bounds {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        let [m, n, d] = parts.as_slice() else {
            return Err(format!(
                "expected bounds as M,N,D (for example 3,3,3), got '{s}'"
            ));
        };
        let number = |x: &str| {
            x.parse::<u32>()
                .map_err(|_| format!("expected bounds as M,N,D of positive integers, got '{s}'"))
        };
        Bounds::new(number(m)?, number(n)?, number(d)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_orders() {
        let b: Bounds = "1, 2,3".parse().unwrap();
        assert_eq!(b.to_string(), "1,2,3");
        assert!(b.within(&"1,2,3".parse().unwrap()));
        assert!(b.within(&"2,2,3".parse().unwrap()));
        assert!(!b.within(&"2,1,3".parse().unwrap()));
        assert!("0,1,1".parse::<Bounds>().is_err());
        assert!("1,1".parse::<Bounds>().is_err());
        assert!("a,1,1".parse::<Bounds>().is_err());
    }

    #[test]
    fn item_limit_respects_the_group_own_range() {
        let b = Bounds::new(1, 3, 1).unwrap();
        assert_eq!(b.item_limit(0, None), 3);
        assert_eq!(b.item_limit(1, None), 3);
        assert_eq!(b.item_limit(5, Some(5)), 5);
        assert_eq!(b.item_limit(0, Some(2)), 2);
        assert_eq!(b.item_limit(2, Some(9)), 3);
    }
}
