//! A memory limit for the code under test, enforced by the global allocator.
//!
//! Why an allocator and not `setrlimit`: an address-space limit also counts the fuzzer's own
//! mappings (LibAFL's 256 MiB state page, signal stacks, the coverage map), and an allocation
//! that fails under rlimit is indistinguishable from any other abort. Counting what the target
//! allocates while it runs, and refusing the allocation that crosses the limit, attributes the
//! failure precisely: the refused allocation makes Rust abort ("memory allocation of N bytes
//! failed"), and the fault feedback reads [`tripped`] to file it as out-of-memory rather than
//! as a crash.
//!
//! Bookkeeping is per thread (the target runs on the fuzzing thread) and uses no atomic
//! read-modify-write, so it costs a few nanoseconds per allocation. `target_main!` installs
//! it; a binary that installs its own global allocator simply has no memory limit.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use super::{emergency_heap, fixed_heap};

thread_local! {
    /// Bytes allocated minus bytes freed on this thread, since it started.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// The highest [`LIVE`] reached since the last [`return_freed_peak`].
    static HIGH: Cell<isize> = const { Cell::new(0) };
    /// While armed: the live count at arming time, and the limit in bytes above it.
    static WINDOW: Cell<Option<(isize, isize)>> = const { Cell::new(None) };
    static TRIPPED: Cell<bool> = const { Cell::new(false) };
    static INSTALLED: Cell<bool> = const { Cell::new(false) };
    /// Set while this thread is inside the system allocator (see [`in_system_allocator`]).
    static IN_SYSTEM: Cell<bool> = const { Cell::new(false) };
}

/// Runs `call` (a call into the system allocator) with [`IN_SYSTEM`] set.
#[inline]
fn in_system<T>(call: impl FnOnce() -> T) -> T {
    let _ = IN_SYSTEM.try_with(|flag| flag.set(true));
    let result = call();
    let _ = IN_SYSTEM.try_with(|flag| flag.set(false));
    result
}

/// Whether the current thread was inside `malloc`, `free` or `realloc` when this is called:
/// a signal handler asks it to learn whether the heap may be half-updated (see
/// `emergency_heap`). Reading a const-initialized thread-local is a plain memory access,
/// safe in a signal handler.
pub fn in_system_allocator() -> bool {
    IN_SYSTEM.try_with(Cell::get).unwrap_or(false)
}

/// The system allocator with accounting. Install with
/// `#[global_allocator] static A: MemoryLimit = MemoryLimit;` (done by `target_main!`).
pub struct MemoryLimit;

impl MemoryLimit {
    fn admit(size: usize) -> bool {
        let size = size as isize;
        LIVE.try_with(|live| {
            INSTALLED.set(true);
            let now = live.get() + size;
            if let Some((base, limit)) = WINDOW.get()
                && now - base > limit
            {
                // Refuse once and stop enforcing: what runs next is Rust's out-of-memory
                // report and the fault handlers, which must be able to allocate.
                TRIPPED.set(true);
                WINDOW.set(None);
                return false;
            }
            live.set(now);
            if now > HIGH.get() {
                HIGH.set(now);
            }
            true
        })
        .unwrap_or(true)
    }

    fn release(size: usize) {
        let _ = LIVE.try_with(|live| live.set(live.get() - size as isize));
    }

    /// `realloc` where the fixed heap is involved (the block is one of its own, or new blocks
    /// must come from it): keep the block if its size class still fits, else allocate anew
    /// (from whichever heap serves allocations now), copy and free the old block.
    ///
    /// # Safety
    /// As `GlobalAlloc::realloc`.
    unsafe fn move_block(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if fixed_heap::owns(ptr) && fixed_heap::fits(layout.size(), layout.align(), new_size) {
            let grow = new_size.saturating_sub(layout.size());
            if grow > 0 && !Self::admit(grow) {
                return std::ptr::null_mut();
            }
            Self::release(layout.size().saturating_sub(new_size));
            return ptr;
        }
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
            return std::ptr::null_mut();
        };
        // SAFETY: a non-zero-size layout (realloc's contract), then a copy of the bytes both
        // blocks hold and the old block freed with its own layout.
        unsafe {
            let new = self.alloc(new_layout);
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            new
        }
    }
}

// SAFETY: every method forwards to `System` with the same arguments, or, while a fault handler
// runs on an interrupted system allocator, to the emergency arena, or, while a forked run is
// being made repeatable, to the fixed heap; blocks of the two arenas are never passed to
// `System`, which `owns` tells apart by address. Refusing an allocation by returning null is
// allowed by the `GlobalAlloc` contract.
unsafe impl GlobalAlloc for MemoryLimit {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if emergency_heap::active() {
            return emergency_heap::alloc(layout.size(), layout.align());
        }
        if !Self::admit(layout.size()) {
            return std::ptr::null_mut();
        }
        if fixed_heap::active()
            && let Some((ptr, _)) = in_system(|| fixed_heap::alloc(layout.size(), layout.align()))
        {
            return ptr;
        }
        let ptr = in_system(|| unsafe { System.alloc(layout) });
        if ptr.is_null() {
            Self::release(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if emergency_heap::active() {
            // The arena is zeroed and never reused.
            return emergency_heap::alloc(layout.size(), layout.align());
        }
        if !Self::admit(layout.size()) {
            return std::ptr::null_mut();
        }
        if fixed_heap::active()
            && let Some((ptr, fresh)) =
                in_system(|| fixed_heap::alloc(layout.size(), layout.align()))
        {
            if !fresh {
                // SAFETY: the block holds at least `layout.size()` bytes.
                unsafe { std::ptr::write_bytes(ptr, 0, layout.size()) };
            }
            return ptr;
        }
        let ptr = in_system(|| unsafe { System.alloc_zeroed(layout) });
        if ptr.is_null() {
            Self::release(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if emergency_heap::active() || emergency_heap::owns(ptr) {
            return;
        }
        Self::release(layout.size());
        if fixed_heap::owns(ptr) {
            // SAFETY: the block came from the fixed heap with this layout.
            in_system(|| unsafe { fixed_heap::dealloc(ptr, layout.size(), layout.align()) });
            return;
        }
        in_system(|| unsafe { System.dealloc(ptr, layout) })
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if emergency_heap::active() || emergency_heap::owns(ptr) {
            // SAFETY: `ptr` holds `layout.size()` bytes, by the `GlobalAlloc` contract.
            return unsafe {
                emergency_heap::realloc(ptr, layout.size(), new_size, layout.align())
            };
        }
        if fixed_heap::owns(ptr) || fixed_heap::active() {
            // SAFETY: forwarded under the `GlobalAlloc` contract of `realloc`.
            return unsafe { self.move_block(ptr, layout, new_size) };
        }
        let grow = new_size.saturating_sub(layout.size());
        if grow > 0 && !Self::admit(grow) {
            return std::ptr::null_mut();
        }
        let new = in_system(|| unsafe { System.realloc(ptr, layout, new_size) });
        if new.is_null() {
            Self::release(grow);
        } else if new_size < layout.size() {
            Self::release(layout.size() - new_size);
        }
        new
    }
}

/// Starts counting against `limit` bytes on this thread; clears [`tripped`].
pub fn arm(limit: usize) {
    TRIPPED.set(false);
    let base = LIVE.with(Cell::get);
    WINDOW.set(Some((base, limit.min(isize::MAX as usize) as isize)));
}

/// Stops enforcing the limit (the code under test returned or crashed).
pub fn disarm() {
    WINDOW.set(None);
}

/// Whether an allocation was refused since the last [`arm`].
pub fn tripped() -> bool {
    TRIPPED.get()
}

/// Bytes this thread freed since its highest live count (since the last
/// [`return_freed_peak`]): how much of a transient peak the allocator may still hold.
pub fn freed_since_peak() -> usize {
    let live = LIVE.try_with(Cell::get).unwrap_or(0);
    let high = HIGH.try_with(Cell::get).unwrap_or(0);
    (high - live).max(0) as usize
}

/// Hands the free pages of every arena back to the system and starts a new peak.
///
/// Why: glibc keeps a freed peak mapped. Freeing a large block raises its trim threshold (up to
/// 64 MiB), and a small block still live above a freed run keeps the run from being trimmed,
/// so one input that made the target or the engine allocate 20 MB leaves the process 20 MB
/// larger for the rest of an overnight run. `malloc_trim` releases the free pages wherever they
/// lie; it walks the free lists, so it is for after a peak, not after every execution.
pub fn return_freed_peak() {
    // Marked as inside the allocator: the fuzzing loop calls this within the execution's time
    // budget, and a timeout that lands here must find the heap's locks held, as in `malloc`.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers and is thread-safe.
    in_system(|| unsafe {
        libc::malloc_trim(0);
    });
    let live = LIVE.try_with(Cell::get).unwrap_or(0);
    let _ = HIGH.try_with(|high| high.set(live));
}

/// When the fuzzing loop gives a freed peak back: after an execution, once at least
/// [`FreedPeak::THRESHOLD`] bytes were freed below the peak, and at most once a second, so a
/// target that allocates and frees a lot on every input costs at most one trim a second.
pub struct FreedPeak {
    last: std::time::Instant,
    /// How many times [`FreedPeak::after_execution`] gave memory back.
    pub returned: u64,
}

impl Default for FreedPeak {
    fn default() -> Self {
        Self {
            last: std::time::Instant::now(),
            returned: 0,
        }
    }
}

impl FreedPeak {
    /// 8 MiB: well above what an ordinary input allocates (a few hundred kB on the bundled
    /// targets), well below what a long run's allocator would otherwise keep.
    pub const THRESHOLD: usize = 8 << 20;
    const INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

    /// Gives the freed peak back if it is large enough and the last time was long enough ago;
    /// says whether it did.
    pub fn after_execution(&mut self) -> bool {
        if freed_since_peak() < Self::THRESHOLD || self.last.elapsed() < Self::INTERVAL {
            return false;
        }
        let freed = freed_since_peak();
        return_freed_peak();
        self.last = std::time::Instant::now();
        self.returned += 1;
        tracing::debug!(freed, "gave a freed peak back to the system");
        true
    }
}

/// Whether this thread's allocations go through [`MemoryLimit`], i.e. whether a limit applies.
pub fn installed() -> bool {
    drop(Box::new(0u8));
    INSTALLED.get()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_the_allocation_that_crosses_the_limit_and_only_while_armed() {
        let small = Layout::from_size_align(1000, 8).unwrap();
        let big = Layout::from_size_align(1 << 20, 8).unwrap();
        unsafe {
            arm(10_000);
            let a = MemoryLimit.alloc(small);
            assert!(!a.is_null());
            assert!(!tripped());
            let b = MemoryLimit.alloc(big);
            assert!(b.is_null(), "1 MiB must not fit in 10 kB");
            assert!(tripped());
            // After one refusal the limit is off, so the fault path can allocate.
            let c = MemoryLimit.alloc(big);
            assert!(!c.is_null());
            MemoryLimit.dealloc(c, big);
            MemoryLimit.dealloc(a, small);
            // Re-armed, the limit applies again; disarmed, it does not.
            arm(10_000);
            assert!(MemoryLimit.alloc(big).is_null());
            disarm();
            let d = MemoryLimit.alloc(big);
            assert!(!d.is_null(), "no limit once disarmed");
            MemoryLimit.dealloc(d, big);
            arm(10);
            assert!(!tripped(), "arming clears the flag");
            disarm();
        }
    }

    /// Resident memory of this process in bytes, from `/proc/self/statm`.
    fn resident() -> usize {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
        let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
        pages * 4096
    }

    #[test]
    fn a_freed_peak_is_counted_and_given_back_to_the_system() {
        // On a thread of its own, so that its arena holds only this test's blocks.
        std::thread::spawn(|| {
            // 48 MiB in blocks under glibc's mmap threshold, so they come from the heap, each
            // followed by a small block that stays live: the freed blocks lie between live
            // ones, where glibc's own trimming (of the heap's top) never reaches them.
            let block = Layout::from_size_align(64 << 10, 8).unwrap();
            let small = Layout::from_size_align(64, 8).unwrap();
            return_freed_peak();
            unsafe {
                let mut blocks = Vec::with_capacity(768);
                let mut pins = Vec::with_capacity(768);
                for _ in 0..768 {
                    let ptr = MemoryLimit.alloc(block);
                    assert!(!ptr.is_null());
                    std::ptr::write_bytes(ptr, 1, block.size());
                    blocks.push(ptr);
                    pins.push(MemoryLimit.alloc(small));
                }
                for ptr in blocks {
                    MemoryLimit.dealloc(ptr, block);
                }
                assert!(
                    freed_since_peak() >= 48 << 20,
                    "freed {} bytes below the peak",
                    freed_since_peak()
                );
                let before = resident();
                let mut peak = FreedPeak {
                    last: std::time::Instant::now() - std::time::Duration::from_secs(2),
                    returned: 0,
                };
                assert!(peak.after_execution());
                let after = resident();
                assert_eq!(freed_since_peak(), 0, "a new peak starts");
                assert!(
                    !peak.after_execution(),
                    "nothing freed since: nothing to give back"
                );
                assert!(
                    before.saturating_sub(after) >= 32 << 20,
                    "resident {before} -> {after}: the freed 48 MiB stayed"
                );
                for pin in pins {
                    MemoryLimit.dealloc(pin, small);
                }
            }
        })
        .join()
        .unwrap();
    }
}
