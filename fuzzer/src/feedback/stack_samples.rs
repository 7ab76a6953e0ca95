//! Stack samples of the target while it runs, so that a hang is bucketed by the computation
//! that does not end rather than by wherever the timeout's timer landed.
//!
//! A profiling timer (`ITIMER_VIRTUAL`, the process's user CPU time; neither LibAFL's timeout
//! nor the forked runner's budget uses it) fires every tenth of the timeout. While the target
//! runs on the thread that called [`begin`], the handler walks its stack into a fixed buffer,
//! keeping the last [`SAMPLES`] walks; at the timeout the fault's description reads them
//! ([`taken`]), and the function every sample holds is the loop (`signature::bucket`). The
//! handler only walks return addresses (`trace_unsynchronized`, no allocation, no lock), as
//! the fault handlers themselves do; symbolizing happens when a fault is described.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicUsize, Ordering};
use std::time::Duration;

/// Samples kept per run: the last ones, which the run's end is most like.
pub const SAMPLES: usize = 16;
/// Frames per sample: as many as a fault's own stack.
pub const SAMPLE_FRAMES: usize = super::signature::WALKED_FRAMES;
/// Timer ticks per timeout.
const TICKS_PER_TIMEOUT: u32 = 10;

/// Room for the samples of one run. `repr(C)` and plain data, so that it can live in a static
/// or in the page a forked child reports through.
#[repr(C)]
pub struct SampleBuffer {
    /// Samples taken in this run; the latest is at `(taken - 1) % SAMPLES`.
    taken: AtomicU32,
    lens: [AtomicU32; SAMPLES],
    addresses: UnsafeCell<[[usize; SAMPLE_FRAMES]; SAMPLES]>,
}

// SAFETY: only the sampled thread writes (from its own signal handler), and it is read when
// that thread is stopped in a fault handler or has ended.
unsafe impl Sync for SampleBuffer {}

impl SampleBuffer {
    /// An empty buffer.
    pub const fn new() -> Self {
        Self {
            taken: AtomicU32::new(0),
            lens: [const { AtomicU32::new(0) }; SAMPLES],
            addresses: UnsafeCell::new([[0; SAMPLE_FRAMES]; SAMPLES]),
        }
    }

    /// Forgets the samples of the previous run.
    pub fn clear(&self) {
        self.taken.store(0, Ordering::Relaxed);
    }

    /// Walks the current stack into the next slot. Async-signal-safe.
    ///
    /// # Safety
    /// Only the sampled thread may call it, and not while another call of it is running.
    unsafe fn record(&self) {
        let taken = self.taken.load(Ordering::Relaxed);
        let slot = taken as usize % SAMPLES;
        // SAFETY: this thread is the only writer (see the type's documentation).
        let frames = unsafe { &mut (*self.addresses.get())[slot] };
        let mut n = 0;
        // SAFETY: no allocation and no lock; the thread walks its own stack.
        unsafe {
            backtrace::trace_unsynchronized(|frame| {
                frames[n] = frame.ip() as usize;
                n += 1;
                n < SAMPLE_FRAMES
            });
        }
        self.lens[slot].store(n as u32, Ordering::Relaxed);
        self.taken.store(taken + 1, Ordering::Release);
    }

    /// The return addresses of each sample kept, oldest first.
    pub fn taken(&self) -> Vec<Vec<usize>> {
        let taken = self.taken.load(Ordering::Acquire) as usize;
        let first = taken.saturating_sub(SAMPLES);
        (first..taken)
            .map(|i| {
                let slot = i % SAMPLES;
                let len = (self.lens[slot].load(Ordering::Relaxed) as usize).min(SAMPLE_FRAMES);
                // SAFETY: the sampled thread is stopped or gone (see the type's documentation).
                unsafe { (&(*self.addresses.get())[slot])[..len].to_vec() }
            })
            .collect()
    }
}

impl Default for SampleBuffer {
    fn default() -> Self {
        Self::new()
    }
}

/// The fuzzing process's own buffer.
static IN_PROCESS: SampleBuffer = SampleBuffer::new();
/// Where the handler writes: [`IN_PROCESS`] unless [`use_buffer`] said otherwise.
static BUFFER: AtomicPtr<SampleBuffer> = AtomicPtr::new(std::ptr::null_mut());
/// The thread being sampled (`pthread_self`), 0 between runs.
static SAMPLED: AtomicUsize = AtomicUsize::new(0);

fn buffer() -> &'static SampleBuffer {
    let pointer = BUFFER.load(Ordering::Relaxed);
    if pointer.is_null() {
        &IN_PROCESS
    } else {
        // SAFETY: `use_buffer` requires the buffer to outlive the process's sampling.
        unsafe { &*pointer }
    }
}

extern "C" fn on_tick(_: libc::c_int, _: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: `pthread_self` only reads the thread pointer.
    let this = unsafe { libc::pthread_self() } as usize;
    if this != 0 && SAMPLED.load(Ordering::Relaxed) == this {
        // SAFETY: we are the sampled thread, and the handler does not nest (SA_NODEFER unset).
        unsafe { buffer().record() };
    }
}

/// Installs the handler and starts the timer, one tick per tenth of `timeout` of CPU time.
/// Call it in the process that runs the target (timers do not survive `fork`).
pub fn start(timeout: Duration) {
    let tick = (timeout / TICKS_PER_TIMEOUT).max(Duration::from_millis(1));
    // SAFETY: installing a handler that only touches the sample buffer, and setting this
    // process's own timer.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_tick as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGVTALRM, &action, std::ptr::null_mut());
        let interval = libc::timeval {
            tv_sec: tick.as_secs() as libc::time_t,
            tv_usec: tick.subsec_micros() as libc::suseconds_t,
        };
        let timer = libc::itimerval {
            it_interval: interval,
            it_value: interval,
        };
        libc::setitimer(libc::ITIMER_VIRTUAL, &timer, std::ptr::null_mut());
    }
}

/// Stops the timer.
pub fn stop() {
    // SAFETY: clearing this process's own timer.
    unsafe {
        libc::setitimer(
            libc::ITIMER_VIRTUAL,
            &std::mem::zeroed(),
            std::ptr::null_mut(),
        );
    }
}

/// Makes the handler write into `buffer` (a forked child's report page) instead of the
/// process's own.
///
/// # Safety
/// `buffer` must stay valid for as long as the process samples.
pub unsafe fn use_buffer(buffer: *mut SampleBuffer) {
    BUFFER.store(buffer, Ordering::Relaxed);
}

/// A run of the target starts on this thread: earlier samples are forgotten.
pub fn begin() {
    buffer().clear();
    // SAFETY: `pthread_self` only reads the thread pointer.
    SAMPLED.store(unsafe { libc::pthread_self() } as usize, Ordering::Relaxed);
}

/// The run ended normally: no more samples until the next [`begin`].
pub fn end() {
    SAMPLED.store(0, Ordering::Relaxed);
}

/// The samples of the run a fault just ended (in the process's own buffer).
pub fn taken() -> Vec<Vec<usize>> {
    buffer().taken()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn spin_until(deadline: std::time::Instant) -> u64 {
        let mut x = 0u64;
        while std::time::Instant::now() < deadline {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        x
    }

    #[test]
    fn a_busy_thread_is_sampled_and_only_while_it_runs_the_target() {
        let buffer = Box::leak(Box::new(SampleBuffer::new()));
        // SAFETY: leaked, so it outlives the test process's sampling.
        unsafe { use_buffer(buffer) };
        start(Duration::from_millis(50));
        begin();
        spin_until(std::time::Instant::now() + Duration::from_millis(200));
        end();
        let during = buffer.taken();
        spin_until(std::time::Instant::now() + Duration::from_millis(100));
        stop();
        assert!(!during.is_empty(), "a 200 ms spin at 5 ms ticks is sampled");
        assert!(during.len() <= SAMPLES);
        assert!(
            during
                .iter()
                .all(|s| !s.is_empty() && s.len() <= SAMPLE_FRAMES)
        );
        assert_eq!(buffer.taken().len(), during.len(), "no sample after end()");
        begin();
        assert!(buffer.taken().is_empty(), "begin() forgets the last run");
        end();
    }
}
