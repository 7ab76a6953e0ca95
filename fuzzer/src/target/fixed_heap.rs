//! A heap at a fixed address whose every address depends only on the sequence of requests,
//! for the runs of the target that must repeat exactly.
//!
//! Compilers hash pointers (interned types, identity maps, arena values), and hash values
//! decide which branches a probe takes. In a child forked from a long-lived process, glibc's
//! heap is in whatever state the parent's history left it, so the same input runs at
//! different addresses, and covers slightly different edges, depending on what the parent did
//! before (measured on starlark-rust: 43 of 60 inputs covered other edges when replayed alone
//! than inside their corpus). [`ForkedRunner`](crate::replay::ForkedRunner) therefore builds
//! the target instance on this heap, [`freeze`]s it, and turns it on again in each child: every
//! child starts from the same heap state at the same addresses.
//!
//! The allocator is deliberately simple: power-of-two size classes with one LIFO free list
//! each, carved from one reserved region by a bump pointer. Its decisions depend on nothing
//! but the requests, which is the point; its waste (up to half of each block) does not matter
//! for a short-lived child. Requests it cannot serve (the region is full, or it could not be
//! mapped) go to the system allocator, which loses exactness but never correctness.
//!
//! Address-space randomisation needs no switching off: with the target's heap pinned here, two
//! replays of a starlark-rust corpus in two randomised processes agree on every input's edges
//! (without the fixed heap, 178 of its 523 inputs covered other edges than with it).

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// Where the region starts: far from where Linux puts the program, its heap and its mappings
/// (with or without address randomisation), so the fixed mapping does not collide with them.
const BASE: usize = 0x2000_0000_0000;
/// Reserved, not committed: pages cost memory only once a child touches them.
const SPAN: usize = 64 << 30;
/// The smallest block, 16 bytes: room for the free list's link and the usual alignment.
const MIN_CLASS: u32 = 4;
const CLASSES: usize = 48;
/// Blocks are aligned to their size up to a page; larger alignments are asked for explicitly.
const PAGE: usize = 4096;

const UNMAPPED: u8 = 0;
const MAPPED: u8 = 1;
const UNAVAILABLE: u8 = 2;

struct State {
    next: usize,
    free: [usize; CLASSES],
}

struct Shared(UnsafeCell<State>);

// SAFETY: `State` is only touched while `LOCK` is held.
unsafe impl Sync for Shared {}

static STATE: Shared = Shared(UnsafeCell::new(State {
    next: BASE,
    free: [0; CLASSES],
}));
static LOCK: AtomicBool = AtomicBool::new(false);
static ACTIVE: AtomicBool = AtomicBool::new(false);
static REGION: AtomicU8 = AtomicU8::new(UNMAPPED);

/// Whether new allocations are served from this heap.
#[inline]
pub fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// Whether `ptr` is one of this heap's blocks.
#[inline]
pub fn owns(ptr: *mut u8) -> bool {
    let p = ptr as usize;
    (BASE..BASE + SPAN).contains(&p)
}

/// Serves every allocation of every thread from this heap until [`freeze`]. Returns false,
/// and changes nothing, when the region cannot be reserved at its address.
pub fn enter() -> bool {
    if !reserve() {
        return false;
    }
    ACTIVE.store(true, Ordering::SeqCst);
    true
}

/// Back to the system allocator, leaving this heap's state as it is: blocks freed from now on
/// are not reused, so that every later [`enter`] (in a forked child) starts from this state.
pub fn freeze() {
    ACTIVE.store(false, Ordering::SeqCst);
}

fn reserve() -> bool {
    match REGION.load(Ordering::Acquire) {
        MAPPED => return true,
        UNAVAILABLE => return false,
        _ => {}
    }
    // SAFETY: an anonymous private mapping at an address nothing else uses; without
    // MAP_FIXED_NOREPLACE support the kernel treats the address as a hint, checked below.
    let mapped = unsafe {
        libc::mmap(
            BASE as *mut libc::c_void,
            SPAN,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE
                | libc::MAP_ANONYMOUS
                | libc::MAP_NORESERVE
                | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    let ok = mapped as usize == BASE;
    if !ok && mapped != libc::MAP_FAILED {
        // SAFETY: unmapping the mapping just made elsewhere.
        unsafe { libc::munmap(mapped, SPAN) };
    }
    REGION.store(if ok { MAPPED } else { UNAVAILABLE }, Ordering::Release);
    ok
}

/// The size class of a request: the power of two that holds it.
fn class(size: usize, align: usize) -> u32 {
    let need = size.max(align).max(1 << MIN_CLASS);
    need.next_power_of_two().trailing_zeros()
}

fn with_state<T>(f: impl FnOnce(&mut State) -> T) -> T {
    while LOCK
        .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        std::hint::spin_loop();
    }
    // SAFETY: the lock is held.
    let result = f(unsafe { &mut *STATE.0.get() });
    LOCK.store(false, Ordering::Release);
    result
}

/// A block for `size` bytes aligned to `align`, and whether it is fresh (never handed out, so
/// still zero); `None` when the region is full.
pub fn alloc(size: usize, align: usize) -> Option<(*mut u8, bool)> {
    let c = class(size, align);
    if c as usize >= CLASSES {
        return None;
    }
    let block = 1usize << c;
    with_state(|state| {
        let head = state.free[c as usize];
        if head != 0 {
            // SAFETY: a free block's first word holds the next free block of its class.
            state.free[c as usize] = unsafe { *(head as *const usize) };
            return Some((head as *mut u8, false));
        }
        let alignment = block.min(PAGE).max(align);
        let start = state.next.checked_add(alignment - 1)? & !(alignment - 1);
        let end = start.checked_add(block)?;
        if end > BASE + SPAN {
            return None;
        }
        state.next = end;
        Some((start as *mut u8, true))
    })
}

/// Returns a block to its class's free list while the heap is active; after [`freeze`] the
/// block is left alone, so the frozen state stays what children start from.
///
/// # Safety
/// `ptr` must come from [`alloc`] with the same `size` and `align`, and not be freed twice.
pub unsafe fn dealloc(ptr: *mut u8, size: usize, align: usize) {
    if !active() {
        return;
    }
    let c = class(size, align) as usize;
    with_state(|state| {
        // SAFETY: the block is at least 16 bytes, aligned, and no longer used by its owner.
        unsafe { *(ptr as *mut usize) = state.free[c] };
        state.free[c] = ptr as usize;
    });
}

/// Whether a block for (`size`, `align`) can keep serving `new_size` bytes.
pub fn fits(size: usize, align: usize, new_size: usize) -> bool {
    class(size, align) == class(new_size, align)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_are_powers_of_two_from_sixteen() {
        assert_eq!(class(1, 1), 4);
        assert_eq!(class(16, 8), 4);
        assert_eq!(class(17, 8), 5);
        assert_eq!(class(24, 64), 6);
        assert_eq!(class(4096, 8), 12);
        assert!(fits(100, 8, 128));
        assert!(!fits(100, 8, 129));
    }

    #[test]
    fn freed_blocks_are_reused_while_active_and_left_alone_once_frozen() {
        if !enter() {
            eprintln!("the fixed region cannot be reserved here; nothing to test");
            return;
        }
        let (a, fresh) = alloc(100, 8).unwrap();
        assert!(fresh && owns(a));
        assert_eq!(a as usize % 128, 0, "blocks are aligned to their size");
        unsafe { dealloc(a, 100, 8) };
        let (b, fresh) = alloc(120, 8).unwrap();
        assert_eq!(
            (b, fresh),
            (a, false),
            "the freed block of the class comes back"
        );
        let (c, _) = alloc(100, 8).unwrap();
        assert_ne!(c, b);
        freeze();
        unsafe { dealloc(c, 100, 8) };
        let (d, fresh) = alloc(100, 8).unwrap();
        assert!(
            fresh && d != c,
            "a block freed after the freeze is not reused"
        );
        assert!(!owns(std::ptr::null_mut()));
    }
}
