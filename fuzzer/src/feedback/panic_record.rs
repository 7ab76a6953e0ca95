//! Panics inside the target, caught without restarting the process.
//!
//! LibAFL's in-process executor treats a panic like a signal: it saves the state and exits, and
//! the restarting manager starts a new process. For Rust compilers, where a bug usually *is* a
//! panic, that would cost a fork and a state reload per crashing input, duplicates included.
//! Instead the harness runs the target under `catch_unwind`, and this hook (installed over
//! LibAFL's after the executor is built) records the panic's message, location and stack while
//! the stack still exists. Aborts, stack overflows and hangs still go through LibAFL's signal
//! handlers and the restart.

use std::cell::{Cell, RefCell};
use std::panic::PanicHookInfo;

use super::signature::stack_addresses;

/// A panic seen inside the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PanicRecord {
    /// The panic's payload when it is a string; other payloads get a placeholder.
    pub message: String,
    /// `file:line:column` of the `panic!`.
    pub location: Option<String>,
    /// Return addresses, symbolized later by the fault feedback (outside the target's time
    /// budget, and only once per distinct address).
    pub addresses: Vec<usize>,
}

thread_local! {
    static IN_TARGET: Cell<bool> = const { Cell::new(false) };
    static LAST: RefCell<Option<PanicRecord>> = const { RefCell::new(None) };
}

/// Marks the span in which a panic belongs to the target (set by the harness around
/// `Target::run`).
pub fn set_in_target(inside: bool) {
    IN_TARGET.set(inside);
}

/// The panic recorded since the last call, if any.
pub fn take() -> Option<PanicRecord> {
    LAST.with(|last| last.borrow_mut().take())
}

/// Installs the recording hook on top of whatever hook is in place (LibAFL's, normally).
/// Panics outside the target are passed on unchanged.
pub fn install() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
        if IN_TARGET.get() {
            let record = PanicRecord {
                message: crate::target::panic_message(info.payload()),
                location: info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column())),
                addresses: stack_addresses(),
            };
            LAST.with(|last| *last.borrow_mut() = Some(record));
        } else {
            previous(info);
        }
    }));
}

/// Whether a panic was recorded and not yet taken.
pub fn pending() -> bool {
    LAST.with(|last| last.borrow().is_some())
}
