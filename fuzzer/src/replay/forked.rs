//! Runs of the target in forked children that repeat exactly.
//!
//! Everything outside the fuzzing loop asks "what does the target do with this input, and
//! what does it cover?": `bonsai replay`, export and regression checks, the reducer's coverage
//! and crash criteria, crash reproducers. Each input runs in a child forked from the caller,
//! so that an abort, a stack overflow or a hang ends the child, not the caller, and no
//! coverage leaks from one input to the next.
//!
//! A run must also give the same answer every time, or a reducer rejects reductions of
//! inputs that "no longer cover what they covered" and every replayed figure wobbles. The
//! causes are in the target's process, not in the input: hash seeds, heap addresses, the
//! per-thread hash key counter of the standard library. So the target instance is built once,
//! on a fresh thread, on the fixed heap (`target::fixed_heap`), which is then frozen; each
//! child turns the fixed heap on again and runs the input on a fresh thread of the usual 8 MiB
//! stack (so a stack overflow happens where it happens in `bonsai fuzz`). Every child thus
//! starts from the same heap state at the same addresses with the same hash keys (the target
//! binary's `getrandom` is fixed: `target::repeatable_random`), whatever the caller did before.
//!
//! The budget counts CPU time (`ITIMER_PROF`), so that a loaded machine does not turn a slow
//! input into a timeout; a wall-clock timer at ten times the budget catches an input that
//! blocks without computing, and the parent kills a child that outlives even that.

use std::time::Duration;

use super::execution::{Execution, Outcome};
use super::report_page::{self, PANICKED, RETURNED, ReportPage, SIGNALED, STARTED, VIOLATED};
use crate::feedback::{
    Evidence, Fault, FaultKind, SymbolCache, bare_bucket, describe, record_target_stack,
    stack_samples,
};
use crate::observer::EdgeObserver;
use crate::target::{LinkedTarget, Oracle, Target, Verdict, Violation, fixed_heap};

/// The stack signal handlers run on, so that a stack overflow can still be reported.
const SIGNAL_STACK: usize = 1 << 20;
/// The wall-clock timer, in multiples of the CPU budget.
const WALL_FACTOR: u32 = 10;

/// Runs a linked target on one input at a time, each in a forked child. Keep one runner for
/// many inputs: it holds the target instance every child starts from, the view of the counter
/// map and the shared page.
pub struct ForkedRunner {
    target: LinkedTarget,
    /// Made on the first run (see the module documentation).
    instance: Option<Box<dyn Target>>,
    timeout: Duration,
    edges: EdgeObserver,
    symbols: SymbolCache,
    page: ReportPage,
    runs: u64,
}

impl ForkedRunner {
    /// A runner for `target`, whose every run is stopped after `timeout` of CPU time. The edge
    /// counters are those registered in this process: build the runner in a binary with the
    /// target linked in and instrumented.
    pub fn new(target: LinkedTarget, timeout: Duration) -> std::io::Result<Self> {
        // Built once here, so that every child samples with it at no cost.
        stack_samples::prepare();
        let edges = EdgeObserver::from_registered_counters();
        let page = ReportPage::new(edges.size())?;
        Ok(Self {
            target,
            instance: None,
            timeout: timeout.max(Duration::from_millis(1)),
            edges,
            symbols: SymbolCache::default(),
            page,
            runs: 0,
        })
    }

    /// The target this runner forks; `LinkedTarget` is a cheap handle, so it is returned by value.
    pub fn target(&self) -> LinkedTarget {
        self.target
    }

    /// Runs so far: one fork each.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// Verdict, message, covered edges and, for a fault, its signature.
    pub fn run(&mut self, input: &[u8]) -> Execution {
        self.execute(input, false)
    }

    /// Like [`Self::run`], and also the target's output (for golden tests), from a second call
    /// on the same instance after the coverage was taken.
    pub fn run_with_output(&mut self, input: &[u8]) -> Execution {
        self.execute(input, true)
    }

    fn execute(&mut self, input: &[u8], output: bool) -> Execution {
        self.runs += 1;
        if self.instance.is_none() {
            self.instance = Some(make_instance(self.target));
        }
        self.page.reset();
        let mut fds = [0i32; 2];
        // SAFETY: plain POSIX calls. The child runs only the target and the reporting, then
        // leaves with `_exit`, never returning into the caller's code.
        unsafe {
            if libc::pipe(fds.as_mut_ptr()) != 0 {
                return Execution::error("cannot create a pipe");
            }
            let pid = libc::fork();
            if pid < 0 {
                libc::close(fds[0]);
                libc::close(fds[1]);
                return Execution::error("cannot fork");
            }
            if pid == 0 {
                libc::close(fds[0]);
                self.child(input, output);
            }
            libc::close(fds[1]);
            // The pipe closes when the child ends, however it ends. Past the wall-clock timer
            // and a second (the child's own timers failed to stop it) it is killed.
            let grace = self.timeout * (WALL_FACTOR + 1) + Duration::from_secs(1);
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

    /// The child: set up reporting, run the target on a fresh thread, exit.
    unsafe fn child(&mut self, input: &[u8], output: bool) -> ! {
        // SAFETY (whole block): the child is single-threaded until it spawns the worker, and
        // waits for it; the handlers and the hook write only into the shared page.
        unsafe {
            // The runtime's own last words (`has overflowed its stack`) would interleave with
            // the caller's output; the report carries what matters.
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
            if null >= 0 {
                libc::dup2(null, 2);
                libc::close(null);
            }
            fixed_heap::enter();
            self.page.adopt_in_child();
            for signal in [
                libc::SIGSEGV,
                libc::SIGBUS,
                libc::SIGABRT,
                libc::SIGILL,
                libc::SIGFPE,
                libc::SIGALRM,
                libc::SIGPROF,
            ] {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = report_page::on_signal as *const () as usize;
                action.sa_flags = libc::SA_ONSTACK | libc::SA_SIGINFO;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
            // The timers' signals must reach the worker, to see where the target loops.
            let mut timers: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut timers);
            libc::sigaddset(&mut timers, libc::SIGALRM);
            libc::sigaddset(&mut timers, libc::SIGPROF);
            libc::sigaddset(&mut timers, libc::SIGVTALRM);
            libc::pthread_sigmask(libc::SIG_BLOCK, &timers, std::ptr::null_mut());
            report_page::install_panic_hook();

            let timeout = self.timeout;
            let instance = self.instance.as_mut().expect("made before forking");
            let edges = &mut self.edges;
            let page = &self.page;
            let work = move || {
                let _signal_stack = SignalStack::install();
                libc::pthread_sigmask(libc::SIG_UNBLOCK, &timers, std::ptr::null_mut());
                record_target_stack();
                // Whatever the parent ran left hits in the counters.
                edges.harvest();
                page.set_state(STARTED);
                arm_timers(timeout);
                stack_samples::begin();
                // The oracles run in the same budget as the target: a printer that loops is a
                // hang of the target's.
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let verdict = instance.run(input);
                    let violation = instance.check(input, &verdict);
                    (verdict, violation)
                }));
                stack_samples::end();
                arm_timers(Duration::ZERO);
                edges.harvest();
                page.set_edges(edges.edges());
                let Ok((verdict, violation)) = result else {
                    return;
                };
                match &verdict {
                    Verdict::Valid => page.set_verdict(0, ""),
                    Verdict::Invalid(message) => page.set_verdict(1, message),
                    Verdict::Reject => page.set_verdict(2, ""),
                }
                if let Some(violation) = violation {
                    page.set_output(&serde_json::to_string(&violation).unwrap_or_default());
                    page.set_state(VIOLATED);
                    return;
                }
                if output {
                    arm_timers(timeout);
                    let text = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        instance.output(input)
                    }));
                    arm_timers(Duration::ZERO);
                    if let Ok(text) = text {
                        page.set_output(&text);
                    }
                }
                page.set_state(RETURNED);
            };
            let code = match run_on_fresh_thread(work) {
                Some(()) => 0,
                None => 3,
            };
            libc::_exit(code)
        }
    }

    fn read_report(&mut self, killed: bool, status: i32) -> Execution {
        let message = self.page.message();
        let edges = self.page.edges();
        let head = self.page.head();
        let (state, verdict, signal) = (head.state, head.verdict, head.signal);
        match state {
            RETURNED => Execution {
                outcome: match verdict {
                    0 => Outcome::Valid,
                    1 => Outcome::Invalid,
                    _ => Outcome::Reject,
                },
                message,
                edges,
                output: self.page.output(),
                fault: None,
            },
            VIOLATED => self.violated(edges),
            PANICKED => {
                let location = self.page.location();
                let location = (!location.is_empty()).then_some(location.as_str());
                let fault = self.caught(FaultKind::Panic, Some((&message, location)));
                Execution {
                    outcome: Outcome::Panic,
                    message,
                    edges,
                    output: None,
                    fault: Some(fault),
                }
            }
            // Which of the two timers fired depends on the machine's load; the message must
            // not.
            SIGNALED if signal == libc::SIGALRM || signal == libc::SIGPROF => {
                let fault = self.caught(FaultKind::Timeout, None);
                ended(Outcome::Timeout, "timed out".into(), fault)
            }
            SIGNALED => {
                let fault = self.caught(FaultKind::Crash, None);
                let outcome = match fault.kind {
                    FaultKind::StackOverflow => Outcome::StackOverflow,
                    _ => Outcome::Crash,
                };
                ended(outcome, fault.message.clone(), fault)
            }
            _ if killed => {
                let how = "the target did not finish in time and was killed";
                let fault = bare_fault(FaultKind::Timeout, "killed", how.into());
                ended(Outcome::Timeout, "timed out".into(), fault)
            }
            _ => {
                let how = if libc::WIFSIGNALED(status) {
                    format!("killed by signal {}", libc::WTERMSIG(status))
                } else {
                    format!("exit status {}", libc::WEXITSTATUS(status))
                };
                let message = format!("the run ended without a report ({how})");
                let fault = bare_fault(FaultKind::Crash, &how, message.clone());
                ended(Outcome::Crash, message, fault)
            }
        }
    }

    /// The wrong answer an oracle found, which the child wrote as JSON in the output area.
    fn violated(&mut self, edges: Vec<u32>) -> Execution {
        let Some(violation) = self
            .page
            .output()
            .and_then(|json| serde_json::from_str::<Violation>(&json).ok())
        else {
            return Execution::error("the child's report of a wrong answer is unreadable");
        };
        let fault = describe(
            &Evidence {
                kind: violation.fault_kind(),
                signal: None,
                fault_address: 0,
                panic: None,
                violation: Some(&violation),
                addresses: &[],
                samples: &[],
            },
            &mut self.symbols,
        );
        Execution {
            outcome: match violation.oracle {
                Oracle::RoundTrip => Outcome::RoundTrip,
                Oracle::Differential => Outcome::Differential,
            },
            message: violation.message.clone(),
            edges,
            output: None,
            fault: Some(fault),
        }
    }

    /// A fault the child caught itself (a panic, or a signal its handler saw), described from
    /// the stack it left on the page; a hang also from the stack samples taken while it ran.
    fn caught(&mut self, kind: FaultKind, panic: Option<(&str, Option<&str>)>) -> Fault {
        let head = self.page.head();
        let samples = match kind {
            FaultKind::Timeout => head.samples.taken(),
            _ => Vec::new(),
        };
        describe(
            &Evidence {
                kind,
                signal: (kind == FaultKind::Crash).then_some(head.signal),
                fault_address: head.fault_address,
                panic,
                violation: None,
                addresses: self.page.addresses(),
                samples: &samples,
            },
            &mut self.symbols,
        )
    }
}

/// A fault that ended the child before it could report the edges it covered.
fn ended(outcome: Outcome, message: String, fault: Fault) -> Execution {
    Execution {
        outcome,
        message,
        edges: Vec::new(),
        output: None,
        fault: Some(fault),
    }
}

/// A fault the child left no report of (killed, or gone without a word): no stack to describe,
/// so its bucket is named by `what` alone.
fn bare_fault(kind: FaultKind, what: &str, message: String) -> Fault {
    let bucket = bare_bucket(kind, what);
    Fault {
        kind,
        signature: bucket.signature,
        message,
        location: bucket.location,
        frames: Vec::new(),
        recursion: Vec::new(),
        texts: Vec::new(),
    }
}

/// One input, one child: see [`ForkedRunner`], which is cheaper for many inputs.
pub fn run_forked(
    target: LinkedTarget,
    input: &[u8],
    timeout: Duration,
    output: bool,
) -> Execution {
    match ForkedRunner::new(target, timeout) {
        Ok(mut runner) => runner.execute(input, output),
        Err(e) => Execution::error(format!("cannot map the report page: {e}")),
    }
}

/// Builds the instance every child starts from: on a fresh thread, so that the hash keys it
/// draws do not depend on what this thread did before, and on the fixed heap, frozen after.
fn make_instance(target: LinkedTarget) -> Box<dyn Target> {
    let fixed = fixed_heap::enter();
    let mut made = None;
    let slot = &mut made;
    // SAFETY: the closure only writes into `made`, which outlives the joined thread.
    let ran = unsafe { run_on_fresh_thread(move || *slot = Some((target.make)())) };
    if fixed {
        fixed_heap::freeze();
    }
    match (ran, made) {
        (Some(()), Some(instance)) => instance,
        // The thread could not be spawned: build it here, repeatable or not.
        _ => (target.make)(),
    }
}

/// Runs `work` on a new thread with the usual main-thread stack and waits for it; `None` if
/// the thread could not be spawned or `work` panicked.
///
/// # Safety
/// `work` may borrow from the caller's stack and need not be `Send`: the caller must not touch
/// what it borrows until this returns, which it ensures by joining.
unsafe fn run_on_fresh_thread<'a>(work: impl FnOnce() + 'a) -> Option<()> {
    let work = AssertSend(work);
    // SAFETY: the thread is joined before anything it borrows goes away.
    let spawned = unsafe {
        std::thread::Builder::new()
            .stack_size(crate::target::target_stack())
            .spawn_unchecked(move || work.call())
    };
    spawned.ok()?.join().ok()
}

fn arm_timers(budget: Duration) {
    if budget.is_zero() {
        stack_samples::stop();
    } else {
        stack_samples::start(budget);
    }
    let timer = |budget: Duration| libc::itimerval {
        it_interval: libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        it_value: libc::timeval {
            tv_sec: budget.as_secs() as libc::time_t,
            tv_usec: budget.subsec_micros() as libc::suseconds_t,
        },
    };
    // SAFETY: setting this process's own timers.
    unsafe {
        libc::setitimer(libc::ITIMER_PROF, &timer(budget), std::ptr::null_mut());
        libc::setitimer(
            libc::ITIMER_REAL,
            &timer(budget * WALL_FACTOR),
            std::ptr::null_mut(),
        );
    }
}

/// Lets the worker thread take what the caller lends it: the caller waits for the worker, and
/// no other thread could race with it (in the child there is none).
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
