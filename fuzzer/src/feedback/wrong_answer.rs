//! The oracle's violation of the last execution, between the harness that saw it and the
//! fault feedback that saves it: LibAFL hands a feedback only an exit kind, so the harness
//! returns `ExitKind::Crash` and leaves the violation here, as the panic hook leaves a panic
//! (`panic_record`).

use std::cell::RefCell;

use crate::fault::FaultKind;
use crate::target::Violation;

thread_local! {
    static LAST: RefCell<Option<Violation>> = const { RefCell::new(None) };
}

/// Records the violation of the execution that is ending.
pub fn record(violation: Violation) {
    LAST.with(|last| *last.borrow_mut() = Some(violation));
}

/// The kind of the violation recorded and not yet taken.
pub fn pending() -> Option<FaultKind> {
    LAST.with(|last| last.borrow().as_ref().map(Violation::fault_kind))
}

/// The violation recorded since the last call, if any.
pub fn take() -> Option<Violation> {
    LAST.with(|last| last.borrow_mut().take())
}
