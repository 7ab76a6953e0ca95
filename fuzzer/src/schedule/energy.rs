//! How many children a parent gets each time the scheduler picks it.

use libafl::corpus::CorpusId;
use libafl_bolts::Error;

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
}
