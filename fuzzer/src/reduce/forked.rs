//! One run of the target in a forked child with a timer: what the criteria that run the
//! target ask for every candidate.
//!
//! A reducer tries hundreds of candidates that are, by construction, close to a crashing or
//! hanging input; running them in the reducer's own process would end the reduction at the
//! first abort or stack overflow. Each candidate therefore runs in a child forked from the
//! reducer, on a thread with the main thread's usual 8 MiB stack (so a stack overflow happens
//! where it happens in the fuzzing process, not at the reducer's large parsing stack), under
//! an interval timer. The child reports through a page shared with the parent: its verdict,
//! the edges it hit, and for a fault the panic location or the return addresses of the stack
//! at the signal, which the parent symbolizes and hashes with the fuzz loop's own
//! [`signature`](crate::feedback::signature).
//!
//! `crate::replay::ForkedRunner` (`bonsai replay`, export, golden checks) is a sibling written
//! at the same time: it reports over a pipe and can capture the target's output, but captures
//! no stacks, so it cannot give crash signatures. The two should become one runner with this
//! one's fault capture and that one's output capture.

use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::time::Duration;

use crate::feedback::{Fault, FaultKind, SymbolCache, describe_frames, signature};
use crate::observer::EdgeObserver;
use crate::target::{LinkedTarget, Verdict};

/// Frames of the stack recorded at a fault (the fuzz loop walks as many).
const FRAMES: usize = 96;
const MESSAGE: usize = 2048;
const LOCATION: usize = 1024;
/// The stack the target runs on in the child: the usual main-thread stack, as in `bonsai fuzz`.
const TARGET_STACK: usize = 8 << 20;
/// The stack signal handlers run on, so that a stack overflow can still be reported.
const SIGNAL_STACK: usize = 1 << 20;

/// What the child got to before it ended.
const STARTED: u32 = 1;
const RETURNED: u32 = 2;
const PANICKED: u32 = 3;
const SIGNALED: u32 = 4;

/// The page shared between the parent and the child. Fixed-size fields only: the child's
/// signal handler fills it without allocating.
#[repr(C)]
struct Report {
    state: u32,
    verdict: u32,
    signal: i32,
    addresses_len: u32,
    addresses: [usize; FRAMES],
    message_len: u32,
    message: [u8; MESSAGE],
    location_len: u32,
    location: [u8; LOCATION],
    edges_len: u32,
    // Followed by `edge capacity` u32 edge indices.
}

/// Where the child's signal handler and panic hook write (null in the parent).
static REPORT: AtomicPtr<Report> = AtomicPtr::new(std::ptr::null_mut());

/// What one run did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOutcome {
    /// The target's verdict; `None` when the run faulted.
    pub verdict: Option<Verdict>,
    /// The fault, with the same kinds and signatures as `crashes/*.meta`.
    pub fault: Option<Fault>,
    /// The edges hit, in index order (empty after a signal or a timeout).
    pub edges: Vec<u32>,
}

impl RunOutcome {
    pub fn is_valid(&self) -> bool {
        self.verdict == Some(Verdict::Valid)
    }
}

/// Runs a linked target on one text at a time, each in a forked child.
pub struct ForkedRunner {
    target: LinkedTarget,
    /// Made once, in the parent, on the first run: each child starts from a copy of it, so a
    /// target with expensive set-up (a standard library to load) pays for it once, not once per
    /// test.
    instance: Option<Box<dyn crate::target::Target>>,
    timeout: Duration,
    edges: EdgeObserver,
    symbols: SymbolCache,
    report: *mut Report,
    edge_capacity: usize,
    mapped: usize,
    runs: u64,
}

impl ForkedRunner {
    /// A runner for `target`, whose every run is stopped after `timeout`. The edge counters
    /// are those registered in this process: build the runner in a binary with the target
    /// linked in and instrumented.
    pub fn new(target: LinkedTarget, timeout: Duration) -> std::io::Result<Self> {
        let edges = EdgeObserver::from_registered_counters();
        let edge_capacity = edges.size();
        let mapped = std::mem::size_of::<Report>() + 4 * edge_capacity;
        // SAFETY: an anonymous shared mapping; checked for failure below.
        let page = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if page == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Self {
            target,
            instance: None,
            timeout: timeout.max(Duration::from_millis(1)),
            edges,
            symbols: SymbolCache::default(),
            report: page.cast(),
            edge_capacity,
            mapped,
            runs: 0,
        })
    }

    pub fn target(&self) -> LinkedTarget {
        self.target
    }

    /// Runs so far: one fork each.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// Runs the target on `text` in a child and reports what it did.
    pub fn run(&mut self, text: &str) -> RunOutcome {
        self.runs += 1;
        if self.instance.is_none() {
            self.instance = Some((self.target.make)());
        }
        // SAFETY: the mapping is ours and at least `size_of::<Report>()` long.
        unsafe {
            std::ptr::write_bytes(self.report.cast::<u8>(), 0, std::mem::size_of::<Report>());
        }
        let mut fds = [0i32; 2];
        // SAFETY: plain POSIX calls. The child runs only the target and the reporting below,
        // then leaves with `_exit`, never returning into the parent's code.
        unsafe {
            if libc::pipe(fds.as_mut_ptr()) != 0 {
                return lost("cannot create a pipe");
            }
            let pid = libc::fork();
            if pid < 0 {
                libc::close(fds[0]);
                libc::close(fds[1]);
                return lost("cannot fork");
            }
            if pid == 0 {
                libc::close(fds[0]);
                self.child(text);
            }
            libc::close(fds[1]);
            // The pipe closes when the child ends, however it ends. Past twice the timeout
            // (the child's own timer failed to stop it) it is killed.
            let grace = self.timeout * 2 + Duration::from_secs(1);
            let mut poll = libc::pollfd {
                fd: fds[0],
                events: libc::POLLIN,
                revents: 0,
            };
            let killed = loop {
                let ready =
                    libc::poll(&mut poll, 1, grace.as_millis().min(i32::MAX as u128) as i32);
                if ready < 0
                    && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                {
                    continue;
                }
                if ready == 0 {
                    libc::kill(pid, libc::SIGKILL);
                    break true;
                }
                break false;
            };
            libc::close(fds[0]);
            let mut status = 0;
            while libc::waitpid(pid, &mut status, 0) < 0
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
            }
            self.read_report(killed, status)
        }
    }

    /// The child: set up reporting, run the target on a thread of the usual size, exit.
    unsafe fn child(&mut self, text: &str) -> ! {
        let report = self.report;
        REPORT.store(report, Ordering::SeqCst);
        // SAFETY (whole block): the child is single-threaded until it spawns the worker; the
        // handlers and the hook write only into the shared page.
        unsafe {
            for signal in [
                libc::SIGSEGV,
                libc::SIGBUS,
                libc::SIGABRT,
                libc::SIGILL,
                libc::SIGFPE,
                libc::SIGALRM,
            ] {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                action.sa_flags = libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
            // The timer's signal must reach the worker, to see where the target loops.
            let mut alarm: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut alarm);
            libc::sigaddset(&mut alarm, libc::SIGALRM);
            libc::pthread_sigmask(libc::SIG_BLOCK, &alarm, std::ptr::null_mut());
            std::panic::set_hook(Box::new(|info| {
                let report = REPORT.load(Ordering::SeqCst);
                let message = match info.payload().downcast_ref::<&str>() {
                    Some(s) => (*s).to_string(),
                    None => info
                        .payload()
                        .downcast_ref::<String>()
                        .cloned()
                        .unwrap_or_else(|| "panic with a non-string payload".into()),
                };
                let location = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                    .unwrap_or_default();
                // The shared page outlives the child.
                (*report).state = PANICKED;
                copy_into(&mut (*report).message, &mut (*report).message_len, &message);
                copy_into(
                    &mut (*report).location,
                    &mut (*report).location_len,
                    &location,
                );
                record_stack(report);
            }));
            let timeout = self.timeout;
            let target = self.target;
            let prototype = &mut self.instance;
            let edges = &mut self.edges;
            let capacity = self.edge_capacity;
            let work = move || {
                let _signal_stack = SignalStack::install();
                libc::pthread_sigmask(libc::SIG_UNBLOCK, &alarm, std::ptr::null_mut());
                let mut instance = prototype.take().unwrap_or_else(|| (target.make)());
                // Whatever the parent ran left hits in the counters.
                edges.harvest();
                (*report).state = STARTED;
                arm_timer(timeout);
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    instance.run(text.as_bytes())
                }));
                arm_timer(Duration::ZERO);
                edges.harvest();
                let list = report
                    .cast::<u8>()
                    .add(std::mem::size_of::<Report>())
                    .cast::<u32>();
                let mut n = 0;
                for edge in edges.edges().take(capacity) {
                    list.add(n).write_unaligned(edge);
                    n += 1;
                }
                (*report).edges_len = n as u32;
                if let Ok(verdict) = result {
                    (*report).verdict = match verdict {
                        Verdict::Valid => 0,
                        Verdict::Invalid(message) => {
                            copy_into(&mut (*report).message, &mut (*report).message_len, &message);
                            1
                        }
                        Verdict::Reject => 2,
                    };
                    (*report).state = RETURNED;
                }
            };
            let work = AssertSend(work);
            // SAFETY: the worker is joined before anything it borrows goes away.
            let spawned = std::thread::Builder::new()
                .stack_size(TARGET_STACK)
                .spawn_unchecked(move || work.call());
            match spawned {
                Ok(worker) => {
                    let _ = worker.join();
                    libc::_exit(0)
                }
                Err(_) => libc::_exit(3),
            }
        }
    }

    fn read_report(&mut self, killed: bool, status: i32) -> RunOutcome {
        // SAFETY: the child has ended; the page is ours again.
        let report = unsafe { &*self.report };
        let text = |bytes: &[u8], len: u32| {
            String::from_utf8_lossy(&bytes[..(len as usize).min(bytes.len())]).into_owned()
        };
        let edges = {
            let n = (report.edges_len as usize).min(self.edge_capacity);
            // SAFETY: the child wrote `n` edges after the report, within the mapping.
            let list = unsafe {
                self.report
                    .cast::<u8>()
                    .add(std::mem::size_of::<Report>())
                    .cast::<u32>()
            };
            (0..n)
                .map(|i| unsafe { list.add(i).read_unaligned() })
                .collect()
        };
        let message = text(&report.message, report.message_len);
        let addresses = &report.addresses[..(report.addresses_len as usize).min(FRAMES)];
        let fault =
            |kind: FaultKind, location: Option<String>, message: String, this: &mut Self| {
                let frames = describe_frames(addresses, &mut this.symbols);
                Fault {
                    kind,
                    signature: signature(&kind.to_string(), location.as_deref(), &frames),
                    message,
                    frames,
                }
            };
        match report.state {
            RETURNED => RunOutcome {
                verdict: Some(match report.verdict {
                    0 => Verdict::Valid,
                    1 => Verdict::Invalid(message),
                    _ => Verdict::Reject,
                }),
                fault: None,
                edges,
            },
            PANICKED => {
                let location = text(&report.location, report.location_len);
                let location = (!location.is_empty()).then_some(location);
                let shown = match &location {
                    Some(l) => format!("{message} at {l}"),
                    None => message.clone(),
                };
                RunOutcome {
                    verdict: None,
                    fault: Some(fault(FaultKind::Panic, location, shown, self)),
                    edges,
                }
            }
            SIGNALED if report.signal == libc::SIGALRM => RunOutcome {
                verdict: None,
                fault: Some(fault(
                    FaultKind::Timeout,
                    None,
                    "the target did not finish in time".into(),
                    self,
                )),
                edges: Vec::new(),
            },
            SIGNALED => RunOutcome {
                verdict: None,
                fault: Some(fault(
                    FaultKind::Crash,
                    None,
                    format!("the target crashed with signal {}", report.signal),
                    self,
                )),
                edges: Vec::new(),
            },
            _ if killed => RunOutcome {
                verdict: None,
                fault: Some(Fault {
                    kind: FaultKind::Timeout,
                    signature: signature("timeout", None, &[]),
                    message: "the target did not finish in time and was killed".into(),
                    frames: Vec::new(),
                }),
                edges: Vec::new(),
            },
            _ => {
                let how = if libc::WIFSIGNALED(status) {
                    format!("killed by signal {}", libc::WTERMSIG(status))
                } else {
                    format!("exit status {}", libc::WEXITSTATUS(status))
                };
                RunOutcome {
                    verdict: None,
                    fault: Some(Fault {
                        kind: FaultKind::Crash,
                        signature: signature("crash", Some(&how), &[]),
                        message: format!("the run ended without a report ({how})"),
                        frames: Vec::new(),
                    }),
                    edges: Vec::new(),
                }
            }
        }
    }
}

impl Drop for ForkedRunner {
    fn drop(&mut self) {
        // SAFETY: unmapping our own mapping once.
        unsafe { libc::munmap(self.report.cast::<c_void>(), self.mapped) };
    }
}

/// The outcome of a run that could not even start.
fn lost(why: &str) -> RunOutcome {
    RunOutcome {
        verdict: None,
        fault: Some(Fault {
            kind: FaultKind::Crash,
            signature: 0,
            message: why.to_string(),
            frames: Vec::new(),
        }),
        edges: Vec::new(),
    }
}

/// Records the signal and the stack, then ends the child. Runs on the signal stack; touches
/// only the shared page.
extern "C" fn on_signal(signal: libc::c_int) {
    let report = REPORT.load(Ordering::SeqCst);
    if !report.is_null() {
        // SAFETY: the shared page outlives the child; nothing else writes it now.
        unsafe {
            if (*report).state != PANICKED {
                (*report).state = SIGNALED;
                (*report).signal = signal;
                record_stack(report);
            }
        }
    }
    // SAFETY: ending the child without running anything else of its.
    unsafe { libc::_exit(1) };
}

/// The return addresses of the current stack into the report, without allocating.
unsafe fn record_stack(report: *mut Report) {
    let mut n = 0usize;
    // SAFETY: the child is the only thread that unwinds; no allocation happens here.
    unsafe {
        backtrace::trace_unsynchronized(|frame| {
            (*report).addresses[n] = frame.ip() as usize;
            n += 1;
            n < FRAMES
        });
        (*report).addresses_len = n as u32;
    }
}

fn copy_into<const N: usize>(buffer: &mut [u8; N], len: &mut u32, text: &str) {
    let mut end = text.len().min(N);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    buffer[..end].copy_from_slice(&text.as_bytes()[..end]);
    *len = end as u32;
}

fn arm_timer(after: Duration) {
    let budget = libc::itimerval {
        it_interval: libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        it_value: libc::timeval {
            tv_sec: after.as_secs() as libc::time_t,
            tv_usec: libc::suseconds_t::from(after.subsec_micros() as i32),
        },
    };
    // SAFETY: a plain POSIX call.
    unsafe { libc::setitimer(libc::ITIMER_REAL, &budget, std::ptr::null_mut()) };
}

/// Lets the worker thread take the child's raw pointers: the child has no other thread that
/// could race with it, and it waits for the worker before it exits.
struct AssertSend<F>(F);

// SAFETY: see the type's documentation.
unsafe impl<F> Send for AssertSend<F> {}

impl<F: FnOnce()> AssertSend<F> {
    fn call(self) {
        (self.0)()
    }
}

/// An alternate signal stack for the current thread, so that the handler can run after a
/// stack overflow.
struct SignalStack;

impl SignalStack {
    fn install() -> Self {
        // SAFETY: a private anonymous mapping handed to sigaltstack; the child never unmaps it
        // (it ends with `_exit`).
        unsafe {
            let stack = libc::mmap(
                std::ptr::null_mut(),
                SIGNAL_STACK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if stack != libc::MAP_FAILED {
                let alt = libc::stack_t {
                    ss_sp: stack,
                    ss_flags: 0,
                    ss_size: SIGNAL_STACK,
                };
                libc::sigaltstack(&alt, std::ptr::null_mut());
            }
        }
        SignalStack
    }
}
