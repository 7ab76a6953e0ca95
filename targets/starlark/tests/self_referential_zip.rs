//! Found by the oracle's 10-minute run of issue 32 (a 33-byte hang, reduced by hand): the type
//! checker of starlark 0.14.2 does not end on a binding that feeds itself through `zip`,
//! `a = zip(a)` inside a `def`. Its solver (typing/bindings.rs, `solve_bindings`) widens the
//! type of `a` by `list[tuple[...]]` of itself on every round and never reaches a fixed point;
//! `a = zip(b)` with `b` a parameter checks at once. A release build is still running after 20
//! seconds.
//!
//! Each program runs in a forked child of `bonsai replay`'s runner, which stops it at the
//! timeout, so the test can give up on the one that does not end.

use std::time::Duration;

use bonsai::replay::{ForkedRunner, Outcome};
use bonsai::target::LinkedTarget;
use bonsai_target_starlark::Starlark;

fn program(argument: &str) -> String {
    format!("def g(b):\n    a = zip({argument})\n")
}

/// The same program with the parameter zipped checks within the timeout (a generous one: a
/// debug build on a loaded machine), so the timeout is not what the self-reference misses.
#[test]
fn a_binding_zipped_with_itself_never_finishes_type_checking() {
    let target = LinkedTarget {
        name: "starlark",
        make: || Box::new(Starlark::new()),
    };
    let mut runner = ForkedRunner::new(target, Duration::from_secs(8)).unwrap();
    let zipped_parameter = runner.run(program("b").as_bytes());
    assert_ne!(
        zipped_parameter.outcome,
        Outcome::Timeout,
        "`a = zip(b)` did not check within the timeout"
    );
    let zipped_itself = runner.run(program("a").as_bytes());
    assert_eq!(
        zipped_itself.outcome,
        Outcome::Timeout,
        "`a = zip(a)` ended ({:?}): is starlark's solver fixed?",
        zipped_itself.outcome
    );
}
