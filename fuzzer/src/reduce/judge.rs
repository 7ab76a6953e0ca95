//! Asking a criterion, once per distinct candidate, within a budget.

use std::time::{Duration, Instant};

use ahash::AHashMap;

use super::{Candidate, Criterion};

/// Wraps a [`Criterion`]: answers repeated questions from a cache, counts the real ones, and
/// stops asking once a budget is spent.
///
/// Delta debugging proposes the same configuration again and again (after a reduction, the
/// next round re-splits what is left), and different edits often render to the same text. With
/// a target behind the criterion every real question is a run of the target, so the cache is
/// what keeps reduction cheap, and [`Judge::tests`] is the cost that reports quote.
pub struct Judge<C> {
    criterion: C,
    by_text: AHashMap<Box<str>, bool>,
    by_derivation: AHashMap<(Box<str>, Box<[u32]>), bool>,
    tests: u64,
    cached: u64,
    time_in_criterion: Duration,
    max_tests: Option<u64>,
    deadline: Option<Instant>,
    exhausted: bool,
}

impl<C: Criterion> Judge<C> {
    /// A judge with no budget: it asks the criterion until the reduction is done. Add one with
    /// [`Judge::with_max_tests`] or [`Judge::with_deadline`].
    pub fn new(criterion: C) -> Self {
        Self {
            criterion,
            by_text: AHashMap::new(),
            by_derivation: AHashMap::new(),
            tests: 0,
            cached: 0,
            time_in_criterion: Duration::ZERO,
            max_tests: None,
            deadline: None,
            exhausted: false,
        }
    }

    /// Ask the criterion at most `tests` times; later questions are answered "no", so a
    /// reducer ends with the smallest input found so far.
    pub fn with_max_tests(mut self, tests: u64) -> Self {
        self.max_tests = Some(tests);
        self
    }

    /// Stop asking after `deadline`, as [`Self::with_max_tests`].
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Whether `candidate` has the property. Never asks the criterion twice about the same
    /// text (or, for a criterion that reads derivations, the same text and choices).
    pub fn holds(&mut self, candidate: &Candidate<'_>) -> bool {
        let choices = candidate
            .derivation
            .filter(|_| self.criterion.reads_derivation())
            .map(|d| d.choices.as_slice());
        let known = match choices {
            None => self.by_text.get(candidate.text).copied(),
            Some(choices) => self
                .by_derivation
                .get(&(candidate.text.into(), choices.into()))
                .copied(),
        };
        if let Some(verdict) = known {
            self.cached += 1;
            return verdict;
        }
        if self.budget_spent() {
            self.exhausted = true;
            return false;
        }
        let started = Instant::now();
        let verdict = self.criterion.holds(candidate);
        self.time_in_criterion += started.elapsed();
        self.tests += 1;
        match choices {
            None => {
                self.by_text.insert(candidate.text.into(), verdict);
            }
            Some(choices) => {
                self.by_derivation
                    .insert((candidate.text.into(), choices.into()), verdict);
            }
        }
        verdict
    }

    fn budget_spent(&self) -> bool {
        self.max_tests.is_some_and(|max| self.tests >= max)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Questions the criterion actually answered: the runs of the target.
    pub fn tests(&self) -> u64 {
        self.tests
    }

    /// Questions answered from the cache.
    pub fn cached(&self) -> u64 {
        self.cached
    }

    /// Time spent inside the criterion, to tell the reducer's own cost from the target's.
    pub fn time_in_criterion(&self) -> Duration {
        self.time_in_criterion
    }

    /// Whether a question went unasked because the budget was spent: the result is then the
    /// best found so far, without the minimality the algorithms otherwise promise.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// The wrapped criterion, for reading what it holds; questions should go through
    /// [`Judge::holds`] so that they are cached and counted.
    pub fn criterion(&self) -> &C {
        &self.criterion
    }

    /// The wrapped criterion, mutably; asking it directly bypasses the cache and the budget.
    pub fn criterion_mut(&mut self) -> &mut C {
        &mut self.criterion
    }

    /// The criterion back, to reuse what it holds (a target's runner) for the next input.
    pub fn into_criterion(self) -> C {
        self.criterion
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::OnDerivation;
    use crate::sampler::Sample;

    #[test]
    fn asks_once_per_text_and_respects_the_budget() {
        let mut asked = Vec::new();
        let mut judge = Judge::new(|c: &Candidate<'_>| {
            asked.push(c.text.to_string());
            c.text.contains('x')
        })
        .with_max_tests(2);
        assert!(judge.holds(&Candidate::text("ax")));
        assert!(judge.holds(&Candidate::text("ax")));
        assert!(!judge.holds(&Candidate::text("b")));
        assert_eq!((judge.tests(), judge.cached()), (2, 1));
        assert!(!judge.exhausted());
        // Over budget: "no" without asking, but known answers still count.
        assert!(!judge.holds(&Candidate::text("xx")));
        assert!(judge.exhausted());
        assert!(judge.holds(&Candidate::text("ax")));
        drop(judge);
        assert_eq!(asked, ["ax", "b"]);
    }

    #[test]
    fn a_criterion_on_derivations_is_cached_per_choice_sequence() {
        let mut judge = Judge::new(OnDerivation(|c: &Candidate<'_>| {
            c.derivation.is_some_and(|d| d.choices.as_slice() == [1])
        }));
        let one = Sample {
            choices: vec![1].into(),
            ..Sample::default()
        };
        let two = Sample {
            choices: vec![2].into(),
            ..Sample::default()
        };
        assert!(judge.holds(&Candidate::derived("same", &one)));
        assert!(!judge.holds(&Candidate::derived("same", &two)));
        assert_eq!(judge.tests(), 2);
    }
}
