//! Found by Nautilus in issue 11's and issue 30's comparisons (docs/results/bugs.md,
//! signature 5494fbd7): oxc 0.146.0's minifier evaluates a chain of conditional expressions
//! in time exponential in its length when a test it can fold (`1`, `typeof []`) stands above
//! tests it cannot (`delete this.c`) whose branches are functions. Cut by hand from
//! Nautilus's hang: 25 levels run in well under a second (release), 30 do not end in two.
//!
//! Each program runs in a forked child of `bonsai replay`'s runner, which stops it at the
//! timeout, so the test can give up on the one that does not end.

use std::time::Duration;

use bonsai::replay::{ForkedRunner, Outcome};
use bonsai::target::LinkedTarget;
use bonsai_target_oxc::Oxc;

/// `export default 1 ? async() => {}: delete this.c ? async() => {}: ... c ++;` with `levels`
/// conditionals under the folded one.
fn chain(levels: usize) -> String {
    format!(
        "export default 1 ? async() => {{}}: {}c ++;\n",
        "delete this.c ? async() => {}: ".repeat(levels)
    )
}

/// The short chain shows the program itself compiles quickly (a generous timeout: a debug
/// build on a loaded machine); the long one, twice as deep, is still running after the same
/// timeout. At 60 levels the work is about 2^30 times the 30-level work, so no machine ends
/// it, and the short chain's timeout leaves no room for a linear evaluator to time out.
#[test]
fn a_long_chain_of_conditionals_under_a_folded_test_does_not_end() {
    let target = LinkedTarget {
        name: "oxc",
        make: || Box::new(Oxc::new()),
    };
    let mut runner = ForkedRunner::new(target, Duration::from_secs(8)).unwrap();
    let short = runner.run(chain(12).as_bytes());
    assert_ne!(
        short.outcome,
        Outcome::Timeout,
        "12 levels did not compile within the timeout"
    );
    let long = runner.run(chain(60).as_bytes());
    assert_eq!(
        long.outcome,
        Outcome::Timeout,
        "60 levels ended ({:?}): is oxc's constant evaluation fixed?",
        long.outcome
    );
}
