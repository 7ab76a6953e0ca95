//! The criterion "the candidate still crashes the target the same way".

use super::{Candidate, Criterion, CriterionRefusal};
use crate::feedback::Fault;
use crate::replay::ForkedRunner;

/// Holds when the target, run on the candidate, faults as the same bug (`Fault::same_bug`):
/// the same `panic!` location for a panic, the same innermost frame of the target for a
/// signal or a hang, one recursion for a stack overflow, as `bonsai fuzz` tells faults apart.
/// Any other outcome, including
/// a different bug reached on the way, fails: a reproducer that drifts to an easier bug is
/// the classic failure of crash reduction.
pub struct SameCrash {
    runner: ForkedRunner,
    original: Fault,
}

impl SameCrash {
    /// Runs `original` and keeps its fault. Refused when it does not fault at all.
    pub fn of_input(mut runner: ForkedRunner, original: &str) -> Result<Self, CriterionRefusal> {
        let outcome = runner.run(original.as_bytes());
        let Some(fault) = outcome.fault else {
            return Err(CriterionRefusal::RunsNormally);
        };
        Ok(Self {
            runner,
            original: fault,
        })
    }

    /// The fault every candidate must reproduce.
    pub fn fault(&self) -> &Fault {
        &self.original
    }

    /// The runner behind the criterion; runs made through it bypass the judge, so they are neither
    /// cached nor counted as tests.
    pub fn runner_mut(&mut self) -> &mut ForkedRunner {
        &mut self.runner
    }
}

impl Criterion for SameCrash {
    fn holds(&mut self, candidate: &Candidate<'_>) -> bool {
        let outcome = self.runner.run(candidate.text.as_bytes());
        outcome.fault.is_some_and(|f| self.original.same_bug(&f))
    }
}
