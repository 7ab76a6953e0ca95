//! How many children a parent gets each time the scheduler picks it.

use std::fmt;
use std::str::FromStr;

use libafl::corpus::CorpusId;
use libafl_bolts::Error;
use serde::{Deserialize, Serialize};

/// A scheduler's second half: after choosing a parent, how hard to work on it. LibAFL's
/// `TestcaseScore` sees only the testcase, but favour in Zest's sense is a property of the
/// parent's place in the corpus (which edges it alone owns), so the stage asks the scheduler.
pub trait Energy<S> {
    fn energy(&mut self, state: &mut S, id: CorpusId) -> Result<u64, Error>;
}

/// Zest's children per parent.
pub const BASE_CHILDREN: f64 = 50.0;
/// Zest's multiplier for favored parents (sole owners of some edge).
pub const FAVORED_FACTOR: f64 = 20.0;
/// Bounds of the size factor: an input half the mean size gets twice the children.
pub const SIZE_FACTOR_RANGE: (f64, f64) = (0.25, 4.0);

/// Zest's energy, plus a preference for small inputs:
/// `50 × (edges / most edges of any entry) × (20 if favored) × clamp(mean size / size)`.
/// Small inputs get more children because the Bonsai goal is a corpus of small inputs, and
/// because mutating a small parent costs less and changes proportionally more of it.
pub fn zest_energy(edges: u32, best_edges: u32, favored: bool, size: usize, mean_size: f64) -> u64 {
    let coverage = (f64::from(edges) / f64::from(best_edges.max(1))).clamp(0.02, 1.0);
    let favor = if favored { FAVORED_FACTOR } else { 1.0 };
    let (low, high) = SIZE_FACTOR_RANGE;
    let smallness = (mean_size.max(1.0) / size.max(1) as f64).clamp(low, high);
    (BASE_CHILDREN * coverage * favor * smallness)
        .round()
        .max(1.0) as u64
}

/// How many children the zest scheduler gives a parent per pick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChildrenRule {
    /// [`zest_energy`] as it is: a favored small parent gets up to 4,000 children, so one pass
    /// over a queue of thousands of entries can outlast a run.
    #[default]
    Zest,
    /// Zest's energies scaled so that a pass costs this many children per entry on average:
    /// Zest's weights, a pass of a fixed length.
    Spread(u64),
    /// This many children for every parent, as Nautilus's queue gives (1 to 128, 64 on
    /// average): an ablation of Zest's weights.
    Flat(u64),
}

impl FromStr for ChildrenRule {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let count = |n: &str| match n.parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("'{n}' is not a positive number of children")),
        };
        match s.split_once(':') {
            None if s == "zest" => Ok(Self::Zest),
            Some(("spread", n)) => Ok(Self::Spread(count(n)?)),
            Some(("flat", n)) => Ok(Self::Flat(count(n)?)),
            _ => Err(format!(
                "unknown children rule '{s}' (expected zest, spread:N or flat:N)"
            )),
        }
    }
}

impl fmt::Display for ChildrenRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Zest => f.write_str("zest"),
            Self::Spread(n) => write!(f, "spread:{n}"),
            Self::Flat(n) => write!(f, "flat:{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn favored_small_and_broad_parents_get_more_children() {
        let base = zest_energy(50, 100, false, 10, 10.0);
        assert_eq!(base, 25);
        assert_eq!(zest_energy(100, 100, false, 10, 10.0), 50);
        assert_eq!(zest_energy(50, 100, true, 10, 10.0), 500);
        assert_eq!(zest_energy(50, 100, false, 5, 10.0), 50);
        assert_eq!(
            zest_energy(50, 100, false, 1000, 10.0),
            6,
            "size factor is clamped"
        );
        assert!(zest_energy(0, 100, false, 10, 10.0) >= 1);
    }

    #[test]
    fn children_rules_read_back_what_they_print() {
        for rule in [
            ChildrenRule::Zest,
            ChildrenRule::Spread(16),
            ChildrenRule::Flat(64),
        ] {
            assert_eq!(rule.to_string().parse::<ChildrenRule>(), Ok(rule));
        }
        assert!(
            "flat:0"
                .parse::<ChildrenRule>()
                .unwrap_err()
                .contains("'0'")
        );
        assert!(
            "spread"
                .parse::<ChildrenRule>()
                .unwrap_err()
                .contains("spread:N")
        );
    }
}
