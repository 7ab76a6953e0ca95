//! Wraps LibAFL's fault handlers so that they never re-enter an interrupted system allocator.
//!
//! Why: see `target::emergency_heap`. A starlark run of ten minutes died this way: a hang's
//! timer fired inside `malloc`, the timeout handler allocated, glibc aborted on its own
//! half-updated heap, and the run ended with "crashed inside a crash handler". The wrapper
//! asks the allocator whether the signal interrupted it; if so, LibAFL's handler runs with
//! the emergency heap on. It also keeps LibAFL's handler from writing its debug line to the
//! terminal for every fault (see `feedback::quiet_stderr`).

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::target::{emergency_heap, memory_limit};

/// The signals LibAFL's in-process executor handles (timeouts and crashes).
const GUARDED: [libc::c_int; 9] = [
    libc::SIGALRM,
    libc::SIGUSR2,
    libc::SIGABRT,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
    libc::SIGSEGV,
    libc::SIGTRAP,
    libc::SIGPIPE,
];

/// The handler each guarded signal had before the guard, by signal number (0: none).
static PREVIOUS: [AtomicUsize; 65] = [const { AtomicUsize::new(0) }; 65];

type SigInfoHandler = unsafe extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void);

/// Guarded handlers running now (a fault inside a handler nests).
static DEPTH: AtomicUsize = AtomicUsize::new(0);

/// The exit status LibAFL's restarting manager reads as "crashed inside a crash handler"
/// (`libafl_bolts::os::SIGNAL_RECURSION_EXIT`).
const RECURSION_EXIT: libc::c_int = 101;

unsafe extern "C" fn guarded(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    let previous = PREVIOUS
        .get(signal as usize)
        .map_or(0, |p| p.load(Ordering::SeqCst));
    if previous == 0 {
        return;
    }
    // The run is over: a profiling tick landing in the handler would sample the handler's own
    // work (seen under load at a 10 ms timeout: hangs bucketed in LibAFL's hash maps), not
    // the target's.
    crate::feedback::stack_samples::end();
    if DEPTH.load(Ordering::SeqCst) > 0 && signal != libc::SIGALRM && signal != libc::SIGUSR2 {
        // A fault inside a fault handler. LibAFL 0.16's handler would wait for "QUIT" on
        // standard input, forever when it is not a terminal; exiting with the recursion status
        // instead lets the supervisor resume the run from its saved queue.
        // SAFETY: `_exit` is async-signal-safe.
        unsafe { libc::_exit(RECURSION_EXIT) };
    }
    DEPTH.fetch_add(1, Ordering::SeqCst);
    let fault = signal != libc::SIGALRM && signal != libc::SIGUSR2;
    if fault {
        // SAFETY: the kernel hands a handler installed with SA_SIGINFO a valid `siginfo_t`.
        let address = if info.is_null() {
            0
        } else {
            unsafe { (*info).si_addr() as usize }
        };
        crate::feedback::record_signal(signal, address);
        crate::feedback::quiet_stderr();
    }
    let interrupted_allocator = memory_limit::in_system_allocator();
    let was_active = interrupted_allocator.then(emergency_heap::enter);
    // SAFETY: `previous` was read from `sigaction` for a handler installed with SA_SIGINFO,
    // so it has this signature; it gets the arguments the kernel gave us.
    unsafe {
        let handler: SigInfoHandler = std::mem::transmute::<usize, SigInfoHandler>(previous);
        handler(signal, info, context);
    }
    if fault {
        crate::feedback::restore_stderr();
    }
    if let Some(was_active) = was_active {
        emergency_heap::leave(was_active);
    }
    DEPTH.fetch_sub(1, Ordering::SeqCst);
}

/// Puts the guard in front of every fault handler currently installed with SA_SIGINFO. Call
/// it after the executor is built (building it installs LibAFL's handlers). Returns how many
/// handlers it guards; calling it again guards only handlers installed since.
pub fn install() -> usize {
    crate::feedback::prepare_quiet_stderr();
    let mut guarded_count = 0;
    for signal in GUARDED {
        // SAFETY: plain system calls on zero-initialized, correctly sized structures.
        unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut current) != 0 {
                continue;
            }
            let handler = current.sa_sigaction;
            if current.sa_flags & libc::SA_SIGINFO == 0
                || handler == libc::SIG_DFL
                || handler == libc::SIG_IGN
                || handler == guarded as *const () as usize
            {
                continue;
            }
            PREVIOUS[signal as usize].store(handler, Ordering::SeqCst);
            let mut wrapped = current;
            wrapped.sa_sigaction = guarded as *const () as usize;
            if libc::sigaction(signal, &wrapped, std::ptr::null_mut()) == 0 {
                guarded_count += 1;
            }
        }
    }
    guarded_count
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    static SAW_EMERGENCY: AtomicBool = AtomicBool::new(false);
    static CALLED: AtomicBool = AtomicBool::new(false);

    unsafe extern "C" fn inner(_: libc::c_int, _: *mut libc::siginfo_t, _: *mut libc::c_void) {
        CALLED.store(true, Ordering::SeqCst);
        SAW_EMERGENCY.store(emergency_heap::active(), Ordering::SeqCst);
    }

    #[test]
    fn chains_to_the_previous_handler_and_leaves_the_system_heap_alone_outside_the_allocator() {
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = inner as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO;
            assert_eq!(
                libc::sigaction(libc::SIGUSR2, &action, std::ptr::null_mut()),
                0
            );
        }
        assert!(install() >= 1);
        assert_eq!(install(), 0, "a guard is never wrapped twice");
        unsafe { libc::raise(libc::SIGUSR2) };
        assert!(CALLED.load(Ordering::SeqCst));
        assert!(
            !SAW_EMERGENCY.load(Ordering::SeqCst),
            "a signal outside the allocator runs on the system heap"
        );
    }
}
