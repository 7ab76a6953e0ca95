//! Stack samples of the target while it runs, so that a hang is bucketed by the computation
//! that does not end rather than by wherever the timeout's timer landed.
//!
//! A profiling timer (`ITIMER_VIRTUAL`, the process's user CPU time; neither LibAFL's timeout
//! nor the forked runner's budget uses it) fires every fiftieth of the timeout (an early first
//! sample sees the loop before any long call inside it began). While the target
//! runs on the thread that called [`begin`], the handler walks its stack into a fixed buffer of
//! [`SAMPLES`] walks spread over the whole run (when it is full, every other sample goes and
//! the handler samples half as often, so the first sample always stays: a computation whose last
//! step is one long call shows the loop around it only in its early samples); at the timeout
//! the fault's description reads them ([`taken`]). The handler only walks return addresses (`trace_unsynchronized`, no
//! allocation, no lock), as the fault handlers themselves do; symbolizing happens when a fault
//! is described.
//!
//! Stacks alone cannot tell a loop from the helper it calls: when every sample lands inside
//! `advance`, called over and over by the loop in `wait`, `advance` is on every sample too. So
//! with each frame the handler also reads the SanitizerCoverage counter of its function's entry
//! block (found through the PC table, [`prepare`]): a frame whose entry counter did not move
//! between the samples is one activation that lasted, and the innermost such frame is the
//! computation that does not end (`signature::bucket`). The handler also sums the counters of
//! all the function's blocks: a lasting frame whose sum never moves is stuck in one call (a
//! statement walker waiting on a slow recursion below it), not a loop of its own.

use std::cell::UnsafeCell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// Samples kept per run: the last ones, which the run's end is most like.
pub const SAMPLES: usize = 16;
/// Frames kept per sample: the innermost half and the outermost half of the stack.
pub const SAMPLE_FRAMES: usize = super::signature::WALKED_FRAMES;
/// Frames walked per sample at most.
const MAX_WALK: usize = 200_000;
/// Frames walked between two looks at the clock.
const WALK_CLOCK_EVERY: usize = 1024;
/// A sample costs the run at most this share of its CPU time (in tenths): after a walk of
/// duration `d`, the handler lets `d × (10 − k) / k` of ticks go by unsampled. A deep recursion
/// walked whole at every tick would stall the recursion itself, so that a stack overflow in
/// an unoptimized build became a timeout.
const SAMPLING_SHARE_TENTHS: u64 = 1;
/// Timer ticks per timeout.
const TICKS_PER_TIMEOUT: u32 = 50;

/// No entry counter is known for a frame.
const NO_ENTRY: u32 = u32::MAX;

/// Room for the samples of one run. `repr(C)` and plain data, so that it can live in a static
/// or in the page a forked child reports through.
#[repr(C)]
pub struct SampleBuffer {
    /// Samples kept of this run, oldest first.
    taken: AtomicU32,
    /// Ticks of this run, and every how many ticks one is sampled.
    ticks: AtomicU32,
    stride: AtomicU32,
    /// Ticks still to let go by unsampled, paying for the last walk.
    skip: AtomicU32,
    lens: [AtomicU32; SAMPLES],
    addresses: UnsafeCell<[[usize; SAMPLE_FRAMES]; SAMPLES]>,
    /// Per frame: which function entry counter (its index in the PC table's entries), and
    /// the counter's value when the sample was taken.
    entries: UnsafeCell<[[u32; SAMPLE_FRAMES]; SAMPLES]>,
    counts: UnsafeCell<[[u8; SAMPLE_FRAMES]; SAMPLES]>,
    /// Per frame: the wrapping sum of the counters of all its function's blocks.
    bodies: UnsafeCell<[[u32; SAMPLE_FRAMES]; SAMPLES]>,
}

/// One stack sample: per frame, its return address and, when known, the index of its
/// function's entry counter with the counter's value at the time. A stack deeper than
/// [`SAMPLE_FRAMES`] keeps its innermost and its outermost frames, the middle left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    /// Innermost first.
    pub frames: Vec<SampledFrame>,
}

/// A frame of a [`Sample`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampledFrame {
    /// The return address (the program counter for the innermost frame).
    pub address: usize,
    /// `(entry, count)`: see [`SampleBuffer`].
    pub entry: Option<(u32, u8)>,
    /// The sum of the function's block counters (meaningful where `entry` is known): it moves
    /// whenever any code of the function itself ran.
    pub body: u32,
}

// SAFETY: only the sampled thread writes (from its own signal handler), and it is read when
// that thread is stopped in a fault handler or has ended.
unsafe impl Sync for SampleBuffer {}

impl SampleBuffer {
    /// An empty buffer.
    pub const fn new() -> Self {
        Self {
            taken: AtomicU32::new(0),
            ticks: AtomicU32::new(0),
            stride: AtomicU32::new(1),
            skip: AtomicU32::new(0),
            lens: [const { AtomicU32::new(0) }; SAMPLES],
            addresses: UnsafeCell::new([[0; SAMPLE_FRAMES]; SAMPLES]),
            entries: UnsafeCell::new([[NO_ENTRY; SAMPLE_FRAMES]; SAMPLES]),
            counts: UnsafeCell::new([[0; SAMPLE_FRAMES]; SAMPLES]),
            bodies: UnsafeCell::new([[0; SAMPLE_FRAMES]; SAMPLES]),
        }
    }

    /// Forgets the samples of the previous run.
    pub fn clear(&self) {
        self.taken.store(0, Ordering::Relaxed);
        self.ticks.store(0, Ordering::Relaxed);
        self.stride.store(1, Ordering::Relaxed);
        self.skip.store(0, Ordering::Relaxed);
    }

    /// One tick of the timer: a sample when it is due, making room first when the buffer is
    /// full. Async-signal-safe.
    ///
    /// # Safety
    /// Only the sampled thread may call it, and not while another call of it is running.
    unsafe fn tick(&self, tick: Duration) {
        let ticks = self.ticks.load(Ordering::Relaxed) + 1;
        self.ticks.store(ticks, Ordering::Relaxed);
        let skip = self.skip.load(Ordering::Relaxed);
        if skip > 0 {
            self.skip.store(skip - 1, Ordering::Relaxed);
            return;
        }
        let mut stride = self.stride.load(Ordering::Relaxed);
        if !ticks.is_multiple_of(stride) {
            return;
        }
        if self.taken.load(Ordering::Relaxed) as usize == SAMPLES {
            // SAFETY: as for `record`.
            unsafe { self.thin_out() };
            stride *= 2;
            self.stride.store(stride, Ordering::Relaxed);
            if !ticks.is_multiple_of(stride) {
                return;
            }
        }
        let began = cpu_now();
        // SAFETY: as above.
        unsafe { self.record(began, tick) };
        let took = cpu_now().saturating_sub(began);
        let tick_nanos = tick.as_nanos().max(1) as u64;
        let owed =
            took.saturating_mul(10 - SAMPLING_SHARE_TENTHS) / SAMPLING_SHARE_TENTHS / tick_nanos;
        self.skip
            .store(owed.min(u32::MAX as u64) as u32, Ordering::Relaxed);
    }

    /// Keeps the samples of even index (the first among them), moved to the front.
    ///
    /// # Safety
    /// As for [`Self::tick`].
    unsafe fn thin_out(&self) {
        // SAFETY: this thread is the only writer (see the type's documentation).
        let (addresses, entries, counts, bodies) = unsafe {
            (
                &mut *self.addresses.get(),
                &mut *self.entries.get(),
                &mut *self.counts.get(),
                &mut *self.bodies.get(),
            )
        };
        for k in 0..SAMPLES / 2 {
            addresses[k] = addresses[2 * k];
            entries[k] = entries[2 * k];
            counts[k] = counts[2 * k];
            bodies[k] = bodies[2 * k];
            let len = self.lens[2 * k].load(Ordering::Relaxed);
            self.lens[k].store(len, Ordering::Relaxed);
        }
        self.taken.store((SAMPLES / 2) as u32, Ordering::Release);
    }

    /// Walks the current stack into the next slot, for at most `budget` from `began`: a walk
    /// that runs out of time keeps only the innermost frames it saw (the frames it reached
    /// last are from the middle of the stack, not its bottom).
    ///
    /// # Safety
    /// As for [`Self::tick`], and there is room.
    unsafe fn record(&self, began: u64, budget: Duration) {
        let budget = budget.as_nanos().min(u64::MAX as u128) as u64;
        let mut truncated = false;
        let taken = self.taken.load(Ordering::Relaxed);
        let slot = taken as usize;
        // SAFETY: this thread is the only writer (see the type's documentation).
        let (frames, entries, counts, bodies) = unsafe {
            (
                &mut (*self.addresses.get())[slot],
                &mut (*self.entries.get())[slot],
                &mut (*self.counts.get())[slot],
                &mut (*self.bodies.get())[slot],
            )
        };
        let index = ENTRY_INDEX.get().and_then(Option::as_ref);
        // The innermost half of the slot as the walk goes; the outermost half as a ring that
        // always holds the last frames walked, put in order once the walk has ended. A deep
        // recursion fills the innermost half, and the loop around it is near the bottom.
        const HALF: usize = SAMPLE_FRAMES / 2;
        let mut walked = 0usize;
        let mut store = |k: usize, address: usize| {
            frames[k] = address;
            match index.and_then(|index| index.entry_of(address)) {
                Some((entry, count, body)) => {
                    entries[k] = entry;
                    counts[k] = count;
                    bodies[k] = body;
                }
                None => entries[k] = NO_ENTRY,
            }
        };
        // SAFETY: no allocation and no lock; the thread walks its own stack.
        unsafe {
            backtrace::trace_unsynchronized(|frame| {
                let address = frame.ip() as usize;
                if walked < HALF {
                    store(walked, address);
                } else {
                    store(HALF + (walked - HALF) % HALF, address);
                }
                walked += 1;
                if walked.is_multiple_of(WALK_CLOCK_EVERY)
                    && cpu_now().saturating_sub(began) > budget
                {
                    truncated = true;
                }
                walked < MAX_WALK && !truncated
            });
        }
        let n = if truncated {
            walked.min(HALF)
        } else {
            walked.min(SAMPLE_FRAMES)
        };
        if walked > SAMPLE_FRAMES && !truncated {
            // The ring's oldest frame is at the next write position: rotate it to the front.
            let start = HALF + (walked - HALF) % HALF;
            frames[HALF..].rotate_left(start - HALF);
            entries[HALF..].rotate_left(start - HALF);
            counts[HALF..].rotate_left(start - HALF);
            bodies[HALF..].rotate_left(start - HALF);
        }
        self.lens[slot].store(n as u32, Ordering::Relaxed);
        self.taken.store(taken + 1, Ordering::Release);
    }

    /// Each sample kept, oldest first.
    pub fn taken(&self) -> Vec<Sample> {
        let taken = (self.taken.load(Ordering::Acquire) as usize).min(SAMPLES);
        (0..taken)
            .map(|slot| {
                let len = (self.lens[slot].load(Ordering::Relaxed) as usize).min(SAMPLE_FRAMES);
                // SAFETY: the sampled thread is stopped or gone (see the type's documentation).
                let (addresses, entries, counts, bodies) = unsafe {
                    (
                        &(*self.addresses.get())[slot],
                        &(*self.entries.get())[slot],
                        &(*self.counts.get())[slot],
                        &(*self.bodies.get())[slot],
                    )
                };
                Sample {
                    frames: (0..len)
                        .map(|k| SampledFrame {
                            address: addresses[k],
                            entry: (entries[k] != NO_ENTRY).then_some((entries[k], counts[k])),
                            body: bodies[k],
                        })
                        .collect(),
                }
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
/// The timer's period in nanoseconds, set by [`start`].
static TICK_NANOS: AtomicU64 = AtomicU64::new(1_000_000);

/// Nanoseconds of this thread's CPU time. Async-signal-safe (`clock_gettime` is).
///
/// The walks are paid for on the clock the timer counts: on a loaded machine the wall clock
/// also holds the time the process waited for a core, and a walk interrupted by the scheduler
/// once made the handler skip most of a hang's ticks, so that the hang kept one sample and was
/// named after whatever helper the loop was in (one bug, two buckets, in CI).
fn cpu_now() -> u64 {
    let mut now: libc::timespec = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes only `now`.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    (now.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(now.tv_nsec as u64)
}

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
        let tick = Duration::from_nanos(TICK_NANOS.load(Ordering::Relaxed));
        // SAFETY: we are the sampled thread, and the handler does not nest (SA_NODEFER unset).
        unsafe { buffer().tick(tick) };
    }
}

/// The function entry blocks of the target, sorted by address, with their counters: built once,
/// before any sample (it allocates), and inherited by forked children.
struct EntryIndex {
    /// Per function, by address of its entry block: that address, and its counters (the
    /// entry block's first, then the function's other blocks).
    entries: Vec<(usize, *const u8, u32)>,
}

/// Block counters summed per frame at most: a sample must stay cheap for a huge function.
const MAX_BODY_COUNTERS: u32 = 4096;

// SAFETY: the counters are the target's own, read (never written) by the sampled thread.
unsafe impl Sync for EntryIndex {}
unsafe impl Send for EntryIndex {}

static ENTRY_INDEX: OnceLock<Option<EntryIndex>> = OnceLock::new();

impl EntryIndex {
    /// From the PC table and the counter regions, when they are laid out alike (one counter
    /// per table entry); `None` otherwise, and samples then carry no counters.
    fn build() -> Option<EntryIndex> {
        let table = crate::target::pc_table::entries();
        // SAFETY: the regions are registered before `main` and never change afterwards.
        let maps = unsafe { &*libafl_targets::counters_maps_ptr() };
        // Each counter with the region it lies in: a function's blocks are the table entries
        // after its entry up to the next function's, within one region.
        let mut counters: Vec<(*const u8, usize)> = Vec::with_capacity(table.len());
        for (region, map) in maps.iter().enumerate() {
            let slice: &[u8] = &map[..];
            counters.extend((0..slice.len()).map(|i| (slice[i..].as_ptr(), region)));
        }
        if table.is_empty() || counters.len() != table.len() {
            return None;
        }
        let mut entries: Vec<(usize, *const u8, u32)> = Vec::new();
        for (k, entry) in table.iter().enumerate() {
            if !entry.function_entry {
                continue;
            }
            let (counter, region) = counters[k];
            let blocks = 1
                + (k + 1..table.len())
                    .take_while(|&j| !table[j].function_entry && counters[j].1 == region)
                    .count();
            entries.push((entry.pc, counter, (blocks as u32).min(MAX_BODY_COUNTERS)));
        }
        entries.sort_unstable_by_key(|&(pc, _, _)| pc);
        Some(EntryIndex { entries })
    }

    /// The entry block at or before `address` (a return address points past its call, so one
    /// byte before it is inside the calling function), its counter now, and the sum of the
    /// function's block counters now. Async-signal-safe.
    fn entry_of(&self, address: usize) -> Option<(u32, u8, u32)> {
        let at = self
            .entries
            .partition_point(|&(pc, _, _)| pc <= address.wrapping_sub(1));
        let k = at.checked_sub(1)?;
        let (_, counter, blocks) = self.entries[k];
        // SAFETY: counters of the target (one region holds them all), which live as long as
        // the process.
        let (count, body) = unsafe {
            let count = std::ptr::read_volatile(counter);
            let body = (0..blocks as usize).fold(0u32, |sum, j| {
                sum.wrapping_add(u32::from(std::ptr::read_volatile(counter.add(j))))
            });
            (count, body)
        };
        Some((k as u32, count, body))
    }
}

/// The stack a fault stopped the target in (return addresses, innermost first, as
/// [`SampledFrame::address`]), as one sample with its counters as they are now. A run that
/// ended before the timer's first tick has no sample of its own, and its hang would be named
/// after whatever frame the stack happens to end in: with this one, after the target's own
/// instrumented code.
pub fn sample_at(addresses: &[usize]) -> Sample {
    let index = ENTRY_INDEX.get().and_then(Option::as_ref);
    Sample {
        frames: addresses
            .iter()
            .take(SAMPLE_FRAMES)
            .map(|&address| {
                let found = index.and_then(|index| index.entry_of(address));
                SampledFrame {
                    address,
                    entry: found.map(|(entry, count, _)| (entry, count)),
                    body: found.map_or(0, |(_, _, body)| body),
                }
            })
            .collect(),
    }
}

/// Builds the index of entry counters if it is not built yet. Call it before forking children
/// that sample, so that they inherit it; [`start`] calls it too.
pub fn prepare() {
    ENTRY_INDEX.get_or_init(EntryIndex::build);
}

/// The address of entry block `entry` (as a [`SampledFrame`] names it), to check that it is the
/// entry of the frame's own function: a frame of code without counters gets the entry of
/// whatever instrumented function precedes it.
pub fn entry_address(entry: u32) -> Option<usize> {
    let index = ENTRY_INDEX.get()?.as_ref()?;
    index.entries.get(entry as usize).map(|&(pc, _, _)| pc)
}

/// Installs the handler and starts the timer, one tick per fiftieth of `timeout` of CPU time.
/// Call it in the process that runs the target (timers do not survive `fork`).
pub fn start(timeout: Duration) {
    prepare();
    let tick = (timeout / TICKS_PER_TIMEOUT).max(Duration::from_millis(1));
    TICK_NANOS.store(tick.as_nanos() as u64, Ordering::Relaxed);
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
pub fn taken() -> Vec<Sample> {
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
                .all(|s| !s.frames.is_empty() && s.frames.len() <= SAMPLE_FRAMES)
        );
        assert_eq!(buffer.taken().len(), during.len(), "no sample after end()");
        begin();
        assert!(buffer.taken().is_empty(), "begin() forgets the last run");
        end();
    }

    #[inline(never)]
    fn tick_at_depth(buffer: &SampleBuffer, depth: u32) {
        tick_at_depth_every(buffer, depth, Duration::from_secs(1));
    }

    #[inline(never)]
    fn tick_at_depth_every(buffer: &SampleBuffer, depth: u32, tick: Duration) {
        if depth == 0 {
            // SAFETY: this thread is the only one that ticks the buffer.
            unsafe { buffer.tick(tick) };
        } else {
            tick_at_depth_every(buffer, depth - 1, tick);
            std::hint::black_box(depth);
        }
    }

    #[test]
    fn a_walk_longer_than_a_tick_keeps_the_innermost_frames_and_pays_in_skipped_ticks() {
        let buffer = Box::leak(Box::new(SampleBuffer::new()));
        let shared: &'static SampleBuffer = buffer;
        std::thread::Builder::new()
            .stack_size(512 << 20)
            .spawn(move || tick_at_depth_every(shared, 400_000, Duration::from_micros(50)))
            .unwrap()
            .join()
            .unwrap();
        let sample = &buffer.taken()[0];
        assert_eq!(
            sample.frames.len(),
            SAMPLE_FRAMES / 2,
            "only the innermost half"
        );
        let skip = buffer.skip.load(Ordering::Relaxed);
        assert!(skip >= 9, "a walk of at least a tick owes nine: {skip}");
        let ticks_before = buffer.ticks.load(Ordering::Relaxed);
        for _ in 0..skip {
            tick_at_depth(buffer, 0);
        }
        assert_eq!(buffer.taken().len(), 1, "the owed ticks take no sample");
        tick_at_depth(buffer, 0);
        assert_eq!(buffer.taken().len(), 2, "then sampling goes on");
        assert_eq!(
            buffer.ticks.load(Ordering::Relaxed),
            ticks_before + skip + 1
        );
    }

    #[test]
    fn a_full_buffer_keeps_its_first_sample_and_samples_less_often() {
        let buffer = SampleBuffer::new();
        tick_at_depth(&buffer, 30);
        let first = buffer.taken()[0].frames.len();
        for _ in 0..300 {
            tick_at_depth(&buffer, 0);
        }
        let kept = buffer.taken();
        assert!(
            (SAMPLES / 2..=SAMPLES).contains(&kept.len()),
            "{}",
            kept.len()
        );
        assert_eq!(kept[0].frames.len(), first, "the first sample stays");
        assert!(kept[1..].iter().all(|s| s.frames.len() < first));
        assert!(buffer.stride.load(Ordering::Relaxed) >= 16);
        buffer.clear();
        assert!(buffer.taken().is_empty());
    }

    #[test]
    fn a_deep_stack_keeps_its_innermost_and_outermost_frames() {
        let buffer = SampleBuffer::new();
        tick_at_depth(&buffer, 2000);
        let sample = &buffer.taken()[0];
        assert_eq!(sample.frames.len(), SAMPLE_FRAMES);
        // Raw names: the engine's own frames are machinery to the fault descriptions.
        let names = |frames: &[SampledFrame]| -> Vec<String> {
            let mut names = Vec::new();
            for frame in frames {
                backtrace::resolve(frame.address as *mut std::ffi::c_void, |symbol| {
                    names.push(symbol.name().map(|n| format!("{n:#}")).unwrap_or_default());
                });
            }
            names
        };
        let outermost = names(&sample.frames[SAMPLE_FRAMES / 2..]);
        assert!(
            outermost
                .iter()
                .any(|f| f.contains("a_deep_stack_keeps_its_innermost_and_outermost_frames")),
            "the frames below the recursion: {outermost:?}"
        );
        let innermost = names(&sample.frames[..SAMPLE_FRAMES / 2]);
        assert!(
            innermost.iter().any(|f| f.contains("tick_at_depth")),
            "{innermost:?}"
        );
    }
}
