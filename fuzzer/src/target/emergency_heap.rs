//! A bump allocator for the fault handlers, for when a signal interrupted the system allocator.
//!
//! LibAFL's timeout and crash handlers run inside the signal handler and allocate: they run the
//! observers and feedbacks and serialize the state for the next process. If the signal arrived
//! while the interrupted code was inside `malloc` or `free` (a hang's timer fires wherever the
//! target is, and a compiler spends much of its time allocating), glibc's heap is half-updated,
//! and in a single-threaded process nothing stops the handler from re-entering it. glibc then
//! aborts with "malloc assertion failure in sysmalloc", the abort lands in the crash handler,
//! which allocates again, and LibAFL gives the whole run up ("crashed inside a crash handler").
//!
//! [`MemoryLimit`](super::MemoryLimit) knows when the system allocator is running on this
//! thread. When a fault signal interrupts it, the signal guard (`fuzz::signal_guard`) turns
//! this heap on for the duration of the handler: allocations come from a static arena and
//! frees become no-ops, so the system heap is not touched until the interrupted call resumes
//! (or the process exits, which is what a real fault handler does).

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Room for what a fault handler allocates: the input, the observers' records, the serialized
/// fuzzer state (corpus entries live on disk; the state holds metadata). Untouched pages of a
/// static zeroed array cost no memory.
const ARENA_BYTES: usize = 256 << 20;

#[repr(C, align(4096))]
struct Arena(UnsafeCell<[u8; ARENA_BYTES]>);

// SAFETY: bytes are handed out by an atomic bump pointer, each range to one caller only.
unsafe impl Sync for Arena {}

static ARENA: Arena = Arena(UnsafeCell::new([0; ARENA_BYTES]));
static NEXT: AtomicUsize = AtomicUsize::new(0);
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Whether allocations are currently served from the arena.
#[inline]
pub fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// Serves allocations from the arena until [`leave`]. Returns whether it was already on, so
/// nested handlers leave it as they found it.
pub fn enter() -> bool {
    ACTIVE.swap(true, Ordering::SeqCst)
}

/// Back to the system allocator (the handler returned: the interrupted call may go on).
pub fn leave(was_active: bool) {
    ACTIVE.store(was_active, Ordering::SeqCst);
}

fn base() -> usize {
    ARENA.0.get() as usize
}

/// Whether `ptr` was handed out by the arena (its frees must never reach the system heap).
pub fn owns(ptr: *mut u8) -> bool {
    let p = ptr as usize;
    p >= base() && p < base() + ARENA_BYTES
}

/// `size` bytes aligned to `align`, or null when the arena is used up.
pub fn alloc(size: usize, align: usize) -> *mut u8 {
    let mut start = 0;
    let claimed = NEXT.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |next| {
        let address = (base() + next).checked_next_multiple_of(align)?;
        start = address - base();
        let end = start.checked_add(size.max(1))?;
        (end <= ARENA_BYTES).then_some(end)
    });
    match claimed {
        // SAFETY: `start + size` is within the arena, and the range was claimed by this call.
        Ok(_) => unsafe { (ARENA.0.get() as *mut u8).add(start) },
        Err(_) => std::ptr::null_mut(),
    }
}

/// A grown or shrunk copy of `ptr` (which held `old_size` bytes), in the arena. The old block
/// is left where it is: freeing it might touch the system heap.
///
/// # Safety
/// `ptr` must be valid for reads of `old_size` bytes.
pub unsafe fn realloc(ptr: *mut u8, old_size: usize, new_size: usize, align: usize) -> *mut u8 {
    let new = alloc(new_size, align);
    if !new.is_null() {
        // SAFETY: both ranges are valid for the copied length and do not overlap (the new
        // block was just claimed).
        unsafe { std::ptr::copy_nonoverlapping(ptr, new, old_size.min(new_size)) };
    }
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_out_aligned_disjoint_blocks_inside_the_arena() {
        let a = alloc(3, 1);
        let b = alloc(64, 64);
        let c = alloc(8, 8);
        assert!(owns(a) && owns(b) && owns(c));
        assert_eq!(b as usize % 64, 0);
        assert_eq!(c as usize % 8, 0);
        assert!(b as usize >= a as usize + 3, "blocks must not overlap");
        assert!(c as usize >= b as usize + 64);
        assert!(!owns(Box::into_raw(Box::new(0u64)) as *mut u8));
    }

    #[test]
    fn realloc_keeps_the_contents() {
        let a = alloc(4, 4);
        unsafe {
            a.copy_from([1u8, 2, 3, 4].as_ptr(), 4);
            let b = realloc(a, 4, 16, 4);
            assert_eq!(std::slice::from_raw_parts(b, 4), &[1, 2, 3, 4]);
        }
    }

    #[test]
    fn refuses_what_does_not_fit() {
        assert!(alloc(ARENA_BYTES + 1, 1).is_null());
    }
}
