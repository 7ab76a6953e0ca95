//! The target's edge counters, read once per execution into a short list of hits.

use std::borrow::Cow;

use libafl::executors::ExitKind;
use libafl::observers::Observer;
use libafl_bolts::{Error, Named, ToSliceMut};
use serde::{Deserialize, Serialize};

/// One counter region registered by instrumented code.
#[derive(Clone, Copy, Debug)]
struct Region {
    start: *mut u8,
    len: usize,
}

/// One edge the last execution took, with its hit count class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hit {
    /// Index over all regions, in registration order.
    pub edge: u32,
    /// AFL's hit-count class (1, 2, 4, ... 128): loops that run a different number of times
    /// count as different behaviour, but 40 and 41 iterations do not.
    pub class: u8,
}

/// Reads the SanitizerCoverage 8-bit counters of the code under test.
///
/// A large compiler has tens of thousands of counters but one input touches a few hundred, so
/// the observer scans the map once after each run, keeps only the hit entries (with their
/// count classes) and clears exactly the words it found non-zero. Everything downstream
/// (novelty, ownership, the scheduler) then works on the short list instead of the whole map,
/// and there is no full-map reset before the next run. A full clear happens only at start-up,
/// because the counters may hold hits from code that ran before the fuzzer took over.
#[derive(Debug, Serialize, Deserialize)]
pub struct EdgeObserver {
    #[serde(skip)]
    regions: Vec<Region>,
    #[serde(skip)]
    hits: Vec<Hit>,
    size: usize,
}

impl EdgeObserver {
    pub const NAME: &'static str = "edges";

    /// Takes the counter regions registered in this process (see
    /// `libafl_targets::COUNTERS_MAPS`): the target's own counters only, since the rustc
    /// wrapper instruments nothing else.
    pub fn from_registered_counters() -> Self {
        // SAFETY: the regions are registered by module constructors before `main` and never
        // change afterwards; the fuzzer is the only code that touches them besides the
        // instrumented target, which runs on this thread.
        let maps = unsafe { &mut *libafl_targets::counters_maps_ptr_mut() };
        let regions: Vec<Region> = maps
            .iter_mut()
            .map(|m| {
                let slice = m.to_slice_mut();
                Region {
                    start: slice.as_mut_ptr(),
                    len: slice.len(),
                }
            })
            .collect();
        let size = regions.iter().map(|r| r.len).sum();
        let mut observer = Self {
            regions,
            hits: Vec::new(),
            size,
        };
        observer.clear_all();
        observer
    }

    /// Number of counters: the size of the coverage space.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The edges of the last execution, in index order.
    pub fn hits(&self) -> &[Hit] {
        &self.hits
    }

    fn clear_all(&mut self) {
        for region in &self.regions {
            // SAFETY: see `from_registered_counters`.
            unsafe { std::ptr::write_bytes(region.start, 0, region.len) };
        }
    }

    /// Collects the non-zero counters into `hits` and zeroes them.
    pub fn harvest(&mut self) {
        self.hits.clear();
        let mut base = 0u32;
        for region in &self.regions {
            // SAFETY: see `from_registered_counters`.
            let counters = unsafe { std::slice::from_raw_parts_mut(region.start, region.len) };
            collect_hits(counters, base, &mut self.hits);
            base += region.len as u32;
        }
    }
}

/// Scans 32 bytes at a time: almost all of them are zero, and testing four words at once lets
/// the compiler vectorize the common case.
fn collect_hits(counters: &mut [u8], base: u32, hits: &mut Vec<Hit>) {
    const BLOCK: usize = 32;
    let mut blocks = counters.chunks_exact_mut(BLOCK);
    let mut offset = 0u32;
    for block in &mut blocks {
        let word = |i: usize| u64::from_ne_bytes(block[i..i + 8].try_into().expect("8 bytes"));
        if word(0) | word(8) | word(16) | word(24) != 0 {
            collect_bytes(block, base + offset, hits);
            block.fill(0);
        }
        offset += BLOCK as u32;
    }
    let rest = blocks.into_remainder();
    collect_bytes(rest, base + offset, hits);
    rest.fill(0);
}

fn collect_bytes(bytes: &[u8], base: u32, hits: &mut Vec<Hit>) {
    for (i, &count) in bytes.iter().enumerate() {
        if count != 0 {
            hits.push(Hit {
                edge: base + i as u32,
                class: count_class(count),
            });
        }
    }
}

/// AFL's buckets: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128-255, as one bit each.
pub fn count_class(count: u8) -> u8 {
    match count {
        0 => 0,
        1 => 1,
        2 => 2,
        3 => 4,
        4..=7 => 8,
        8..=15 => 16,
        16..=31 => 32,
        32..=127 => 64,
        128..=255 => 128,
    }
}

impl Named for EdgeObserver {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed(EdgeObserver::NAME);
        &NAME
    }
}

impl<I, S> Observer<I, S> for EdgeObserver {
    fn post_exec(
        &mut self,
        _state: &mut S,
        _input: &I,
        _exit_kind: &ExitKind,
    ) -> Result<(), Error> {
        self.harvest();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_every_nonzero_counter_once_and_clears_the_map() {
        let mut map = vec![0u8; 100];
        map[0] = 1;
        map[31] = 3;
        map[33] = 200;
        map[99] = 9; // in the remainder after the last full block
        let mut hits = Vec::new();
        collect_hits(&mut map, 1000, &mut hits);
        assert_eq!(
            hits,
            vec![
                Hit {
                    edge: 1000,
                    class: 1
                },
                Hit {
                    edge: 1031,
                    class: 4
                },
                Hit {
                    edge: 1033,
                    class: 128
                },
                Hit {
                    edge: 1099,
                    class: 16
                },
            ]
        );
        assert!(map.iter().all(|&c| c == 0));
    }

    #[test]
    fn count_classes_are_monotone_single_bits() {
        let mut last = 0;
        for c in 1..=255u8 {
            let class = count_class(c);
            assert_eq!(class.count_ones(), 1);
            assert!(class >= last);
            last = class;
        }
    }
}

/// The observer always reports which edges were hit ([`EdgeObserver::hits`]), and the corpus
/// feedback stores them as `MapIndexesMetadata`, which is what LibAFL's minimizer schedulers
/// require of an index-tracking observer.
impl libafl::observers::CanTrack for EdgeObserver {
    type WithIndexTracking = Self;
    type WithNoveltiesTracking = Self;
    const INDICES: bool = true;
    const NOVELTIES: bool = false;

    fn track_indices(self) -> Self {
        self
    }

    fn track_novelties(self) -> Self {
        self
    }
}
