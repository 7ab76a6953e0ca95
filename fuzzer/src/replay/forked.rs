//! One execution of the target in a child process.

use std::fmt;
use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::observer::EdgeObserver;
use crate::target::{LinkedTarget, Verdict};

/// How an execution ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Valid,
    Invalid,
    Reject,
    /// The target panicked (the message is the panic's).
    Panic,
    /// The child died of a signal other than the timer's (abort, stack overflow, segfault).
    Crash,
    Timeout,
    /// The input could not be run at all (no pipe, unreadable file, ...).
    Error,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Valid => "valid",
            Outcome::Invalid => "invalid",
            Outcome::Reject => "reject",
            Outcome::Panic => "panic",
            Outcome::Crash => "crash",
            Outcome::Timeout => "timeout",
            Outcome::Error => "error",
        }
    }

    pub fn is_fault(self) -> bool {
        matches!(self, Outcome::Panic | Outcome::Crash | Outcome::Timeout)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one input did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Execution {
    pub outcome: Outcome,
    /// The target's message for `invalid`, the panic message, `signal N` for a crash, `timed
    /// out`, or why the input could not be run.
    pub message: String,
    /// Indices of the edge counters the input hit, ascending. Empty when the child died.
    pub edges: Vec<u32>,
    /// [`crate::target::Target::output`] of the input, when asked for and the child survived.
    pub output: Option<String>,
}

impl Execution {
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            outcome: Outcome::Error,
            message: message.into(),
            edges: Vec::new(),
            output: None,
        }
    }
}

/// Runs inputs through a target, each in a fresh child of this process, so that an input that
/// aborts, overflows its stack or hangs is reported as such instead of ending the caller, and
/// no coverage leaks from one input to the next. Keep one runner for many inputs: it holds the
/// view of the counter map.
pub struct ForkedRunner {
    target: LinkedTarget,
    timeout: Duration,
    edges: EdgeObserver,
}

impl ForkedRunner {
    /// `target` must be linked into this binary (its counters registered in this process).
    pub fn new(target: LinkedTarget, timeout: Duration) -> Self {
        Self {
            target,
            timeout: timeout.max(Duration::from_millis(1)),
            edges: EdgeObserver::from_registered_counters(),
        }
    }

    /// Verdict, message and covered edges of `input`.
    pub fn run(&mut self, input: &[u8]) -> Execution {
        self.execute(input, false)
    }

    /// Like [`Self::run`], and also the target's output (for golden tests). The output comes
    /// from a second call on the same instance, after the coverage was taken.
    pub fn run_with_output(&mut self, input: &[u8]) -> Execution {
        self.execute(input, true)
    }

    fn execute(&mut self, input: &[u8], output: bool) -> Execution {
        let mut fds = [0i32; 2];
        // SAFETY: plain POSIX calls; the child only runs the target, writes to the pipe and
        // leaves with `_exit`, so no destructor or atexit handler of the parent runs twice.
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
                let result = self.child(input, output);
                let body = serde_json::to_vec(&result).unwrap_or_default();
                let mut pipe = std::fs::File::from_raw_fd(fds[1]);
                let _ = pipe.write_all(&body);
                drop(pipe);
                libc::_exit(0);
            }
            libc::close(fds[1]);
            let mut pipe = std::fs::File::from_raw_fd(fds[0]);
            let mut body = Vec::new();
            let _ = pipe.read_to_end(&mut body);
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            if libc::WIFSIGNALED(status) {
                let signal = libc::WTERMSIG(status);
                let timeout = signal == libc::SIGALRM || signal == libc::SIGPROF;
                return Execution {
                    outcome: if timeout {
                        Outcome::Timeout
                    } else {
                        Outcome::Crash
                    },
                    // Which of the two timers fired depends on the machine's load; the
                    // message must not.
                    message: if timeout {
                        "timed out".to_string()
                    } else {
                        format!("signal {signal}")
                    },
                    edges: Vec::new(),
                    output: None,
                };
            }
            serde_json::from_slice(&body).unwrap_or_else(|_| {
                Execution::error(format!(
                    "the child exited with status {} without a result",
                    libc::WEXITSTATUS(status)
                ))
            })
        }
    }

    /// In the child: arm the timers, run, collect.
    fn child(&mut self, input: &[u8], output: bool) -> Execution {
        // The runtime's own last words (`has overflowed its stack`) would interleave with the
        // caller's output; the outcome carries what matters.
        // SAFETY: redirecting this child's stderr.
        unsafe {
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
            if null >= 0 {
                libc::dup2(null, 2);
                libc::close(null);
            }
        }
        self.arm_timers();
        std::panic::set_hook(Box::new(|_| {}));
        let mut instance = (self.target.make)();
        // Whatever the constructor (or the parent) left in the counters is not the input's.
        self.edges.harvest();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| instance.run(input)));
        self.edges.harvest();
        let edges: Vec<u32> = self.edges.edges().collect();
        let (outcome, message) = match result {
            Ok(Verdict::Valid) => (Outcome::Valid, String::new()),
            Ok(Verdict::Invalid(m)) => (Outcome::Invalid, m),
            Ok(Verdict::Reject) => (Outcome::Reject, String::new()),
            Err(payload) => (Outcome::Panic, crate::target::panic_message(&*payload)),
        };
        let output = (output && outcome != Outcome::Panic)
            .then(|| {
                self.arm_timers();
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| instance.output(input)))
                    .ok()
            })
            .flatten();
        Execution {
            outcome,
            message,
            edges,
            output,
        }
    }
}

impl ForkedRunner {
    /// The budget counts CPU time (`ITIMER_PROF`, user and system), so that a loaded machine
    /// does not turn a slow input into a timeout; a wall-clock timer at ten times the budget
    /// catches an input that blocks without computing.
    fn arm_timers(&self) {
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
            libc::setitimer(
                libc::ITIMER_PROF,
                &timer(self.timeout),
                std::ptr::null_mut(),
            );
            libc::setitimer(
                libc::ITIMER_REAL,
                &timer(self.timeout * 10),
                std::ptr::null_mut(),
            );
        }
    }
}

/// One input, one child: see [`ForkedRunner`], which is cheaper for many inputs.
pub fn run_forked(
    target: LinkedTarget,
    input: &[u8],
    timeout: Duration,
    output: bool,
) -> Execution {
    let mut runner = ForkedRunner::new(target, timeout);
    runner.execute(input, output)
}
