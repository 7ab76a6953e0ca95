//! Ctrl-C and SIGTERM: noted, then handled by the work list between two polls.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

fn flag() -> &'static Arc<AtomicBool> {
    static INTERRUPTED: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    INTERRUPTED.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// From now on SIGINT and SIGTERM only set a flag (signal-hook's registration replaces their
/// default action): the campaign stops its nodes itself and records them as waiting, so that
/// `--resume` continues them.
pub fn install() {
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        if let Err(e) = signal_hook::flag::register(signal, Arc::clone(flag())) {
            tracing::warn!("cannot catch signal {signal}: {e}; stopping will not be clean");
        }
    }
}

pub fn interrupted() -> bool {
    flag().load(Ordering::SeqCst)
}
