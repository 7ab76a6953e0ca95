//! A mutant that its mutator already replayed, handed to the harness with it.

use std::cell::RefCell;
use std::rc::Rc;

use crate::sampler::Sample;

/// Shrink replays each mutant it makes (it keeps only those whose text is no longer than the
/// parent's), and the harness would replay the same choices again at once: a second full
/// sample of every shrink child. The mutator hands its replay over instead; the harness takes
/// it only for the very choices it is asked to run, so an input that arrives any other way
/// (a splice, a seed, a trim candidate) is replayed as before. Replaying the sampler's own
/// record gives back the same sample, so the execution is the same either way.
#[derive(Clone, Default)]
pub struct ReplayedMutant(Rc<RefCell<Handed>>);

#[derive(Default)]
struct Handed {
    sample: Sample,
    /// Whether `sample` was handed over and not taken yet: each hand-over serves one run.
    fresh: bool,
}

impl ReplayedMutant {
    /// Hands `sample` over; `sample` gets the buffers of the one handed before, for reuse.
    pub fn hand_over(&self, sample: &mut Sample) {
        let mut handed = self.0.borrow_mut();
        std::mem::swap(&mut handed.sample, sample);
        handed.fresh = true;
    }

    /// Moves the handed sample into `out` (swapping buffers) when it is the replay of
    /// `choices`, and says whether it did. Either way, what was handed serves no later call.
    pub fn take_for(&self, choices: &[u32], out: &mut Sample) -> bool {
        let mut handed = self.0.borrow_mut();
        if !std::mem::take(&mut handed.fresh) || handed.sample.choices.as_slice() != choices {
            return false;
        }
        std::mem::swap(&mut handed.sample, out);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::ChoiceSequence;

    fn sample_of(choices: &[u32]) -> Sample {
        Sample {
            choices: ChoiceSequence(choices.to_vec()),
            ..Sample::default()
        }
    }

    #[test]
    fn a_hand_over_serves_one_run_of_the_same_choices() {
        let replayed = ReplayedMutant::default();
        let mut out = Sample::default();
        assert!(!replayed.take_for(&[], &mut out), "nothing was handed over");

        replayed.hand_over(&mut sample_of(&[1, 2, 3]));
        assert!(!replayed.take_for(&[1, 2], &mut out), "other choices");
        assert!(
            !replayed.take_for(&[1, 2, 3], &mut out),
            "a mismatch used the hand-over up"
        );

        replayed.hand_over(&mut sample_of(&[4, 5]));
        assert!(replayed.take_for(&[4, 5], &mut out));
        assert_eq!(out.choices.as_slice(), &[4, 5]);
        assert!(!replayed.take_for(&[4, 5], &mut out), "taken twice");
    }
}
