//! Found by the oracle's 10-minute run of issue 32 (a 33-byte hang, reduced by hand): the type
//! checker of starlark 0.14.2 does not end on a binding that feeds itself through `zip`,
//! `a = zip(a)` inside a `def`. Its solver (typing/bindings.rs, `solve_bindings`) widens the
//! type of `a` by `list[tuple[...]]` of itself on every round and never reaches a fixed point;
//! `a = zip(b)` with `b` a parameter checks at once. A release build is still running after 20
//! seconds.
//!
//! The program runs in a child process, so that the test can give up on it: the child runs
//! only the target, and the parent waits for it with a deadline.

use std::process::{Child, Command};
use std::time::{Duration, Instant};

const CHILD: &str = "BONSAI_STARLARK_ZIP_CHILD";

fn program(argument: &str) -> String {
    format!("def g(b):\n    a = zip({argument})\n")
}

fn spawn(argument: &str) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "zip_child", "--nocapture"])
        .env(CHILD, argument)
        .spawn()
        .unwrap()
}

/// Whether the child ended before `deadline`; kills it if not.
fn ends_within(mut child: Child, deadline: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < deadline {
        if child.try_wait().unwrap().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    false
}

/// Not a test of its own: the body of the child process (does nothing when run directly).
#[test]
fn zip_child() {
    let Some(argument) = std::env::var_os(CHILD) else {
        return;
    };
    let source = program(argument.to_str().unwrap());
    let _ = bonsai::target::Target::run(
        &mut bonsai_target_starlark::Starlark::new(),
        source.as_bytes(),
    );
}

/// The same program with the parameter zipped checks within the deadline (a generous one: a
/// debug build on a loaded machine), so the deadline is not what the self-reference misses.
#[test]
fn a_binding_zipped_with_itself_never_finishes_type_checking() {
    let deadline = Duration::from_secs(8);
    assert!(
        ends_within(spawn("b"), deadline),
        "`a = zip(b)` did not check within {deadline:?}"
    );
    assert!(
        !ends_within(spawn("a"), deadline),
        "`a = zip(a)` checked within {deadline:?}: is starlark's solver fixed?"
    );
}
