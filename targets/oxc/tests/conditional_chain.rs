//! Found by Nautilus in issue 11's and issue 30's comparisons (docs/results/bugs.md,
//! signature 5494fbd7): oxc 0.146.0's minifier evaluates a chain of conditional expressions
//! in time exponential in its length when a test it can fold (`1`, `typeof []`) stands above
//! tests it cannot (`delete this.c`) whose branches are functions. Cut by hand from
//! Nautilus's hang: 25 levels run in well under a second (release), 30 do not end in two.
//!
//! The program runs in a child process, so that the test can give up on it: the child runs
//! only the target, and the parent waits for it with a deadline.

use std::process::{Child, Command};
use std::time::{Duration, Instant};

const CHILD: &str = "BONSAI_OXC_CHAIN_CHILD";

/// `export default 1 ? async() => {}: delete this.c ? async() => {}: ... c ++;` with `levels`
/// conditionals under the folded one.
fn chain(levels: usize) -> String {
    format!(
        "export default 1 ? async() => {{}}: {}c ++;\n",
        "delete this.c ? async() => {}: ".repeat(levels)
    )
}

fn spawn(levels: usize) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "chain_child", "--nocapture"])
        .env(CHILD, levels.to_string())
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
fn chain_child() {
    let Some(levels) = std::env::var_os(CHILD) else {
        return;
    };
    let levels: usize = levels.to_str().unwrap().parse().unwrap();
    let _ =
        bonsai::target::Target::run(&mut bonsai_target_oxc::Oxc::new(), chain(levels).as_bytes());
}

/// The short chain shows the program itself compiles quickly (a generous deadline: a debug
/// build on a loaded machine); the long one, twice as deep, is still running after the same
/// deadline. At 60 levels the work is about 2^30 times the 30-level work, so no machine ends
/// it, and the short chain's deadline leaves no room for a linear evaluator to time out.
#[test]
fn a_long_chain_of_conditionals_under_a_folded_test_does_not_end() {
    let deadline = Duration::from_secs(8);
    assert!(
        ends_within(spawn(12), deadline),
        "12 levels did not compile within {deadline:?}"
    );
    assert!(
        !ends_within(spawn(60), deadline),
        "60 levels compiled within {deadline:?}: is oxc's constant evaluation fixed?"
    );
}
