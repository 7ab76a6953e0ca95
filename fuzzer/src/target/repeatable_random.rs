//! The bytes a target binary's `getrandom(2)` returns: the same bytes on every call.
//!
//! Rust's `HashMap` seeds each thread's hasher from `getrandom`, and a compiler that builds a
//! hash map takes different branches under different seeds: its probes collide elsewhere, its
//! iteration order changes what it checks first. Measured on starlark-rust, two replays of the
//! same 523-input corpus disagreed on the edges of 391 inputs, by 1 to 10 edges each; with
//! fixed seeds (and the rest of [`ForkedRunner`](crate::replay::ForkedRunner)'s isolation) they
//! agree on every input. Coverage that changes between runs of one input makes a reducer keep
//! inputs whole ("no longer has the property") and every replayed figure wobble.
//!
//! `target_main!` defines the C symbol `getrandom` in the target binary, which the static
//! linker binds the standard library's call to, and forwards here. Every call gets the same
//! stream of bytes, so the keys a thread draws do not depend on what ran before it. Nothing
//! in a fuzzing binary needs unpredictable bytes: the fuzzer's own randomness comes from
//! `--seed`.

/// Fills `len` bytes at `buffer` with the fixed stream and returns `len`, as `getrandom(2)`
/// does when it succeeds.
///
/// # Safety
/// `buffer` must be valid for `len` bytes of writes.
pub unsafe fn fill(buffer: *mut u8, len: usize) -> isize {
    let mut state = SEED;
    let mut written = 0;
    while written < len {
        let word = splitmix64(&mut state).to_le_bytes();
        let n = (len - written).min(word.len());
        // SAFETY: `written + n <= len`, and the caller vouches for `len` bytes.
        unsafe { std::ptr::copy_nonoverlapping(word.as_ptr(), buffer.add(written), n) };
        written += n;
    }
    len.min(isize::MAX as usize) as isize
}

/// The stream's seed: any constant will do.
const SEED: u64 = 0xB025_A100_0000_0001;

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_gives_the_same_bytes_and_lengths_share_a_prefix() {
        let mut a = [0u8; 16];
        let mut b = [0u8; 16];
        let mut c = [0u8; 5];
        unsafe {
            assert_eq!(fill(a.as_mut_ptr(), a.len()), 16);
            assert_eq!(fill(b.as_mut_ptr(), b.len()), 16);
            assert_eq!(fill(c.as_mut_ptr(), c.len()), 5);
        }
        assert_eq!(a, b);
        assert_eq!(c, a[..5]);
        assert_ne!(a, [0u8; 16], "the stream is not all zeros");
    }
}
