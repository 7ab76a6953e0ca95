//! Super-linear paths as a save criterion: an input whose run takes much longer than its
//! size predicts is kept even without new coverage.
//!
//! Why: a constant folder that re-walks a chain at each level, or a type checker whose unions
//! grow with every branch, hits the same edges at 10 levels as at 60; only the hit counts
//! grow, past what AFL's count classes tell apart (128 and up is one class). Edge coverage
//! therefore keeps the first short chain and never the longer ones on the way to a hang, and
//! a hang 60 levels deep is out of reach of single mutations. PerfFuzz keeps inputs that
//! raise some edge's maximal hit count; the 8-bit counters here wrap, so the run's time
//! stands in for the counts, per byte of input so that a long input that is merely long
//! (linear work) does not count. Each kept input must beat the run's record cost per byte by
//! [`RECORD_FACTOR`], so the criterion keeps a ladder of a few dozen inputs, each a stepping
//! stone that the recursion mutator deepens, and never floods the queue.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Runs shorter than this are never kept for their time: below a millisecond the clock's
/// noise (a page fault, the allocator growing its heap, the other process on the core)
/// is as large as the work of a longer chain.
pub const SLOW_FLOOR: Duration = Duration::from_millis(1);

/// How much a kept input must beat the record cost per byte by: enough that noise does not
/// climb the ladder, small enough that each doubling of a quadratic path's length (four
/// times the time, twice the cost per byte) is a step.
pub const RECORD_FACTOR: f64 = 1.5;

/// Bytes added to every input's length before dividing: a target's fixed cost per run (its
/// set-up, the first allocation) would otherwise make the shortest slow inputs look
/// super-linear.
const LENGTH_OFFSET: usize = 256;

/// The run's record of time per byte, as state metadata: it survives LibAFL's restarts with
/// the rest of the coverage history.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SlowPaths {
    /// The largest cost (nanoseconds per byte, length offset included) of a kept input.
    pub record_ns_per_byte: f64,
    /// Inputs kept for their time.
    pub kept: u64,
}
libafl_bolts::impl_serdeany!(SlowPaths);

impl SlowPaths {
    /// Whether a run of `time` on an input of `len` bytes is a new record by the factor, with
    /// at most `ceiling` time (inputs near the timeout are nearly hangs: their mutants would
    /// each cost as much, and a real hang is saved as a fault anyway). A kept run becomes the
    /// record.
    pub fn record(&mut self, time: Duration, len: usize, ceiling: Duration) -> bool {
        if !self.would_record(time, len, ceiling) {
            return false;
        }
        self.record_ns_per_byte = cost_per_byte(time, len);
        self.kept += 1;
        true
    }

    /// Whether [`Self::record`] would keep the run, without recording it.
    pub fn would_record(&self, time: Duration, len: usize, ceiling: Duration) -> bool {
        (SLOW_FLOOR..=ceiling).contains(&time)
            && cost_per_byte(time, len) > self.record_ns_per_byte * RECORD_FACTOR
    }
}

fn cost_per_byte(time: Duration, len: usize) -> f64 {
    time.as_nanos() as f64 / (len + LENGTH_OFFSET) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    const CEILING: Duration = Duration::from_millis(250);

    #[test]
    fn a_quadratic_chain_climbs_the_ladder_and_a_linear_one_does_not() {
        let mut slow = SlowPaths::default();
        let ms = Duration::from_millis;
        // Fast runs never count, however small the input.
        assert!(!slow.record(Duration::from_micros(900), 1, CEILING));
        // The first run over the floor is the first record.
        assert!(slow.record(ms(2), 1000, CEILING));
        // Linear work: twice the length, twice the time, the same cost per byte.
        assert!(!slow.record(ms(4), 2256, CEILING));
        // Quadratic work: twice the length, four times the time.
        assert!(slow.record(ms(8), 2256, CEILING));
        assert!(slow.record(ms(32), 4768, CEILING));
        // Nearly a hang: not kept (the timeout saves the real one).
        assert!(!slow.record(ms(300), 4768, CEILING));
        assert_eq!(slow.kept, 3);
    }

    #[test]
    fn a_small_slow_input_beats_a_large_one_of_the_same_time() {
        let mut slow = SlowPaths::default();
        let ms = Duration::from_millis;
        assert!(slow.record(ms(10), 10_000, CEILING));
        assert!(!slow.record(ms(10), 9_000, CEILING), "within the factor");
        assert!(slow.record(ms(10), 100, CEILING));
    }
}
