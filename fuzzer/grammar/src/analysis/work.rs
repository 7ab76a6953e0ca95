//! A count of the analysis' elementary steps, so that tests can bound its work by the size of
//! the grammar.
//!
//! The analysis runs on every grammar a command loads, and generated or imported grammars can
//! have tens of thousands of rules: a fixpoint that sweeps the whole grammar once per rule on a
//! chain is quadratic (20,000 chained rules took 15 s). Time is measured by the benchmarks
//! (`benches/grammar_check.rs`); tests instead count steps, one per symbol visited, set union
//! or queue entry, which is the same on a loaded machine as on an idle one. Outside tests the
//! count compiles to nothing.

#[cfg(test)]
pub(crate) use meter::{metered, step};

#[cfg(not(test))]
#[inline(always)]
pub(crate) fn step(_: u64) {}

#[cfg(test)]
mod meter {
    use std::cell::Cell;

    thread_local! {
        static STEPS: Cell<u64> = const { Cell::new(0) };
        static BUDGET: Cell<u64> = const { Cell::new(u64::MAX) };
    }

    pub fn step(n: u64) {
        let spent = STEPS.with(|s| {
            let spent = s.get().saturating_add(n);
            s.set(spent);
            spent
        });
        let budget = BUDGET.with(Cell::get);
        // Stop at once rather than after a quadratic amount of work: the test fails quickly.
        assert!(
            spent <= budget,
            "the analysis took more than {budget} steps"
        );
    }

    /// Runs `f` with at most `budget` steps on this thread (panicking past it); returns its
    /// result and the steps it took.
    pub fn metered<T>(budget: u64, f: impl FnOnce() -> T) -> (T, u64) {
        STEPS.with(|s| s.set(0));
        BUDGET.with(|b| b.set(budget));
        let result = f();
        BUDGET.with(|b| b.set(u64::MAX));
        (result, STEPS.with(Cell::get))
    }
}
