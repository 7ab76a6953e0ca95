//! Picking the inputs a regression corpus needs.
//!
//! A fuzzer's queue keeps every input that was new when it was found, so later inputs often
//! cover everything earlier ones did and more: the queue of a long campaign holds thousands of
//! inputs of which a few hundred carry all its coverage. A user who runs the corpus as
//! regression tests, or reads it, wants those few hundred.

use std::collections::HashMap;

use crate::replay::{Execution, Outcome};

/// The indices (ascending) of a subset of `runs` that covers every edge any of them covers:
/// for each edge the smallest valid input that covers it, or the smallest input when no valid
/// one does (as afl-cmin does, with validity first, because a valid program tests more than
/// the parser and is what a reader expects). Inputs that fault are always kept: each is a
/// reproducer. Ties go to the earlier input, so the choice is deterministic.
pub fn distill(runs: &[Execution], sizes: &[usize]) -> Vec<usize> {
    let rank = |i: usize| (runs[i].outcome != Outcome::Valid, sizes[i], i);
    let mut best: HashMap<u32, usize> = HashMap::new();
    for (i, run) in runs.iter().enumerate() {
        for &edge in &run.edges {
            best.entry(edge)
                .and_modify(|b| {
                    if rank(i) < rank(*b) {
                        *b = i;
                    }
                })
                .or_insert(i);
        }
    }
    let mut keep = vec![false; runs.len()];
    for &i in best.values() {
        keep[i] = true;
    }
    for (i, run) in runs.iter().enumerate() {
        if run.outcome.is_fault() {
            keep[i] = true;
        }
    }
    (0..runs.len()).filter(|&i| keep[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(outcome: Outcome, edges: &[u32]) -> Execution {
        Execution {
            outcome,
            message: String::new(),
            edges: edges.to_vec(),
            output: None,
            fault: None,
        }
    }

    #[test]
    fn keeps_every_edge_with_the_smallest_valid_inputs() {
        let runs = vec![
            run(Outcome::Valid, &[1, 2, 3]), // 0: large, covers all
            run(Outcome::Valid, &[1, 2]),    // 1: small
            run(Outcome::Invalid, &[3]),     // 2: smallest, but invalid
            run(Outcome::Valid, &[3]),       // 3: small and valid
            run(Outcome::Invalid, &[4]),     // 4: the only input with edge 4
            run(Outcome::Valid, &[1]),       // 5: redundant
        ];
        let sizes = [100, 10, 1, 20, 50, 10];
        let kept = distill(&runs, &sizes);
        assert_eq!(kept, vec![1, 3, 4]);
        let mut covered: Vec<u32> = kept.iter().flat_map(|&i| runs[i].edges.clone()).collect();
        covered.sort_unstable();
        covered.dedup();
        assert_eq!(covered, vec![1, 2, 3, 4]);
    }

    #[test]
    fn faults_are_kept_even_without_edges() {
        let runs = vec![run(Outcome::Valid, &[1]), run(Outcome::Panic, &[])];
        assert_eq!(distill(&runs, &[5, 5]), vec![0, 1]);
    }
}
