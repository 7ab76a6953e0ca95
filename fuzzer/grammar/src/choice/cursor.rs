//! Reading a recorded choice sequence, falling back to fresh random choices past its end.

use fast_rands::Rand;

use super::ChoiceSequence;

/// The number of meanings of a decision whose range has no upper end (the item count of `*`).
pub const UNBOUNDED: u32 = u32::MAX;

/// What to do with a recorded choice that the current bounds do not allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replay {
    /// Report it: the sequence lies outside this bounded space. Used when a saved input must
    /// mean exactly what it meant, such as seeds handed up the lattice.
    Strict,
    /// Map it onto an allowed decision. Used for freshly mutated sequences, which are raw
    /// randomness until the sampler has normalized them.
    Repair,
}

/// The decisions the current bounds allow at one decision point.
#[derive(Clone, Copy, Debug)]
pub enum Allowed<'a> {
    /// `0..limit`
    Below(u32),
    /// Exactly these values; never empty.
    Among(&'a [u32]),
    /// `0..limit` items of a repetition: like `Below`, but a raw value is repaired toward few
    /// items when the limit is large (see [`count_from_raw`]).
    Count(u32),
    /// `0..limit`, but a raw value beyond it is repaired to one of `preferred` (a character
    /// class's printable characters: see `CharClass`); never empty.
    Preferring {
        /// The decision's values are `0..limit`.
        limit: u32,
        /// What a raw value at or beyond `limit` becomes, and what fresh draws choose among.
        preferred: &'a [u32],
    },
}

/// Item counts up to this many choices are drawn and repaired uniformly, as any decision; the
/// lattice's bounds (n of at most 7) never reach past it.
pub const UNIFORM_COUNTS: u32 = 8;

/// Beyond [`UNIFORM_COUNTS`], most counts are drawn as at n = 3 (0 to 3 items), and one in
/// [`LONG_ONE_IN`] log-uniformly up to the limit.
const SHORT_COUNTS: u32 = 4;
const LONG_ONE_IN: u32 = 8;

/// The item count a raw random value stands for, below `limit`. Up to [`UNIFORM_COUNTS`]
/// choices, uniform. Beyond, mostly short lists as under the lattice's small bounds, and one in
/// [`LONG_ONE_IN`] log-uniform: the value's magnitude (its number of bits) drawn uniformly,
/// then the value within it. With generous bounds (`bonsai fuzz --bounds 3,1000,1000`) a
/// uniform draw would give every list hundreds of items and every input the size limit; a
/// log-uniform draw for every list still makes 70% of lists longer than 3, inputs of another
/// shape than the lattice's (see docs/results/issue-11-fuzzing-power.md, naga at
/// 3,1000,1000); this keeps inputs shaped as at n = 3 and still reaches lists of any length, as
/// a peer without a repetition bound builds them.
pub fn count_from_raw(raw: u32, limit: u32) -> u32 {
    let limit = limit.max(1);
    if limit <= UNIFORM_COUNTS {
        return raw % limit;
    }
    let (pick, raw) = (raw % LONG_ONE_IN, raw / LONG_ONE_IN);
    if pick != 0 {
        return raw % SHORT_COUNTS.min(limit);
    }
    let bits = u32::BITS - (limit - 1).leading_zeros();
    let magnitude = raw % (bits + 1);
    let span = (1u64 << magnitude).min(u64::from(limit)) as u32;
    (raw / (bits + 1)) % span
}

impl Allowed<'_> {
    fn contains(self, value: u32) -> bool {
        match self {
            Allowed::Below(limit) | Allowed::Count(limit) | Allowed::Preferring { limit, .. } => {
                value < limit
            }
            Allowed::Among(values) => values.contains(&value),
        }
    }

    fn repair(self, value: u32) -> u32 {
        match self {
            Allowed::Below(limit) => value % limit.max(1),
            Allowed::Count(limit) => count_from_raw(value, limit),
            Allowed::Among(values) => values[value as usize % values.len()],
            Allowed::Preferring { preferred, .. } => preferred[value as usize % preferred.len()],
        }
    }
}

/// A recorded choice the bounds rejected, at `position` in the recorded sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// Index of the rejected value in the recorded sequence.
    pub position: usize,
    /// The recorded value after reduction modulo the decision's range.
    pub value: u32,
}

/// The sampler's only source of decisions: reads the recorded choices in order, checks each
/// against the bounds (rejecting or repairing per [`Replay`]), draws fresh ones past the end,
/// and writes what was decided to a normalized output.
pub struct ChoiceCursor<'a, R> {
    recorded: &'a [u32],
    read: usize,
    mode: Replay,
    rng: &'a mut R,
    out: &'a mut ChoiceSequence,
}

impl<'a, R: Rand> ChoiceCursor<'a, R> {
    /// `out` receives the normalized sequence of what was actually decided.
    pub fn new(
        recorded: &'a [u32],
        mode: Replay,
        rng: &'a mut R,
        out: &'a mut ChoiceSequence,
    ) -> Self {
        out.clear();
        Self {
            recorded,
            read: 0,
            mode,
            rng,
            out,
        }
    }

    /// Position in the normalized output, which is where the next decision will be written.
    #[inline]
    pub fn position(&self) -> usize {
        self.out.len()
    }

    /// Whether every recorded choice has been read, so that the next decision is fresh.
    #[inline]
    pub fn exhausted(&self) -> bool {
        self.read >= self.recorded.len()
    }

    /// The generator of fresh choices, for draws that steer them without being recorded.
    #[inline]
    pub fn rng(&mut self) -> &mut R {
        self.rng
    }

    /// How many recorded choices were read; the rest of the recording was not needed.
    pub fn consumed(&self) -> usize {
        self.read
    }

    /// One decision with `range` meanings (fixed by the grammar, never by the bounds, so that a
    /// value means the same thing under every bound). A recorded value is reduced modulo
    /// `range`; past the recording, `fresh` draws a new allowed value.
    #[inline]
    pub fn decide(
        &mut self,
        range: u32,
        allowed: Allowed<'_>,
        fresh: impl FnOnce(&mut R) -> u32,
    ) -> Result<u32, Rejected> {
        let value = if let Some(&raw) = self.recorded.get(self.read) {
            self.read += 1;
            let value = if range == UNBOUNDED { raw } else { raw % range };
            if allowed.contains(value) {
                value
            } else if self.mode == Replay::Strict {
                return Err(Rejected {
                    position: self.read - 1,
                    value,
                });
            } else {
                allowed.repair(value)
            }
        } else {
            fresh(self.rng)
        };
        self.out.0.push(value);
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Raw values as havoc writes them: spread over all of u32.
    fn raws() -> impl Iterator<Item = u32> {
        (0u32..20_000).map(|i| i.wrapping_mul(2_654_435_761))
    }

    #[test]
    fn small_counts_are_repaired_uniformly_as_before() {
        for limit in 1..=UNIFORM_COUNTS {
            for raw in raws().take(500) {
                assert_eq!(count_from_raw(raw, limit), raw % limit);
                assert_eq!(Allowed::Count(limit).repair(raw), raw % limit);
            }
        }
    }

    #[test]
    fn large_limits_keep_most_lists_short_and_reach_long_ones() {
        for limit in [9, 33, 1001, 100_000] {
            let counts: Vec<u32> = raws().map(|raw| count_from_raw(raw, limit)).collect();
            assert!(counts.iter().all(|&c| c < limit), "limit {limit}");
            let short = counts.iter().filter(|&&c| c < SHORT_COUNTS).count();
            // Uniform repair would give 4 / limit of them; this one at least 7 in 8.
            assert!(
                short * 8 >= counts.len() * 7,
                "limit {limit}: {short} short"
            );
            let long = counts.iter().filter(|&&c| c >= 8).count();
            assert!(long > 0, "limit {limit}: no long list");
            let longest = *counts.iter().max().unwrap();
            assert!(longest >= limit / 2, "limit {limit}: longest {longest}");
        }
    }

    #[test]
    fn a_recorded_count_within_the_limit_is_kept_as_recorded() {
        let mut rng = fast_rands::StdRand::with_seed(1);
        let mut out = ChoiceSequence::default();
        let recorded = [700, u32::MAX - 3];
        let mut cursor = ChoiceCursor::new(&recorded, Replay::Repair, &mut rng, &mut out);
        assert_eq!(
            cursor.decide(UNBOUNDED, Allowed::Count(1001), |_| 0),
            Ok(700)
        );
        let repaired = cursor
            .decide(UNBOUNDED, Allowed::Count(1001), |_| 0)
            .unwrap();
        assert_eq!(repaired, count_from_raw(u32::MAX - 3, 1001));
    }
}
