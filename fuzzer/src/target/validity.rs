//! How much of what a grammar generates a target accepts, and at which stage it refuses the
//! rest: the measure for tuning a grammar to a target (a grammar whose inputs all die in the
//! parser exercises nothing behind it) and the basis of each target's smoke test.
//!
//! Stages come from a convention on [`Verdict::Invalid`] reasons: a target that starts its
//! reasons with the stage that refused the input, as in `parse: 3:7: expected ')'` or
//! `backend msl: ...`, gets a per-stage breakdown; other reasons are tallied as unstaged.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use libafl_bolts::rands::StdRand;

use super::{Target, Verdict};
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::sampler::{Bounds, Sample, Sampler};
use crate::text::render_into;

/// The label of reasons that do not start with a stage.
pub const UNSTAGED: &str = "(unstaged)";

/// Verdicts of a target on a batch of generated inputs.
#[derive(Debug, Default)]
pub struct ValidityReport {
    pub inputs: u64,
    pub valid: u64,
    pub rejected: u64,
    /// Refusals by stage, in stage-name order.
    pub invalid: BTreeMap<String, StageTally>,
    /// Inputs on which the target faulted (panicked, or with a forked run also crashed or
    /// timed out), with what happened, in generation order.
    pub crashes: Vec<Crash>,
}

/// The refusals of one stage.
#[derive(Debug, Default)]
pub struct StageTally {
    pub count: u64,
    /// How often each message occurred, with its source location removed so that the same
    /// error at different places counts as one.
    pub messages: BTreeMap<String, MessageTally>,
}

/// One message of a stage: how often it occurred, and the first input that caused it.
#[derive(Debug, Default)]
pub struct MessageTally {
    pub count: u64,
    pub example: String,
}

#[derive(Debug, Clone)]
pub struct Crash {
    pub index: u64,
    pub input: String,
    pub message: String,
}

impl ValidityReport {
    /// Generates `count` inputs from `grammar` within `bounds` (deterministic per `seed`) and
    /// runs `target` on each, in this process. Panics of the target are caught and recorded;
    /// aborts, stack overflows and hangs end (or stall) the process: a caller that must
    /// survive them runs each input in a child, through [`ValidityReport::measure_with`].
    pub fn measure(
        target: &mut dyn Target,
        grammar: &Grammar,
        bounds: Bounds,
        count: u64,
        seed: u64,
    ) -> Result<Self, Diagnostic> {
        Self::measure_filtered(target, grammar, bounds, count, seed, |_| true)
    }

    /// As [`ValidityReport::measure`], but only inputs for which `admit` holds are run; the others
    /// are generated (so later inputs stay the same) and skipped. Smoke tests use this to step
    /// over known crashers.
    pub fn measure_filtered(
        target: &mut dyn Target,
        grammar: &Grammar,
        bounds: Bounds,
        count: u64,
        seed: u64,
        admit: impl FnMut(&str) -> bool,
    ) -> Result<Self, Diagnostic> {
        Self::measure_with(grammar, bounds, count, seed, admit, |text| {
            catch_unwind(AssertUnwindSafe(|| target.run(text.as_bytes())))
                .map_err(|payload| panic_message(payload.as_ref()))
        })
    }

    /// The inputs of [`ValidityReport::measure_filtered`], each run by `run`, which returns the
    /// target's verdict or, for a fault, what it was. The target stage cannot run a child
    /// process itself (that is `replay`'s job, below it), so `bonsai validity` passes a
    /// forked run here.
    pub fn measure_with(
        grammar: &Grammar,
        bounds: Bounds,
        count: u64,
        seed: u64,
        mut admit: impl FnMut(&str) -> bool,
        mut run: impl FnMut(&str) -> Result<Verdict, String>,
    ) -> Result<Self, Diagnostic> {
        let mut sampler = Sampler::new(grammar, bounds)?;
        let mut rng = StdRand::with_seed(seed);
        let mut sample = Sample::default();
        let mut text = String::new();
        let mut validity = ValidityReport::default();
        for index in 0..count {
            sampler.generate(&mut rng, &mut sample);
            render_into(grammar, &sample.tree, &mut text);
            if !admit(&text) {
                continue;
            }
            match run(&text) {
                Ok(verdict) => validity.record(&verdict, &text),
                Err(message) => {
                    validity.inputs += 1;
                    validity.crashes.push(Crash {
                        index,
                        input: text.clone(),
                        message,
                    });
                }
            }
        }
        Ok(validity)
    }

    /// Counts one verdict on `input`.
    pub fn record(&mut self, verdict: &Verdict, input: &str) {
        self.inputs += 1;
        match verdict {
            Verdict::Valid => self.valid += 1,
            Verdict::Reject => self.rejected += 1,
            Verdict::Invalid(reason) => {
                let (stage, message) = split_stage(reason);
                let tally = self.invalid.entry(stage.to_string()).or_default();
                tally.count += 1;
                let entry = tally
                    .messages
                    .entry(strip_location(message).to_string())
                    .or_insert_with(|| MessageTally {
                        count: 0,
                        example: input.to_string(),
                    });
                entry.count += 1;
            }
        }
    }

    /// Inputs refused at `stage`.
    pub fn refused_at(&self, stage: &str) -> u64 {
        self.invalid.get(stage).map_or(0, |t| t.count)
    }

    /// Share of all inputs, in percent.
    pub fn percent(&self, n: u64) -> f64 {
        if self.inputs == 0 {
            0.0
        } else {
            100.0 * n as f64 / self.inputs as f64
        }
    }
}

/// Splits `stage: rest` off a reason. A stage is a short run of lower-case words (letters,
/// digits, `-`, `_`, single spaces), so that a message which merely contains a colon is not
/// mistaken for one.
pub fn split_stage(reason: &str) -> (&str, &str) {
    if let Some((stage, rest)) = reason.split_once(": ")
        && !stage.is_empty()
        && stage.len() <= 32
        && stage.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b' ' | b'-' | b'_')
        })
        && !stage.starts_with(' ')
        && !stage.ends_with(' ')
    {
        (stage, rest)
    } else {
        (UNSTAGED, reason)
    }
}

/// Drops a leading `line:column: ` from a message.
fn strip_location(message: &str) -> &str {
    let location = |s: &str| {
        let (line, column) = s.split_once(':')?;
        (!line.is_empty()
            && !column.is_empty()
            && line.bytes().all(|b| b.is_ascii_digit())
            && column.bytes().all(|b| b.is_ascii_digit()))
        .then_some(())
    };
    match message.split_once(": ") {
        Some((head, rest)) if location(head).is_some() => rest,
        _ => message,
    }
}

/// The message of a caught panic (`catch_unwind`'s payload), as the engine records it.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(panic with a non-string payload)".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_are_split_off_only_when_they_look_like_stages() {
        assert_eq!(split_stage("parse: 1:2: oops"), ("parse", "1:2: oops"));
        assert_eq!(split_stage("backend msl: bad"), ("backend msl", "bad"));
        assert_eq!(
            split_stage("Expected ')': found x"),
            (UNSTAGED, "Expected ')': found x")
        );
        assert_eq!(split_stage("no stage here"), (UNSTAGED, "no stage here"));
        assert_eq!(split_stage(": empty"), (UNSTAGED, ": empty"));
    }

    #[test]
    fn locations_are_dropped_so_equal_messages_merge() {
        let mut validity = ValidityReport::default();
        validity.record(&Verdict::Invalid("type: 3:4: expected int".into()), "one");
        validity.record(&Verdict::Invalid("type: 9:1: expected int".into()), "two");
        validity.record(&Verdict::Invalid("type: at 9:1: x".into()), "three");
        validity.record(&Verdict::Valid, "four");
        validity.record(&Verdict::Reject, "five");
        let tally = &validity.invalid["type"];
        assert_eq!(tally.count, 3);
        assert_eq!(tally.messages["expected int"].count, 2);
        assert_eq!(tally.messages["expected int"].example, "one");
        assert_eq!(tally.messages["at 9:1: x"].count, 1);
        assert_eq!(
            (validity.inputs, validity.valid, validity.rejected),
            (5, 1, 1)
        );
        assert_eq!(validity.refused_at("type"), 3);
        assert_eq!(validity.percent(1), 20.0);
    }

    struct Fussy;

    impl Target for Fussy {
        fn run(&mut self, input: &[u8]) -> Verdict {
            match input.len() % 3 {
                0 => Verdict::Valid,
                1 => Verdict::Invalid("parse: short".into()),
                _ => panic!("length {}", input.len()),
            }
        }
    }

    #[test]
    fn measuring_catches_panics_and_is_deterministic() {
        let grammar = Grammar::from_text("t.ebnf", "start = ( \"a\" )* ;").unwrap();
        let bounds = Bounds::new(1, 5, 2).unwrap();
        let first = ValidityReport::measure(&mut Fussy, &grammar, bounds, 200, 7).unwrap();
        let second = ValidityReport::measure(&mut Fussy, &grammar, bounds, 200, 7).unwrap();
        assert_eq!(first.inputs, 200);
        assert!(first.valid > 0 && first.refused_at("parse") > 0 && !first.crashes.is_empty());
        assert_eq!(
            first.valid + first.refused_at("parse") + first.crashes.len() as u64,
            200
        );
        assert!(first.crashes.iter().all(|c| c.input.len() % 3 == 2));
        assert!(first.crashes[0].message.starts_with("length "));
        assert_eq!(
            (first.valid, first.crashes.len()),
            (second.valid, second.crashes.len())
        );
        let skipped = ValidityReport::measure_filtered(&mut Fussy, &grammar, bounds, 200, 7, |t| {
            t.len() % 3 != 2
        })
        .unwrap();
        assert!(skipped.crashes.is_empty());
        assert_eq!(skipped.valid, first.valid);
    }
}
