//! Reading a recorded choice sequence, falling back to fresh random choices past its end.

use libafl_bolts::rands::Rand;

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
}

impl Allowed<'_> {
    fn contains(self, value: u32) -> bool {
        match self {
            Allowed::Below(limit) => value < limit,
            Allowed::Among(values) => values.contains(&value),
        }
    }

    fn repair(self, value: u32) -> u32 {
        match self {
            Allowed::Below(limit) => value % limit.max(1),
            Allowed::Among(values) => values[value as usize % values.len()],
        }
    }
}

/// A recorded choice the bounds rejected, at `position` in the recorded sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rejected {
    pub position: usize,
    pub value: u32,
}

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
