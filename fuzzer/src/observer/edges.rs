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

/// One 8-counter word of the map that the last execution touched, with every counter replaced
/// by its hit-count class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HitWord {
    /// Word index: counters `8 * index .. 8 * index + 8` over all regions.
    pub index: u32,
    /// Eight count classes, one byte each (0 for counters not hit).
    pub classes: u64,
}

impl HitWord {
    /// The edges of this word that were hit. One step per hit counter, not one test per
    /// counter: a kept entry's edge list (some 2,300 edges on starlark) is built from these,
    /// and a branch per counter on which of eight was hit is one the predictor cannot learn.
    pub fn edges(self) -> impl Iterator<Item = u32> {
        let mut hits = nonzero_bytes(self.classes);
        std::iter::from_fn(move || {
            if hits == 0 {
                return None;
            }
            let byte = hits.trailing_zeros() / 8;
            hits &= hits - 1;
            Some(self.index * 8 + byte)
        })
    }

    /// Number of edges of this word that were hit.
    pub fn count(self) -> u32 {
        nonzero_bytes(self.classes).count_ones()
    }
}

/// The top bit of each byte of `word` that is not zero, and no other bit: adding 0x7f to a
/// byte's low seven bits carries into its top bit exactly when one of them is set (and never
/// into the next byte), and the byte's own top bit is or-ed in.
pub const fn nonzero_bytes(word: u64) -> u64 {
    const LOW_SEVEN: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    (((word & LOW_SEVEN) + LOW_SEVEN) | word) & !LOW_SEVEN
}

/// Reads the SanitizerCoverage 8-bit counters of the code under test.
///
/// A large compiler has tens of thousands of counters but one input touches a few thousand,
/// clustered. After each run the observer scans the map 32 bytes at a time, and for the few
/// non-zero 8-byte words it keeps the word with its counters turned into AFL count classes,
/// then clears the word. Novelty checks downstream then compare whole words against the
/// history (one AND-NOT per eight edges), and the full map is never reset or compared. A full
/// clear happens only at start-up, because the counters may hold hits from code that ran
/// before the fuzzer took over.
#[derive(Debug, Serialize, Deserialize)]
pub struct EdgeObserver {
    #[serde(skip)]
    regions: Vec<Region>,
    #[serde(skip)]
    words: Vec<HitWord>,
    size: usize,
}

impl EdgeObserver {
    pub const NAME: &'static str = "edges";

    /// Takes the counter regions registered in this process (see
    /// `libafl_targets::COUNTERS_MAPS`): the target's own counters only, since the rustc
    /// wrapper instruments nothing else. Regions are laid end to end, each padded to a whole
    /// number of words.
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
        let size = regions.iter().map(|r| r.len.div_ceil(8) * 8).sum();
        let mut observer = Self {
            regions,
            words: Vec::new(),
            size,
        };
        observer.clear_all();
        observer
    }

    /// Number of counters (rounded up to whole words per region): the size of the coverage
    /// space.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The words of the last execution that have hits, in index order.
    pub fn words(&self) -> &[HitWord] {
        &self.words
    }

    /// The edges of the last execution, in index order.
    pub fn edges(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().flat_map(|w| w.edges())
    }

    /// [`Self::edges`] collected at their exact length: collecting the iterator itself would
    /// grow the vector several times, since a flat map cannot tell its length.
    pub fn edge_list(&self) -> Vec<usize> {
        let mut list = Vec::with_capacity(self.edge_count() as usize);
        list.extend(self.edges().map(|e| e as usize));
        list
    }

    /// Number of edges the last execution hit.
    pub fn edge_count(&self) -> u32 {
        self.words.iter().map(|w| w.count()).sum()
    }

    /// Zeroes every counter: after code that is not an input's execution ran (start-up, the
    /// target's constructor).
    pub fn clear_all(&mut self) {
        for region in &self.regions {
            // SAFETY: see `from_registered_counters`.
            unsafe { std::ptr::write_bytes(region.start, 0, region.len) };
        }
    }

    /// Collects the non-zero words into [`Self::words`] and zeroes them in the map.
    pub fn harvest(&mut self) {
        self.words.clear();
        let mut base = 0u32;
        for region in &self.regions {
            // SAFETY: see `from_registered_counters`.
            let counters = unsafe { std::slice::from_raw_parts_mut(region.start, region.len) };
            collect_words(counters, base, &mut self.words);
            base += region.len.div_ceil(8) as u32;
        }
    }
}

/// Whether the sorted (index-ordered, as [`EdgeObserver::edges`] gives them) `edges` contain every one of the sorted `required`.
pub fn covers(edges: &[u32], required: &[u32]) -> bool {
    let mut edges = edges.iter();
    required
        .iter()
        .all(|needed| edges.by_ref().any(|edge| edge == needed))
}

/// Scans a cache line (64 bytes) at a time: almost all of them are zero. Where the CPU has
/// AVX2 ([`avx2`], 32 counters per instruction) or else SSSE3 ([`ssse3`], sixteen; every
/// x86-64 made since 2008), each checked once per process, a block with hits is classified
/// by byte shuffles; the scalar path below is the reference both are tested against, and what
/// other machines run. In a starlark run the
/// non-zero blocks, not the zero ones, took two thirds of the scan's time: some thousand
/// words per execution, each eight table lookups.
fn collect_words(counters: &mut [u8], base: u32, words: &mut Vec<HitWord>) {
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { avx2::collect_words(counters, base, words) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if ssse3::available() {
        // SAFETY: the CPU has SSSE3, checked just above.
        unsafe { ssse3::collect_words(counters, base, words) };
        return;
    }
    collect_words_scalar(counters, base, words);
}

/// OR-ing four 16-byte lanes compiles to SSE2 on every x86-64, so the common case is four
/// loads, three ORs and one test.
fn collect_words_scalar(counters: &mut [u8], base: u32, words: &mut Vec<HitWord>) {
    const BLOCK: usize = 64;
    const LANE: usize = 16;
    let mut blocks = counters.chunks_exact_mut(BLOCK);
    let mut index = base;
    for block in &mut blocks {
        // A fixed-size block: the clear below becomes four stores instead of a `memset` call.
        let block: &mut [u8; BLOCK] = block.try_into().expect("a whole block");
        let lane = |i: usize| {
            u128::from_le_bytes(
                block[i * LANE..(i + 1) * LANE]
                    .try_into()
                    .expect("16 bytes"),
            )
        };
        if (lane(0) | lane(1)) | (lane(2) | lane(3)) != 0 {
            collect_nonzero(block, index, words);
            block.fill(0);
        }
        index += (BLOCK / 8) as u32;
    }
    let rest = blocks.into_remainder();
    if rest.iter().any(|&c| c != 0) {
        collect_nonzero(rest, index, words);
        rest.fill(0);
    }
}

/// Pushes the non-zero 8-counter words of `counters` (the last one possibly short, then read
/// as if padded with zeros), the first being word `index`.
fn collect_nonzero(counters: &[u8], index: u32, words: &mut Vec<HitWord>) {
    let mut push = |i: usize, w: u64| {
        if w != 0 {
            words.push(HitWord {
                index: index + i as u32,
                classes: classify(w),
            });
        }
    };
    let mut whole = counters.chunks_exact(8);
    for (i, chunk) in (&mut whole).enumerate() {
        push(i, u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
    }
    let short = whole.remainder();
    if !short.is_empty() {
        let mut bytes = [0u8; 8];
        bytes[..short.len()].copy_from_slice(short);
        push(counters.len() / 8, u64::from_le_bytes(bytes));
    }
}

/// The block scan with SSSE3's byte shuffle as a 16-entry table: a counter's class is a
/// function of its high nibble when that is not zero (16-31, 32-127, 128-255) and of its low
/// nibble otherwise (0, 1, 2, 3, 4-7, 8-15), so two shuffles and a mask classify sixteen
/// counters at once, where the scalar path does sixteen lookups.
#[cfg(target_arch = "x86_64")]
mod ssse3 {
    use std::arch::x86_64::*;

    use super::{HitWord, collect_words_scalar, count_class};

    /// Whether this CPU has SSSE3 (the standard library asks the CPU once and caches it).
    pub(super) fn available() -> bool {
        std::arch::is_x86_feature_detected!("ssse3")
    }

    /// Classes of the counts 0 to 15 (a high nibble of zero), by low nibble.
    pub(super) const BY_LOW: [u8; 16] = nibble_table(1);
    /// Classes by high nibble (0 where it is zero: the low nibble decides then). Every count
    /// with the same non-zero high nibble has one class, so the nibble times 16 stands for all.
    pub(super) const BY_HIGH: [u8; 16] = nibble_table(16);

    /// [`count_class`] of `nibble × scale` for each nibble, the one definition of the classes.
    const fn nibble_table(scale: u8) -> [u8; 16] {
        let mut table = [0u8; 16];
        let mut nibble = 0;
        while nibble < 16 {
            table[nibble] = count_class(nibble as u8 * scale);
            nibble += 1;
        }
        table
    }

    /// # Safety
    /// The CPU must have SSSE3 ([`available`]).
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn collect_words(counters: &mut [u8], base: u32, words: &mut Vec<HitWord>) {
        const BLOCK: usize = 64;
        let whole = counters.len() / BLOCK * BLOCK;
        let (blocks, rest) = counters.split_at_mut(whole);
        // SAFETY: both tables are 16 bytes.
        let (by_low, by_high) = unsafe {
            (
                _mm_loadu_si128(BY_LOW.as_ptr().cast()),
                _mm_loadu_si128(BY_HIGH.as_ptr().cast()),
            )
        };
        let nibble = _mm_set1_epi8(0x0f);
        let zero = _mm_setzero_si128();
        let mut index = base;
        let mut sink = WordSink::new(words, blocks.len() / BLOCK);
        for block in blocks.chunks_exact_mut(BLOCK) {
            let at = block.as_mut_ptr().cast::<__m128i>();
            // SAFETY: `block` is 64 bytes, four unaligned 16-byte lanes.
            let lanes = unsafe {
                [
                    _mm_loadu_si128(at),
                    _mm_loadu_si128(at.add(1)),
                    _mm_loadu_si128(at.add(2)),
                    _mm_loadu_si128(at.add(3)),
                ]
            };
            let any = _mm_or_si128(
                _mm_or_si128(lanes[0], lanes[1]),
                _mm_or_si128(lanes[2], lanes[3]),
            );
            if _mm_movemask_epi8(_mm_cmpeq_epi8(any, zero)) != 0xffff {
                let mut classes = [0u64; BLOCK / 8];
                // One bit per word with a hit.
                let mut hits = 0u8;
                for (lane, &counts) in lanes.iter().enumerate() {
                    let low = _mm_and_si128(counts, nibble);
                    let high = _mm_and_si128(_mm_srli_epi16(counts, 4), nibble);
                    let class = _mm_or_si128(
                        _mm_shuffle_epi8(by_high, high),
                        _mm_and_si128(_mm_shuffle_epi8(by_low, low), _mm_cmpeq_epi8(high, zero)),
                    );
                    // SAFETY: two words of `classes` per lane, in bounds.
                    unsafe { _mm_storeu_si128(classes.as_mut_ptr().add(2 * lane).cast(), class) };
                    let missed = _mm_movemask_epi8(_mm_cmpeq_epi8(counts, zero));
                    let first = u8::from(missed & 0xff != 0xff);
                    let second = u8::from(missed & 0xff00 != 0xff00);
                    hits |= (first | second << 1) << (2 * lane);
                }
                sink.push_block(index, &classes, hits);
                // SAFETY: as for the loads.
                unsafe {
                    for lane in 0..4 {
                        _mm_storeu_si128(at.add(lane), zero);
                    }
                }
            }
            index += (BLOCK / 8) as u32;
        }
        drop(sink);
        collect_words_scalar(rest, index, words);
    }

    /// Where a block scan appends its words: the vector's buffer, with room for eight words per
    /// block made once before the scan, and the length in a local. Reserving per block made
    /// every block with hits reload the vector's length and capacity and test them (an eighth
    /// of the scan's samples in a starlark profile); the capacity stays between executions, so
    /// the room is made once per run.
    pub(super) struct WordSink<'a> {
        words: &'a mut Vec<HitWord>,
        at: *mut HitWord,
        len: usize,
        end: usize,
    }

    impl<'a> WordSink<'a> {
        /// Room for `blocks` blocks' words after those `words` holds.
        #[inline(always)]
        pub(super) fn new(words: &'a mut Vec<HitWord>, blocks: usize) -> Self {
            words.reserve(blocks * 8);
            let len = words.len();
            Self {
                at: words.as_mut_ptr(),
                len,
                end: len + blocks * 8,
                words,
            }
        }

        /// Appends the words of one block whose bit in `hits` is set. Without a branch per
        /// word: each is written to the spare room and the length moves on only past a hit,
        /// because which of a block's words were hit is as good as random to the branch
        /// predictor, and a mispredicted branch per word was the block scan's largest cost.
        #[inline(always)]
        pub(super) fn push_block(&mut self, index: u32, classes: &[u64; 8], hits: u8) {
            assert!(
                self.len + 8 <= self.end,
                "more blocks than the sink has room for"
            );
            let mut kept = 0;
            for (i, &class) in classes.iter().enumerate() {
                // SAFETY: `len + kept <= len + 7 < end <= capacity` (checked above, reserved
                // in `new`); a slot past `len` is written, never read.
                unsafe {
                    self.at.add(self.len + kept).write(HitWord {
                        index: index + i as u32,
                        classes: class,
                    })
                };
                kept += usize::from((hits >> i) & 1);
            }
            self.len += kept;
        }
    }

    impl Drop for WordSink<'_> {
        fn drop(&mut self) {
            // SAFETY: every slot below `len` was written by `push_block` (or held before).
            unsafe { self.words.set_len(self.len) };
        }
    }
}

/// The SSSE3 scan with 32-byte registers: a cache line is two loads, one OR and one test
/// when it is zero (as nearly all are: a starlark map has 1,776 lines and an input touches a
/// few hundred), and two shuffles of each kind classify it when it is not. The tables are the
/// SSSE3 path's, repeated in both 16-byte halves, since AVX2's shuffle stays within a half.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::ssse3::{BY_HIGH, BY_LOW, WordSink};
    use super::{HitWord, collect_words_scalar};

    /// Whether this CPU has AVX2 (asked once per process, as for SSSE3).
    pub(super) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx2")
    }

    /// # Safety
    /// The CPU must have AVX2 ([`available`]).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn collect_words(counters: &mut [u8], base: u32, words: &mut Vec<HitWord>) {
        const BLOCK: usize = 64;
        let whole = counters.len() / BLOCK * BLOCK;
        let (blocks, rest) = counters.split_at_mut(whole);
        // SAFETY: both tables are 16 bytes.
        let (by_low, by_high) = unsafe {
            (
                _mm256_broadcastsi128_si256(_mm_loadu_si128(BY_LOW.as_ptr().cast())),
                _mm256_broadcastsi128_si256(_mm_loadu_si128(BY_HIGH.as_ptr().cast())),
            )
        };
        let nibble = _mm256_set1_epi8(0x0f);
        let zero = _mm256_setzero_si256();
        let mut index = base;
        let mut sink = WordSink::new(words, blocks.len() / BLOCK);
        for block in blocks.chunks_exact_mut(BLOCK) {
            let at = block.as_mut_ptr().cast::<__m256i>();
            // SAFETY: `block` is 64 bytes, two unaligned 32-byte halves.
            let halves = unsafe { [_mm256_loadu_si256(at), _mm256_loadu_si256(at.add(1))] };
            let any = _mm256_or_si256(halves[0], halves[1]);
            if _mm256_testz_si256(any, any) == 0 {
                let mut classes = [0u64; BLOCK / 8];
                // One bit per word with a hit.
                let mut hits = 0u8;
                for (half, &counts) in halves.iter().enumerate() {
                    let low = _mm256_and_si256(counts, nibble);
                    let high = _mm256_and_si256(_mm256_srli_epi16(counts, 4), nibble);
                    let class = _mm256_or_si256(
                        _mm256_shuffle_epi8(by_high, high),
                        _mm256_and_si256(
                            _mm256_shuffle_epi8(by_low, low),
                            _mm256_cmpeq_epi8(high, zero),
                        ),
                    );
                    // SAFETY: four words of `classes` per half, in bounds.
                    unsafe {
                        _mm256_storeu_si256(classes.as_mut_ptr().add(4 * half).cast(), class)
                    };
                    // One bit per zero counter; a word is hit unless its eight bits are all set.
                    let missed = _mm256_movemask_epi8(_mm256_cmpeq_epi8(counts, zero)) as u32;
                    for word in 0..4 {
                        let hit = u8::from((missed >> (8 * word)) & 0xff != 0xff);
                        hits |= hit << (4 * half + word);
                    }
                }
                sink.push_block(index, &classes, hits);
                // SAFETY: as for the loads.
                unsafe {
                    _mm256_storeu_si256(at, zero);
                    _mm256_storeu_si256(at.add(1), zero);
                }
            }
            index += (BLOCK / 8) as u32;
        }
        drop(sink);
        collect_words_scalar(rest, index, words);
    }
}

/// AFL's count classes of the eight counters of a word: eight independent lookups in a
/// 256-byte table that stays in the L1 cache (a 64K-entry table for byte pairs does fewer
/// lookups but misses the cache on a large map). A loop over only the non-zero bytes does
/// fewer lookups, but its trip count depends on the data and costs a mispredicted branch.
fn classify(word: u64) -> u64 {
    let bytes = word.to_le_bytes();
    u64::from_le_bytes(std::array::from_fn(|i| CLASS_TABLE[bytes[i] as usize]))
}

/// [`count_class`] of every byte value.
const CLASS_TABLE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut count = 0;
    while count < 256 {
        table[count] = count_class(count as u8);
        count += 1;
    }
    table
};

/// AFL's buckets: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128-255, as one bit each.
pub const fn count_class(count: u8) -> u8 {
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
        let mut words = Vec::new();
        collect_words(&mut map, 1000, &mut words);
        let indices: Vec<u32> = words.iter().map(|w| w.index).collect();
        assert_eq!(indices, vec![1000, 1003, 1004, 1012]);
        let edges: Vec<u32> = words.iter().flat_map(|w| w.edges()).collect();
        assert_eq!(edges, vec![8000, 8031, 8033, 8099]);
        assert_eq!(
            words[1].classes >> 56,
            4,
            "count 3 is class 4, in the last byte"
        );
        assert_eq!((words[2].classes >> 8) & 0xff, 128);
        assert_eq!(words[3].classes >> 24, 16, "count 9 is class 16");
        assert!(map.iter().all(|&c| c == 0));
    }

    proptest::proptest! {
        /// A word's edges and their count are its non-zero bytes, whatever their values (the
        /// bit trick must not carry from one byte into the next, as 0x80 or 0xff would if it
        /// were wrong).
        #[test]
        fn a_words_edges_are_its_nonzero_bytes(
            bytes in proptest::array::uniform8(
                proptest::prop_oneof![2 => proptest::strategy::Just(0u8), 1 => 0u8..=255],
            ),
            index in 0u32..100_000,
        ) {
            let word = HitWord { index, classes: u64::from_le_bytes(bytes) };
            let expected: Vec<u32> = (0..8u32)
                .filter(|&b| bytes[b as usize] != 0)
                .map(|b| index * 8 + b)
                .collect();
            proptest::prop_assert_eq!(word.edges().collect::<Vec<_>>(), expected.clone());
            proptest::prop_assert_eq!(word.count() as usize, expected.len());
        }
    }

    proptest::proptest! {
        /// An entry's edge list is the indices of the map's non-zero counters, in order.
        #[test]
        fn the_edge_list_is_every_nonzero_counter_in_order(
            map in proptest::collection::vec(
                proptest::prop_oneof![6 => proptest::strategy::Just(0u8), 1 => 0u8..=255],
                0..3_000,
            ),
        ) {
            let expected: Vec<usize> = (0..map.len()).filter(|&i| map[i] != 0).collect();
            let mut scanned = map.clone();
            let mut words = Vec::new();
            collect_words(&mut scanned, 0, &mut words);
            let observer = EdgeObserver { regions: Vec::new(), words, size: map.len() };
            proptest::prop_assert_eq!(observer.edge_count() as usize, expected.len());
            proptest::prop_assert_eq!(observer.edge_list(), expected);
        }
    }

    proptest::proptest! {
        /// The block scan finds exactly the words a counter-by-counter reading finds, at any
        /// map length and density, and leaves the map zeroed.
        #[test]
        /// Maps from a few bytes to several of the AVX2 scan's 4,096-byte stretches, with hits
        /// from dense (nearly every line) to sparse (a few lines a stretch).
        fn the_block_scan_agrees_with_reading_every_counter(
            map in proptest::strategy::Strategy::prop_flat_map(1u32..400, |zeros| proptest::collection::vec(
                proptest::prop_oneof![zeros => proptest::strategy::Just(0u8), 1 => 0u8..=255],
                0..12_000,
            )),
            base in 0u32..1000,
        ) {
            let mut expected = Vec::new();
            for (w, chunk) in map.chunks(8).enumerate() {
                let mut classes = [0u8; 8];
                for (b, &c) in chunk.iter().enumerate() {
                    classes[b] = count_class(c);
                }
                if chunk.iter().any(|&c| c != 0) {
                    expected.push(HitWord { index: base + w as u32, classes: u64::from_le_bytes(classes) });
                }
            }
            let mut scanned = map.clone();
            let mut words = Vec::new();
            collect_words_scalar(&mut scanned, base, &mut words);
            proptest::prop_assert_eq!(&words, &expected);
            proptest::prop_assert!(scanned.iter().all(|&c| c == 0));
            #[cfg(target_arch = "x86_64")]
            if ssse3::available() {
                let mut scanned = map.clone();
                let mut words = Vec::new();
                // SAFETY: checked just above.
                unsafe { ssse3::collect_words(&mut scanned, base, &mut words) };
                proptest::prop_assert_eq!(&words, &expected);
                proptest::prop_assert!(scanned.iter().all(|&c| c == 0));
            }
            #[cfg(target_arch = "x86_64")]
            if avx2::available() {
                let mut scanned = map.clone();
                let mut words = Vec::new();
                // SAFETY: checked just above.
                unsafe { avx2::collect_words(&mut scanned, base, &mut words) };
                proptest::prop_assert_eq!(&words, &expected);
                proptest::prop_assert!(scanned.iter().all(|&c| c == 0));
            }
        }
    }

    /// Every counter value, in every position of a block, classified by every path.
    #[test]
    fn every_scan_classifies_every_counter_value_alike() {
        // Two zero words between the rising and the falling run: 66 words, 64 with hits.
        let map: Vec<u8> = (0..=255u8)
            .chain([0; 16])
            .chain((0..=255u8).rev())
            .collect();
        let mut scalar = map.clone();
        let mut expected = Vec::new();
        collect_words_scalar(&mut scalar, 7, &mut expected);
        assert_eq!(expected.len(), 64);
        for word in &expected {
            for (b, class) in word.classes.to_le_bytes().into_iter().enumerate() {
                let at = (word.index - 7) as usize * 8 + b;
                assert_eq!(class, count_class(map[at]), "counter {at}");
            }
        }
        #[cfg(target_arch = "x86_64")]
        if ssse3::available() {
            let mut simd = map.clone();
            let mut words = Vec::new();
            // SAFETY: checked just above.
            unsafe { ssse3::collect_words(&mut simd, 7, &mut words) };
            assert_eq!(words, expected);
            assert!(simd.iter().all(|&c| c == 0));
        }
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            let mut simd = map.clone();
            let mut words = Vec::new();
            // SAFETY: checked just above.
            unsafe { avx2::collect_words(&mut simd, 7, &mut words) };
            assert_eq!(words, expected);
            assert!(simd.iter().all(|&c| c == 0));
        }
    }

    #[test]
    fn word_classification_matches_the_byte_classes() {
        let bytes = [0u8, 1, 2, 3, 5, 12, 100, 255];
        let classes = classify(u64::from_le_bytes(bytes)).to_le_bytes();
        for (b, c) in bytes.iter().zip(classes) {
            assert_eq!(count_class(*b), c);
        }
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
