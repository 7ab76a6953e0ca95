//! How much of what a grammar generates a target accepts, and at which stage it refuses the
//! rest: the measure for tuning a grammar to a target (a grammar whose inputs all die in the
//! parser exercises nothing behind it) and the basis of each target's smoke test.
//!
//! Stages come from a convention on [`Verdict::Invalid`] reasons: a target that starts its
//! reasons with the stage that refused the input, as in `parse: 3:7: expected ')'` or
//! `backend msl: ...`, gets a per-stage breakdown; other reasons are tallied as unstaged.
//!
//! A message alone does not say what to edit in the grammar. So each input's derivation is
//! tallied too, as the named rule alternatives it used: an alternative found in most inputs
//! refused with one message and in few accepted ones is where that message comes from
//! ([`ValidityReport::over_represented`]).

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use libafl_bolts::rands::StdRand;

use super::{Target, Verdict};
use crate::diagnostic::Diagnostic;
use crate::grammar::{Grammar, RuleId};
use crate::sampler::{Bounds, Sample, Sampler};
use crate::text::render_into;
use crate::tree::{DerivationTree, NodeKind};

/// A named rule and the index of one of its alternatives.
pub type RuleAlternative = (RuleId, u32);

/// The label of reasons that do not start with a stage.
pub const UNSTAGED: &str = "(unstaged)";

/// Verdicts of a target on a batch of generated inputs.
#[derive(Debug, Default)]
pub struct ValidityReport {
    /// Inputs run, faults included; the denominator of [`ValidityReport::percent`].
    pub inputs: u64,
    /// Inputs the target accepted.
    pub valid: u64,
    /// Inputs the target rejected outright (outside what it takes at all).
    pub rejected: u64,
    /// Refusals by stage, in stage-name order.
    pub invalid: BTreeMap<String, StageTally>,
    /// Inputs on which the target faulted (panicked, or with a forked run also crashed or
    /// timed out), with what happened, in generation order.
    pub crashes: Vec<Crash>,
    /// How many valid inputs used each named rule alternative.
    pub valid_uses: BTreeMap<RuleAlternative, u64>,
}

/// The refusals of one stage.
#[derive(Debug, Default)]
pub struct StageTally {
    /// Inputs this stage refused, over all its messages.
    pub count: u64,
    /// How often each message occurred, with its source location removed so that the same
    /// error at different places counts as one.
    pub messages: BTreeMap<String, MessageTally>,
}

/// One message of a stage: how often it occurred, the first input that caused it, and how many
/// of its inputs used each named rule alternative.
#[derive(Debug, Default)]
pub struct MessageTally {
    /// Inputs refused with this message.
    pub count: u64,
    /// The text of the first input refused with it, for the user to look at.
    pub example: String,
    /// How many of the refused inputs used each named rule alternative (each at most once per
    /// input).
    pub uses: BTreeMap<RuleAlternative, u64>,
}

/// A rule alternative found more often in the inputs refused with one message than in the
/// accepted ones: shares of those inputs that used it.
#[derive(Clone, Debug, PartialEq)]
pub struct OverRepresented {
    /// The rule alternative.
    pub alternative: RuleAlternative,
    /// Share of the inputs refused with the message that used it, in `0.0..=1.0`.
    pub share_refused: f64,
    /// Share of the valid inputs that used it, in `0.0..=1.0`.
    pub share_valid: f64,
}

/// An input on which the target faulted while being measured.
#[derive(Debug, Clone)]
pub struct Crash {
    /// Position of the input among those generated (skipped ones included), so that the same
    /// seed regenerates it.
    pub index: u64,
    /// The input's text.
    pub input: String,
    /// The panic message, or what a forked run saw (signal, timeout).
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
        let mut used = Vec::new();
        let mut validity = ValidityReport::default();
        for index in 0..count {
            sampler.generate(&mut rng, &mut sample);
            render_into(grammar, &sample.tree, &mut text);
            if !admit(&text) {
                continue;
            }
            match run(&text) {
                Ok(verdict) => {
                    used_alternatives(grammar, &sample.tree, &mut used);
                    validity.record(&verdict, &text, &used);
                }
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

    /// Counts one verdict on `input`, whose derivation used the rule alternatives `used` (each
    /// once).
    pub fn record(&mut self, verdict: &Verdict, input: &str, used: &[RuleAlternative]) {
        self.inputs += 1;
        match verdict {
            Verdict::Valid => {
                self.valid += 1;
                for &alternative in used {
                    *self.valid_uses.entry(alternative).or_default() += 1;
                }
            }
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
                        uses: BTreeMap::new(),
                    });
                entry.count += 1;
                for &alternative in used {
                    *entry.uses.entry(alternative).or_default() += 1;
                }
            }
        }
    }

    /// The rule alternatives that most set the inputs refused with `tally`'s message apart from
    /// the accepted ones: used by at least half of the refused inputs, and by a share of them at
    /// least `min_gap` larger than of the valid inputs; the largest gaps first, at most `limit`.
    pub fn over_represented(
        &self,
        tally: &MessageTally,
        min_gap: f64,
        limit: usize,
    ) -> Vec<OverRepresented> {
        let share = |n: u64, of: u64| if of == 0 { 0.0 } else { n as f64 / of as f64 };
        let mut found: Vec<OverRepresented> = tally
            .uses
            .iter()
            .map(|(&alternative, &n)| OverRepresented {
                alternative,
                share_refused: share(n, tally.count),
                share_valid: share(
                    self.valid_uses.get(&alternative).copied().unwrap_or(0),
                    self.valid,
                ),
            })
            .filter(|o| o.share_refused >= 0.5 && o.share_refused - o.share_valid >= min_gap)
            .collect();
        found.sort_by(|a, b| {
            let gap = |o: &OverRepresented| o.share_refused - o.share_valid;
            gap(b)
                .total_cmp(&gap(a))
                .then(a.alternative.cmp(&b.alternative))
        });
        found.truncate(limit);
        found
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

/// The named rule alternatives `tree` expands, each once, in order.
pub fn used_alternatives(grammar: &Grammar, tree: &DerivationTree, out: &mut Vec<RuleAlternative>) {
    out.clear();
    for node in tree.nodes() {
        if let NodeKind::Rule { rule, alternative } = node.kind
            && grammar.rule(rule).is_named()
        {
            out.push((rule, alternative));
        }
    }
    out.sort_unstable();
    out.dedup();
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

/// Drops a leading `line:column: ` or `file:line:column: ` from a message.
fn strip_location(message: &str) -> &str {
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let location = |s: &str| {
        let mut parts = s.rsplitn(3, ':');
        let (column, line) = (parts.next()?, parts.next()?);
        (number(line) && number(column)).then_some(())
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
        validity.record(
            &Verdict::Invalid("type: 3:4: expected int".into()),
            "one",
            &[],
        );
        validity.record(
            &Verdict::Invalid("type: 9:1: expected int".into()),
            "two",
            &[],
        );
        validity.record(&Verdict::Invalid("type: at 9:1: x".into()), "three", &[]);
        validity.record(
            &Verdict::Invalid("in.g:2:5: expected int".into()),
            "six",
            &[],
        );
        validity.record(&Verdict::Valid, "four", &[]);
        validity.record(&Verdict::Reject, "five", &[]);
        let tally = &validity.invalid["type"];
        assert_eq!(tally.count, 3);
        assert_eq!(tally.messages["expected int"].count, 2);
        assert_eq!(tally.messages["expected int"].example, "one");
        assert_eq!(tally.messages["at 9:1: x"].count, 1);
        assert_eq!(validity.invalid[UNSTAGED].messages["expected int"].count, 1);
        assert_eq!(
            (validity.inputs, validity.valid, validity.rejected),
            (6, 1, 1)
        );
        assert_eq!(validity.refused_at("type"), 3);
        assert_eq!(validity.percent(3), 50.0);
    }

    /// A target that refuses every input with a `while` in it: the `while` alternative is the
    /// one the explanation must name, and not the alternatives every input uses.
    #[test]
    fn the_alternative_behind_a_refusal_is_named_and_common_ones_are_not() {
        let grammar = Grammar::from_text(
            "t.ebnf",
            "prog = stmt+ ; stmt = \"print\" expr | \"while\" expr stmt | \"skip\" ; expr = \"1\" | \"x\" ;",
        )
        .unwrap();
        let bounds = Bounds::new(1, 3, 3).unwrap();
        let validity = ValidityReport::measure_with(
            &grammar,
            bounds,
            400,
            3,
            |_| true,
            |text| {
                Ok(if text.contains("while") {
                    Verdict::Invalid("loop: loops are not allowed".into())
                } else {
                    Verdict::Valid
                })
            },
        )
        .unwrap();
        let tally = &validity.invalid["loop"].messages["loops are not allowed"];
        assert!(tally.count > 50 && validity.valid > 50, "{validity:?}");
        let found = validity.over_represented(tally, 0.2, 3);
        let name = |o: &OverRepresented| {
            let (rule, alternative) = o.alternative;
            (grammar.rule(rule).name.clone(), alternative)
        };
        assert_eq!(name(&found[0]), ("stmt".to_string(), 1), "{found:?}");
        assert_eq!(found[0].share_refused, 1.0);
        assert_eq!(found[0].share_valid, 0.0);
        // `prog` is in every input, refused or not: nothing to learn from it.
        assert!(
            found
                .iter()
                .all(|o| grammar.rule(o.alternative.0).name != "prog")
        );
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
