//! The memory a forked child reports through: a shared anonymous mapping that outlives the
//! child however it ends.
//!
//! A child that dies of a signal cannot write to a pipe afterwards, and its signal handler
//! must not allocate (the signal may have interrupted the allocator). So everything it
//! reports has a fixed place here: how far it got, the verdict and message, the signal, the
//! return addresses of the stack at a fault (the parent symbolizes and hashes them, as the
//! fuzz loop does, so that signatures agree), then the edges it hit and the target's output.

use std::sync::atomic::{AtomicPtr, Ordering};

use crate::feedback::stack_samples::SampleBuffer;

/// Frames of the stack recorded at a fault (the fuzz loop walks as many).
pub const FRAMES: usize = 96;
const MESSAGE: usize = 2048;
const LOCATION: usize = 1024;
/// Room for [`crate::target::Target::output`]: golden outputs are a few kilobytes; longer
/// ones are cut here, the same way on every run.
const OUTPUT: usize = 4 << 20;

/// What the child got to before it ended.
pub const STARTED: u32 = 1;
pub const RETURNED: u32 = 2;
pub const PANICKED: u32 = 3;
pub const SIGNALED: u32 = 4;
/// The target returned and an oracle found its answer wrong: the violation is in the output
/// area, as JSON.
pub const VIOLATED: u32 = 5;

/// The fixed-size head of the page.
#[repr(C)]
pub struct Report {
    pub state: u32,
    /// 0 valid, 1 invalid (message), 2 reject.
    pub verdict: u32,
    pub signal: i32,
    /// The faulting address of a segmentation fault or bus error, 0 otherwise.
    pub fault_address: usize,
    addresses_len: u32,
    addresses: [usize; FRAMES],
    message_len: u32,
    message: [u8; MESSAGE],
    location_len: u32,
    location: [u8; LOCATION],
    edges_len: u32,
    output_len: u32,
    has_output: u32,
    /// Stack samples taken while the target ran (`feedback::stack_samples`), for a hang's
    /// bucket.
    pub samples: SampleBuffer,
    // Followed by `edge_capacity` u32 edge indices, then OUTPUT bytes.
}

/// Where the child's signal handler and panic hook write (null in the parent).
static CHILD_REPORT: AtomicPtr<Report> = AtomicPtr::new(std::ptr::null_mut());

/// The mapping, made once per runner and reused for every child.
pub struct ReportPage {
    head: *mut Report,
    edge_capacity: usize,
    mapped: usize,
}

impl ReportPage {
    pub fn new(edge_capacity: usize) -> std::io::Result<Self> {
        let mapped = std::mem::size_of::<Report>() + 4 * edge_capacity + OUTPUT;
        // SAFETY: an anonymous shared mapping; checked for failure below.
        let page = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if page == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Self {
            head: page.cast(),
            edge_capacity,
            mapped,
        })
    }

    /// Clears the head before a child starts.
    pub fn reset(&mut self) {
        // SAFETY: the mapping is ours and at least `size_of::<Report>()` long.
        unsafe { std::ptr::write_bytes(self.head.cast::<u8>(), 0, std::mem::size_of::<Report>()) }
    }

    /// In the child: makes this page the one the signal handler, the panic hook and the stack
    /// sampler write to.
    pub fn adopt_in_child(&self) {
        CHILD_REPORT.store(self.head, Ordering::SeqCst);
        // SAFETY: the page outlives the child, which ends with `_exit`.
        unsafe {
            crate::feedback::stack_samples::use_buffer(std::ptr::addr_of_mut!((*self.head).samples))
        };
    }

    pub fn head(&self) -> &Report {
        // SAFETY: the mapping lives as long as `self`; the child that wrote it has ended.
        unsafe { &*self.head }
    }

    /// In the child: records how far the run got.
    pub fn set_state(&self, state: u32) {
        // SAFETY: only the child's worker thread writes the head while the run goes on.
        unsafe { (*self.head).state = state };
    }

    /// In the child: the verdict, with the message of an invalid one.
    pub fn set_verdict(&self, verdict: u32, message: &str) {
        // SAFETY: as in `set_state`.
        unsafe {
            (*self.head).verdict = verdict;
            let head = &mut *self.head;
            copy_into(&mut head.message, &mut head.message_len, message);
        }
    }

    /// In the child: the edges hit, in index order, as many as fit.
    pub fn set_edges(&self, edges: impl Iterator<Item = u32>) {
        let list = self.edges_start();
        let mut n = 0;
        for edge in edges.take(self.edge_capacity) {
            // SAFETY: `n < edge_capacity`, within the mapping.
            unsafe { list.add(n).write_unaligned(edge) };
            n += 1;
        }
        // SAFETY: as in `set_state`.
        unsafe { (*self.head).edges_len = n as u32 };
    }

    /// In the child: the target's output (cut at the page's room, on a character boundary).
    pub fn set_output(&self, output: &str) {
        let end = floor_char_boundary(output, OUTPUT);
        // SAFETY: `end <= OUTPUT` bytes into the output area of the mapping.
        unsafe {
            std::ptr::copy_nonoverlapping(output.as_ptr(), self.output_start(), end);
            (*self.head).output_len = end as u32;
            (*self.head).has_output = 1;
        }
    }

    pub fn edges(&self) -> Vec<u32> {
        let n = (self.head().edges_len as usize).min(self.edge_capacity);
        let list = self.edges_start();
        // SAFETY: the child wrote `n` edges there.
        (0..n)
            .map(|i| unsafe { list.add(i).read_unaligned() })
            .collect()
    }

    pub fn output(&self) -> Option<String> {
        let head = self.head();
        (head.has_output != 0).then(|| {
            let len = (head.output_len as usize).min(OUTPUT);
            // SAFETY: the child wrote `len` bytes there.
            let bytes = unsafe { std::slice::from_raw_parts(self.output_start(), len) };
            String::from_utf8_lossy(bytes).into_owned()
        })
    }

    pub fn message(&self) -> String {
        let head = self.head();
        text(&head.message, head.message_len)
    }

    pub fn location(&self) -> String {
        let head = self.head();
        text(&head.location, head.location_len)
    }

    pub fn addresses(&self) -> &[usize] {
        let head = self.head();
        &head.addresses[..(head.addresses_len as usize).min(FRAMES)]
    }

    fn edges_start(&self) -> *mut u32 {
        // SAFETY: the edge list follows the head inside the mapping.
        unsafe {
            self.head
                .cast::<u8>()
                .add(std::mem::size_of::<Report>())
                .cast()
        }
    }

    fn output_start(&self) -> *mut u8 {
        // SAFETY: the output area follows the edge list inside the mapping.
        unsafe { self.edges_start().add(self.edge_capacity).cast() }
    }
}

impl Drop for ReportPage {
    fn drop(&mut self) {
        // SAFETY: unmapping our own mapping once.
        unsafe { libc::munmap(self.head.cast(), self.mapped) };
    }
}

/// In the child: the panic hook that records the message, the location and the stack. It
/// allocates (formatting), which a panic, unlike a signal, allows.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let report = CHILD_REPORT.load(Ordering::SeqCst);
        if report.is_null() {
            return;
        }
        let message = crate::target::panic_message(info.payload());
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_default();
        // SAFETY: the shared page outlives the child; the panicking thread is the only writer.
        unsafe {
            let head = &mut *report;
            head.state = PANICKED;
            copy_into(&mut head.message, &mut head.message_len, &message);
            copy_into(&mut head.location, &mut head.location_len, &location);
            record_stack(report);
        }
    }));
}

/// In the child: a fault signal or the timer records itself, the faulting address and the
/// stack, then ends the child. Runs on the signal stack and touches only the shared page.
pub extern "C" fn on_signal(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // No sample of the handler itself.
    crate::feedback::stack_samples::end();
    let report = CHILD_REPORT.load(Ordering::SeqCst);
    if !report.is_null() {
        // SAFETY: the shared page outlives the child; nothing else writes it now. The kernel
        // hands a handler installed with SA_SIGINFO a valid `siginfo_t`.
        unsafe {
            if (*report).state != PANICKED {
                (*report).state = SIGNALED;
                (*report).signal = signal;
                if !info.is_null() && matches!(signal, libc::SIGSEGV | libc::SIGBUS) {
                    (*report).fault_address = (*info).si_addr() as usize;
                }
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
    // SAFETY: the faulting thread is the only one that unwinds; nothing here allocates.
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
    let end = floor_char_boundary(text, N);
    buffer[..end].copy_from_slice(&text.as_bytes()[..end]);
    *len = end as u32;
}

fn floor_char_boundary(text: &str, at_most: usize) -> usize {
    let mut end = text.len().min(at_most);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

fn text(bytes: &[u8], len: u32) -> String {
    String::from_utf8_lossy(&bytes[..(len as usize).min(bytes.len())]).into_owned()
}
