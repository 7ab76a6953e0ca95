//! The criterion "the candidate still covers these edges".

use super::{Candidate, Criterion, CriterionRefusal};
pub use crate::observer::covers;
use crate::replay::{Execution, ForkedRunner};

/// Holds when the target, run on the candidate, ends normally (no panic, signal or timeout),
/// hits every required edge and, when asked, accepts the candidate as valid.
///
/// Which edges are required is the caller's choice, and two choices matter:
/// - [`SameCoverage::of_input`]: every edge the original covers. What `bonsai reduce
///   --criterion coverage` keeps for one input on its own.
/// - [`SameCoverage::requiring`]: the edges an input contributes to a corpus. The paper's
///   fuzz-then-reduce baseline kept "the same criterion as was used to save the original input
///   during CBGF", that is the coverage it added (and, for an input saved because it was the
///   first *valid* one to cover some edges, its validity); `reduce::queue_reduction` computes those.
///
/// Edges are compared as sets, without hit counts: a reduced input that runs a loop fewer
/// times still exercises the same code.
pub struct SameCoverage {
    runner: ForkedRunner,
    required: Vec<u32>,
    valid: bool,
}

impl SameCoverage {
    /// Requires every edge `original` covers. The original is run twice and only the edges
    /// both runs hit are required, so that an edge the target hits only sometimes (a hash
    /// map's seed, a cache) cannot make every candidate fail.
    pub fn of_input(mut runner: ForkedRunner, original: &str) -> Result<Self, CriterionRefusal> {
        let first = runner.run(original.as_bytes());
        if let Some(fault) = &first.fault {
            return Err(CriterionRefusal::Faults {
                kind: fault.kind.to_string(),
                message: fault.message.clone(),
            });
        }
        let second = runner.run(original.as_bytes());
        let required = intersect(&first.edges, &second.edges);
        Ok(Self {
            runner,
            required,
            valid: false,
        })
    }

    /// Requires `edges` (in any order), and a valid verdict when `valid`.
    pub fn requiring(runner: ForkedRunner, mut edges: Vec<u32>, valid: bool) -> Self {
        edges.sort_unstable();
        edges.dedup();
        Self {
            runner,
            required: edges,
            valid,
        }
    }

    /// The edges a candidate must cover, in index order.
    pub fn required(&self) -> &[u32] {
        &self.required
    }

    /// Whether `outcome` keeps the property.
    pub fn accepts(&self, outcome: &Execution) -> bool {
        outcome.outcome.ran_normally()
            && (!self.valid || outcome.is_valid())
            && covers(&outcome.edges, &self.required)
    }

    /// The runner behind the criterion; runs made through it bypass the judge, so they are neither
    /// cached nor counted as tests.
    pub fn runner_mut(&mut self) -> &mut ForkedRunner {
        &mut self.runner
    }

    /// The runner back, so that its forked server can serve the next input.
    pub fn into_runner(self) -> ForkedRunner {
        self.runner
    }
}

impl Criterion for SameCoverage {
    fn holds(&mut self, candidate: &Candidate<'_>) -> bool {
        let outcome = self.runner.run(candidate.text.as_bytes());
        self.accepts(&outcome)
    }
}

fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_is_a_sorted_superset_test() {
        assert!(covers(&[1, 3, 5, 9], &[3, 9]));
        assert!(covers(&[1, 3], &[]));
        assert!(!covers(&[1, 3, 5], &[2]));
        assert!(!covers(&[1, 3, 5], &[5, 7]));
        assert_eq!(intersect(&[1, 2, 4, 8], &[2, 3, 4, 9]), vec![2, 4]);
    }
}
