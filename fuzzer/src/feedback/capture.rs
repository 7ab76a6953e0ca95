//! Running the target so that a fault can be described afterwards, the same way in every
//! in-process fuzzer (Bonsai's loop and the Nautilus baseline): a panic's record, the stack
//! the target runs on, stack samples for hangs.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use super::{describe::record_target_stack, panic_record, stack_samples};

/// Sets up the capture in the process and on the thread that will run the target: the panic
/// hook (over the one LibAFL's executor installed, so call it after building the executor),
/// the target's stack, and the sampling timer, one tick per tenth of `timeout`.
pub fn prepare_capture(timeout: Duration) {
    panic_record::install();
    record_target_stack();
    stack_samples::start(timeout);
}

/// Runs the target once: a panic is caught (and recorded by the hook) instead of unwinding
/// into the fuzzer, and the stack is sampled while it runs.
pub fn run_caught<R>(run: impl FnOnce() -> R) -> std::thread::Result<R> {
    panic_record::set_in_target(true);
    stack_samples::begin();
    let result = catch_unwind(AssertUnwindSafe(run));
    stack_samples::end();
    panic_record::set_in_target(false);
    result
}
