//! The three Bonsai bounds. A leaf module: choice sequences, trees and the sampler all carry
//! bounds, so they live below all three (what a tree requires is computed in
//! `sampler::required`, where the depth measure is).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The largest bound a command line may ask for. A fresh sample's first repetition draws up to
/// n items before the node budget closes the rest, so an input costs time and memory in
/// proportion to n: `--bounds 4000000000,...` aborted on a 3 GB allocation and n = 10^6 makes
/// megabyte inputs. The Bonsai paper's bounds go to 3; ten thousand leaves room for any real
/// use while keeping one input within a few megabytes. Bounds stored with a parsed seed
/// (`Bounds::required_by`) are not capped: they describe an input that exists already.
pub const MAX_BOUND: u32 = 10_000;

/// The bounds `bonsai fuzz` runs under when none are given: bounds for finding bugs, not for
/// a concise corpus. The commonest bugs of parsers and compilers live at depth (a
/// recursive-descent parser without a nesting limit overflows its stack at a thousand or more
/// nested brackets; a constant folder goes quadratic on long chains), so depth is not bounded
/// at all in effect: a million levels is more than any text within `--max-len` can nest, and
/// the sampler moves to fresh stack segments as it descends. Lists may be long (n = 1000:
/// counts beyond 8 are still drawn rarely, so lists stay short unless a long one pays). Pools
/// keep three values each, as the lattice's top node does: enough for a name to be declared
/// and used twice, few enough that the names meet. The lattice keeps its own small bounds.
pub const BUG_FINDING: Bounds = Bounds {
    idents: 3,
    items: 1000,
    depth: 1_000_000,
};

/// Bounds (m, n, d) of the Bonsai paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Bounds {
    /// m: how many distinct values each pool may use.
    pub idents: u32,
    /// n: how many items a `*`/`+` group may have in total (a group whose own minimum is
    /// larger keeps its minimum; see [`Bounds::item_limit`]).
    pub items: u32,
    /// d: how deep nesting may go, as the grammar's `%depth` measures it (see
    /// `sampler::DepthTracker`): by default, how many times one named rule may occur on a
    /// root-to-leaf path.
    pub depth: u32,
}

/// Why a text or three numbers are not bounds. Its message is written to follow clap's
/// "invalid value ... for '--bounds <M,N,D>': ".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoundsError {
    /// Not three comma-separated non-negative integers.
    Malformed(String),
    /// A bound of 0: nothing could be generated.
    Zero {
        /// The m given.
        idents: u32,
        /// The n given.
        items: u32,
        /// The d given.
        depth: u32,
    },
    /// A bound above [`MAX_BOUND`] on a command line.
    TooLarge(Bounds),
    /// A lattice up to these bounds would have more than `max` nodes.
    LatticeTooLarge {
        /// The bounds asked for, the lattice's top node.
        max_bounds: Bounds,
        /// How many nodes the lattice below `max_bounds` would have (saturating).
        nodes: u64,
        /// The most nodes a lattice may have.
        max: u64,
    },
}

impl fmt::Display for BoundsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoundsError::Malformed(text) => write!(
                f,
                "expected bounds as M,N,D of positive integers (for example 3,3,3), got '{text}'"
            ),
            BoundsError::Zero {
                idents,
                items,
                depth,
            } => write!(
                f,
                "bounds must be at least 1 each, got {idents},{items},{depth}"
            ),
            BoundsError::TooLarge(bounds) => write!(
                f,
                "each bound may be at most {MAX_BOUND} (the Bonsai paper uses 3,3,3), got {bounds}"
            ),
            BoundsError::LatticeTooLarge {
                max_bounds,
                nodes,
                max,
            } => write!(
                f,
                "the lattice up to {max_bounds} would have {nodes} nodes, each a fuzzing run of \
                 its own; at most {max} are allowed (3,3,3 has 54, 10,10,10 has 2000)"
            ),
        }
    }
}

impl std::error::Error for BoundsError {}

impl Bounds {
    /// Bounds from the three numbers, refusing a zero (nothing could be generated) but not a
    /// value above [`MAX_BOUND`]: that cap applies to command lines only.
    pub fn new(idents: u32, items: u32, depth: u32) -> Result<Self, BoundsError> {
        if idents == 0 || items == 0 || depth == 0 {
            return Err(BoundsError::Zero {
                idents,
                items,
                depth,
            });
        }
        Ok(Self {
            idents,
            items,
            depth,
        })
    }

    /// Bounds from a command line: as [`FromStr`], and each at most [`MAX_BOUND`].
    pub fn parse_arg(s: &str) -> Result<Self, BoundsError> {
        let bounds: Bounds = s.parse()?;
        let largest = bounds.idents.max(bounds.items).max(bounds.depth);
        if largest > MAX_BOUND {
            return Err(BoundsError::TooLarge(bounds));
        }
        Ok(bounds)
    }

    /// Componentwise order: every input within `self` is also within `other`.
    pub fn within(&self, other: &Bounds) -> bool {
        self.idents <= other.idents && self.items <= other.items && self.depth <= other.depth
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
    type Err = BoundsError;

    fn from_str(s: &str) -> Result<Self, BoundsError> {
        let malformed = || BoundsError::Malformed(s.to_string());
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        let [m, n, d] = parts.as_slice() else {
            return Err(malformed());
        };
        let number = |x: &str| x.parse::<u32>().map_err(|_| malformed());
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
    fn command_line_bounds_are_capped() {
        assert_eq!(
            Bounds::parse_arg("3,10000,2").unwrap(),
            Bounds::new(3, 10_000, 2).unwrap()
        );
        let err = Bounds::parse_arg("1000000,1,1").unwrap_err();
        assert_eq!(
            err,
            BoundsError::TooLarge(Bounds::new(1_000_000, 1, 1).unwrap())
        );
        assert!(err.to_string().contains("at most 10000"), "{err}");
        assert!(Bounds::parse_arg("1,1,4000000000").is_err());
        assert!(Bounds::parse_arg("0,1,1").is_err());
        // Stored bounds are read without the cap.
        assert!("1000000,1,1".parse::<Bounds>().is_ok());
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
