//! Zest's save criteria: new coverage, or new coverage by a valid input.

use std::borrow::Cow;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use libafl::HasMetadata;
use libafl::corpus::Testcase;
use libafl::events::EventConfig;
use libafl::executors::ExitKind;
use libafl::feedbacks::{Feedback, MapIndexesMetadata, StateInitializer};
use libafl::observers::ObserversTuple;
use libafl::state::{HasCorpus, HasExecutions};
use libafl_bolts::tuples::{Handle, Handled, MatchNameRef};
use libafl_bolts::{Error, Named};
use serde::{Deserialize, Serialize};

use super::CoverageGrain;
use super::fault::parent_number;
use super::shipped_run::{ImportRule, ShippedRun};
use crate::choice::ChoiceInput;
use crate::corpus::EntryInfo;
use crate::observer::{EdgeObserver, ExecutionClass, HitWord, ReplayObserver};
use crate::provenance::LastMutation;
use crate::sampler::Bounds;

/// Which inputs a campaign keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SaveCriteria {
    /// Zest: any input with new coverage, and any valid input with coverage no valid input had.
    /// Invalid inputs explore error paths; valid ones "steal responsibility" for edges that
    /// only invalid inputs had reached, so the corpus drifts towards valid inputs.
    Zest,
    /// Restricted (`--valid-only`, the Bonsai paper's v = r): only valid inputs are kept.
    ValidOnly,
}

/// Coverage seen so far, as OR-ed hit-count classes per edge, eight edges per word (the
/// layout of [`HitWord`]). State metadata: it must survive LibAFL's restarts after a crash.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CoverageHistory {
    /// Over every input that was not rejected.
    pub all: Vec<u64>,
    /// Over valid inputs only.
    pub valid: Vec<u64>,
    /// Edges with a nonzero bit in `all`: the coverage the status line reports under Zest.
    pub all_edges: u32,
    /// Edges with a nonzero bit in `valid`: the coverage that counts under `--valid-only`.
    pub valid_edges: u32,
    /// Executions and wall time (since the Unix epoch) of the last new edge of the corpus's
    /// criteria: what a saturation stop waits on.
    pub last_new_edge_execs: u64,
    /// Seconds since the Unix epoch; 0 until the first new edge.
    pub last_new_edge_secs: f64,
    /// Executions by verdict, for the share of valid executions.
    pub valid_execs: u64,
    /// Executions judged valid or invalid; rejected ones are not counted.
    pub judged_execs: u64,
    /// Inputs whose text was over the length limit, not run.
    pub too_long: u64,
}
libafl_bolts::impl_serdeany!(CoverageHistory);

/// What a kept input contributed to the corpus when it was saved: the edges no earlier input
/// had covered (or no earlier valid input, for a valid one), and whether it was the first
/// valid input to cover some of them. The criterion the fuzz-then-reduce baseline reduces
/// every input by (`reduce::queue_reduction`), and the one an entry keeps when the loop trims it
/// (`fuzz::trim`). Testcase metadata until the entry has been trimmed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contribution {
    /// Edge indices, sorted.
    pub edges: Vec<u32>,
    /// Whether the edges were new only among valid inputs, so that an invalid run does not hold it.
    pub must_be_valid: bool,
}
libafl_bolts::impl_serdeany!(Contribution);

impl Contribution {
    /// Whether a run with `verdict` covering `edges` (sorted) still brings this: every edge,
    /// by a judged (not rejected) input, and by a valid one when validity was part of it.
    pub fn holds(&self, verdict: ExecutionClass, edges: &[u32]) -> bool {
        matches!(verdict, ExecutionClass::Valid | ExecutionClass::Invalid)
            && (!self.must_be_valid || verdict == ExecutionClass::Valid)
            && crate::observer::covers(edges, &self.edges)
    }
}

/// What one input added to a history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Novelty {
    /// Some edge reached a hit-count class not seen before.
    pub new_class: bool,
    /// Edges never seen before at all.
    pub new_edges: u32,
}

impl Novelty {
    /// One AND-NOT per word finds new classes; only words that have some (rare, once a
    /// campaign is under way) are looked at byte by byte for new edges, whose indices go to
    /// `found`.
    fn record(
        history: &mut [u64],
        edges: &mut u32,
        words: &[HitWord],
        found: &mut Vec<u32>,
        news: &mut Vec<HitWord>,
    ) -> Self {
        let mut novelty = Novelty::default();
        for word in words {
            let Some(seen) = history.get_mut(word.index as usize) else {
                continue;
            };
            if word.classes & !*seen == 0 {
                continue;
            }
            novelty.new_class = true;
            news.push(*word);
            for byte in counters_first_hit(*seen, word.classes) {
                novelty.new_edges += 1;
                *edges += 1;
                found.push(word.index * 8 + byte);
            }
            *seen |= word.classes;
        }
        novelty
    }

    /// What [`Self::record`] would find, recording nothing.
    fn peek(history: &[u64], words: &[HitWord]) -> Self {
        let mut novelty = Novelty::default();
        for word in words {
            let Some(seen) = history.get(word.index as usize) else {
                continue;
            };
            if word.classes & !*seen == 0 {
                continue;
            }
            novelty.new_class = true;
            novelty.new_edges += counters_first_hit(*seen, word.classes).count() as u32;
        }
        novelty
    }
}

/// The counters of a word (0 to 7) that `classes` hits and `seen` never had: new edges.
fn counters_first_hit(seen: u64, classes: u64) -> impl Iterator<Item = u32> {
    let (old, new) = (seen.to_le_bytes(), classes.to_le_bytes());
    (0..8u32).filter(move |&b| old[b as usize] == 0 && new[b as usize] != 0)
}

/// Puts what the passes over both histories found into their final form: the contribution's
/// edges (new to either) sorted once, marked as needing validity when some were new only to
/// the valid history, and the news sorted by word index, each word once.
fn settle(contribution: &mut Contribution, valid_new: Vec<u32>, news: &mut Vec<HitWord>) {
    contribution.must_be_valid = !valid_new.is_empty();
    contribution.edges.extend(valid_new);
    contribution.edges.sort_unstable();
    contribution.edges.dedup();
    news.sort_unstable_by_key(|word| word.index);
    news.dedup_by_key(|word| word.index);
}

impl CoverageHistory {
    /// A history for `size` counters.
    pub fn new(size: usize) -> Self {
        let words = size.div_ceil(8);
        Self {
            all: vec![0; words],
            valid: vec![0; words],
            ..Self::default()
        }
    }

    /// Folds one execution into the histories and says what it added to each.
    pub fn record(&mut self, hits: &[HitWord], valid: bool) -> (Novelty, Novelty) {
        self.record_finding(hits, valid, &mut Contribution::default())
    }

    /// [`Self::record`], also saying which edges were new: what an input would contribute to
    /// the corpus if it is kept.
    pub fn record_finding(
        &mut self,
        hits: &[HitWord],
        valid: bool,
        contribution: &mut Contribution,
    ) -> (Novelty, Novelty) {
        self.record_news(hits, valid, contribution, &mut Vec::new())
    }

    /// [`Self::record_finding`], also leaving in `news` the words of `hits` that added
    /// something to either history, sorted by index: all another history that has seen what
    /// this one had needs to judge the execution (see `shipped_run`).
    pub fn record_news(
        &mut self,
        hits: &[HitWord],
        valid: bool,
        contribution: &mut Contribution,
        news: &mut Vec<HitWord>,
    ) -> (Novelty, Novelty) {
        contribution.edges.clear();
        news.clear();
        let mut valid_new = Vec::new();
        let by_valid = if valid {
            Novelty::record(
                &mut self.valid,
                &mut self.valid_edges,
                hits,
                &mut valid_new,
                news,
            )
        } else {
            Novelty::default()
        };
        // Every valid run is folded into both histories, so the valid one is contained in the
        // whole: a valid run that brings nothing to it brings nothing to the whole either, and
        // the second pass over its words (for most runs of a campaign under way) is skipped.
        let all = if valid && !by_valid.new_class {
            Novelty::default()
        } else {
            Novelty::record(
                &mut self.all,
                &mut self.all_edges,
                hits,
                &mut contribution.edges,
                news,
            )
        };
        settle(contribution, valid_new, news);
        (all, by_valid)
    }

    /// What [`Self::record`] would say of an execution, leaving the histories as they are:
    /// whether a run seen elsewhere would bring anything here.
    pub fn peek(&self, hits: &[HitWord], valid: bool) -> (Novelty, Novelty) {
        let all = Novelty::peek(&self.all, hits);
        let by_valid = if valid {
            Novelty::peek(&self.valid, hits)
        } else {
            Novelty::default()
        };
        (all, by_valid)
    }

    /// Edges covered by what the corpus keeps under `criteria`.
    pub fn corpus_edges(&self, criteria: SaveCriteria) -> u32 {
        match criteria {
            SaveCriteria::Zest => self.all_edges,
            SaveCriteria::ValidOnly => self.valid_edges,
        }
    }
}

impl SaveCriteria {
    /// The decision, given what an execution added to each history, at `grain`.
    pub fn keeps(self, grain: CoverageGrain, valid: bool, all: Novelty, by_valid: Novelty) -> bool {
        let new = |novelty| grain.is_new(novelty);
        match self {
            SaveCriteria::Zest => new(all) || (valid && new(by_valid)),
            SaveCriteria::ValidOnly => valid && new(by_valid),
        }
    }
}

/// The corpus feedback: reads the edge hits and the verdict of an execution, applies the
/// [`SaveCriteria`], and for a kept input records what the on-disk corpus writes about it.
///
/// Rejected inputs (the target does not take them at all) earn nothing and update nothing.
/// One pass over the short hit list serves both histories, instead of two LibAFL map feedbacks
/// each scanning the full counter map.
pub struct ValidityFeedback {
    criteria: SaveCriteria,
    grain: CoverageGrain,
    edges: Handle<EdgeObserver>,
    replay: Handle<ReplayObserver>,
    size: usize,
    bounds: Bounds,
    started: Instant,
    last: (bool, u32),
    /// What the last execution would contribute, kept for `append_metadata`.
    contribution: Contribution,
    /// Keep inputs that derive a k-path of the grammar no execution derived before, with this k.
    grammar_paths: Option<usize>,
    /// Keep runs that set a new record of time per byte, up to this long (`None`: off).
    slow_ceiling: Option<Duration>,
    /// The last execution's run time, when it was kept for it.
    kept_slow: Option<Duration>,
    /// Leave each kept entry's [`ShippedRun`] in the state for the event manager to send (a
    /// client of a multi-core run).
    ships: Option<EventConfig>,
    /// The last execution's words that were news to the history.
    news: Vec<HitWord>,
}

impl ValidityFeedback {
    /// A feedback reading the given observers; `started` is the campaign's start, from which each
    /// kept entry's `found_at` is measured, and `bounds` are stored with every input it keeps.
    pub fn new(
        criteria: SaveCriteria,
        grain: CoverageGrain,
        edges: &EdgeObserver,
        replay: &ReplayObserver,
        bounds: Bounds,
        started: Instant,
    ) -> Self {
        Self {
            criteria,
            grain,
            edges: edges.handle(),
            replay: replay.handle(),
            size: edges.size(),
            bounds,
            started,
            last: (false, 0),
            contribution: Contribution::default(),
            grammar_paths: None,
            slow_ceiling: None,
            kept_slow: None,
            ships: None,
            news: Vec::new(),
        }
    }

    /// Leaves what each kept entry's run covered for the event manager to send with it, so
    /// that other clients need not run it to judge it (see `shipped_run`).
    pub fn with_shipping(mut self, on: bool) -> Self {
        self.ships = on.then(EventConfig::from_build_id);
        self
    }

    /// How a receiver of this run's entries applies these criteria to a [`ShippedRun`].
    pub fn import_rule(&self) -> ImportRule {
        ImportRule {
            criteria: self.criteria,
            grain: self.grain,
            slow_ceiling: self.slow_ceiling,
            grammar_paths: self.grammar_paths.is_some(),
            build: EventConfig::from_build_id(),
        }
    }

    /// Also keeps inputs whose run takes much longer than their length predicts, up to
    /// `ceiling` (see `slow_paths`).
    pub fn with_slow_paths(mut self, ceiling: Option<Duration>) -> Self {
        self.slow_ceiling = ceiling;
        self
    }

    /// Also keeps inputs whose derivation holds a path of `k` grammar symbols that no earlier
    /// execution's did (grammar coverage as a feedback next to edge coverage).
    pub fn with_grammar_paths(mut self, k: Option<usize>) -> Self {
        self.grammar_paths = k;
        self
    }
}

impl Named for ValidityFeedback {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("validity");
        &NAME
    }
}

impl<S: HasMetadata> StateInitializer<S> for ValidityFeedback {
    fn init_state(&mut self, state: &mut S) -> Result<(), Error> {
        if !state.has_metadata::<CoverageHistory>() {
            state.add_metadata(CoverageHistory::new(self.size));
        }
        Ok(())
    }
}

impl<EM, OT, S> Feedback<EM, ChoiceInput, OT, S> for ValidityFeedback
where
    OT: ObserversTuple<ChoiceInput, S>,
    S: HasMetadata + HasCorpus<ChoiceInput> + HasExecutions,
{
    fn is_interesting(
        &mut self,
        state: &mut S,
        _manager: &mut EM,
        _input: &ChoiceInput,
        observers: &OT,
        exit_kind: &ExitKind,
    ) -> Result<bool, Error> {
        self.last = (false, 0);
        self.kept_slow = None;
        if *exit_kind != ExitKind::Ok {
            return Ok(false);
        }
        let validity = observers
            .get(&self.replay)
            .ok_or_else(|| Error::key_not_found("replay observer"))?
            .replay()
            .validity;
        let valid = match validity {
            ExecutionClass::Valid => true,
            ExecutionClass::Invalid => false,
            ExecutionClass::TooLong => {
                if let Ok(history) = state.metadata_mut::<CoverageHistory>() {
                    history.too_long += 1;
                }
                return Ok(false);
            }
            ExecutionClass::Reject | ExecutionClass::Unknown => return Ok(false),
        };
        let hits = observers
            .get(&self.edges)
            .ok_or_else(|| Error::key_not_found("edge observer"))?
            .words();
        let executions = *state.executions();
        let history = state
            .metadata_map_mut()
            .get_mut::<CoverageHistory>()
            .ok_or_else(|| Error::key_not_found("coverage history"))?;
        history.judged_execs += 1;
        history.valid_execs += u64::from(valid);
        let (all, by_valid) =
            history.record_news(hits, valid, &mut self.contribution, &mut self.news);
        let new_edges = match self.criteria {
            SaveCriteria::Zest => all.new_edges,
            SaveCriteria::ValidOnly => by_valid.new_edges,
        };
        if new_edges > 0 {
            history.last_new_edge_execs = executions;
            history.last_new_edge_secs = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64());
        }
        // An entry of the run's own queue whose metadata a cut-short write lost is kept again,
        // so that the store writes it.
        let repairing = state
            .metadata::<LastMutation>()
            .is_ok_and(|m| m.existing.is_some() && m.repair);
        let new_paths = match self.grammar_paths {
            Some(k) if valid || self.criteria != SaveCriteria::ValidOnly => {
                let replay = observers
                    .get(&self.replay)
                    .ok_or_else(|| Error::key_not_found("replay observer"))?
                    .replay();
                state
                    .metadata_or_insert_with(|| super::GrammarPaths::new(k))
                    .record(&replay.sample.tree)
            }
            _ => 0,
        };
        let mut keep =
            self.criteria.keeps(self.grain, valid, all, by_valid) || repairing || new_paths > 0;
        if !keep
            && let Some(ceiling) = self.slow_ceiling
            && (valid || self.criteria != SaveCriteria::ValidOnly)
        {
            let replay = observers
                .get(&self.replay)
                .ok_or_else(|| Error::key_not_found("replay observer"))?
                .replay();
            keep = state
                .metadata_or_insert_with(super::SlowPaths::default)
                .record(replay.target_time, replay.text.len(), ceiling);
            self.kept_slow = keep.then_some(replay.target_time);
        }
        self.last = (valid, new_edges.max(by_valid.new_edges));
        Ok(keep)
    }

    fn append_metadata(
        &mut self,
        state: &mut S,
        _manager: &mut EM,
        observers: &OT,
        testcase: &mut Testcase<ChoiceInput>,
    ) -> Result<(), Error> {
        let replay = observers
            .get(&self.replay)
            .ok_or_else(|| Error::key_not_found("replay observer"))?
            .replay();
        let edges = observers
            .get(&self.edges)
            .ok_or_else(|| Error::key_not_found("edge observer"))?;
        *testcase.input_mut() = Some(
            ChoiceInput::new(replay.sample.choices.clone(), self.bounds)
                .with_words(replay.words.clone()),
        );
        let k = self.grammar_paths.unwrap_or(super::DEFAULT_QUEUE_PATHS_K);
        state
            .metadata_or_insert_with(|| super::QueuePaths::new(k))
            .record(&replay.sample.tree);
        let (valid, new_edges) = self.last;
        let mutation = state.metadata::<LastMutation>().ok().cloned();
        testcase.add_metadata(EntryInfo {
            existing: mutation.as_ref().and_then(|m| m.existing),
            text: replay.text.clone(),
            valid,
            new_edges,
            edges: edges.edge_count(),
            parent: parent_number(state),
            mutator: mutation.map(|m| m.mutation.to_string()).unwrap_or_default(),
            found_at: self.started.elapsed().as_secs_f64(),
            slow_ms: self
                .kept_slow
                .map(|t| (t.as_secs_f64() * 1e5).round() / 100.0),
            ..EntryInfo::default()
        });
        if let Some(build) = self.ships {
            // An entry kept for no new coverage (a new time record, a k-path, a repair)
            // ships its whole run.
            let hits = if self.news.is_empty() {
                edges.words().to_vec()
            } else {
                self.news.clone()
            };
            state.add_metadata(ShippedRun {
                build,
                valid,
                hits,
                target_time: replay.target_time,
                text_len: replay.text.len(),
            });
        }
        testcase.add_metadata(MapIndexesMetadata::new(edges.edge_list()));
        if !self.contribution.edges.is_empty() {
            testcase.add_metadata(std::mem::take(&mut self.contribution));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COUNTS: CoverageGrain = CoverageGrain::HitCounts;

    /// Words for `(edge, class)` pairs, as the edge observer reports them.
    fn hits(edges: &[(u32, u8)]) -> Vec<HitWord> {
        let mut words: Vec<HitWord> = Vec::new();
        for &(edge, class) in edges {
            let (index, shift) = (edge / 8, 8 * (edge % 8));
            match words.iter_mut().find(|w| w.index == index) {
                Some(w) => w.classes |= u64::from(class) << shift,
                None => words.push(HitWord {
                    index,
                    classes: u64::from(class) << shift,
                }),
            }
        }
        words
    }

    #[test]
    fn zest_keeps_new_coverage_and_new_valid_coverage() {
        let mut h = CoverageHistory::new(16);
        let zest = SaveCriteria::Zest;
        // An invalid input reaches edges 1 and 2 first: new coverage, kept.
        let (all, by_valid) = h.record(&hits(&[(1, 1), (2, 1), (9, 2)]), false);
        assert!(zest.keeps(COUNTS, false, all, by_valid));
        assert_eq!(all.new_edges, 3);
        // The same edges again, invalid: nothing new, dropped.
        let (all, by_valid) = h.record(&hits(&[(1, 1), (2, 1)]), false);
        assert!(!zest.keeps(COUNTS, false, all, by_valid));
        // A valid input on the same edges: nothing new overall, but new for valid inputs, kept
        // (it steals responsibility for the edges).
        let (all, by_valid) = h.record(&hits(&[(1, 1), (2, 1)]), true);
        assert!(!all.new_class);
        assert!(zest.keeps(COUNTS, true, all, by_valid));
        // A higher hit count class on a known edge counts as new.
        let (all, by_valid) = h.record(&hits(&[(1, 8)]), false);
        assert!(all.new_class && all.new_edges == 0);
        assert!(zest.keeps(COUNTS, false, all, by_valid));
        // At the grain of edges it is not.
        assert!(!zest.keeps(CoverageGrain::Edges, false, all, by_valid));
        assert_eq!((h.all_edges, h.valid_edges), (3, 2));
    }

    #[test]
    fn at_the_edge_grain_new_edges_and_new_valid_edges_are_kept() {
        let mut h = CoverageHistory::new(16);
        let edges = CoverageGrain::Edges;
        let (all, by_valid) = h.record(&hits(&[(1, 1)]), false);
        assert!(SaveCriteria::Zest.keeps(edges, false, all, by_valid));
        // Edge 1 again by a valid input: new for the valid history, kept under Zest and
        // restricted alike, as the paper's "+valid".
        let (all, by_valid) = h.record(&hits(&[(1, 2)]), true);
        assert!(SaveCriteria::Zest.keeps(edges, true, all, by_valid));
        assert!(SaveCriteria::ValidOnly.keeps(edges, true, all, by_valid));
        // A higher count by a valid input: dropped at this grain under both.
        let (all, by_valid) = h.record(&hits(&[(1, 8)]), true);
        assert!(by_valid.new_class);
        assert!(!SaveCriteria::Zest.keeps(edges, true, all, by_valid));
        assert!(!SaveCriteria::ValidOnly.keeps(edges, true, all, by_valid));
    }

    #[test]
    fn a_finding_names_the_edges_it_brought_and_whether_validity_mattered() {
        let mut h = CoverageHistory::new(32);
        let mut found = Contribution::default();
        h.record_finding(&hits(&[(3, 1), (17, 2)]), false, &mut found);
        assert_eq!(found.edges, [3, 17]);
        assert!(!found.must_be_valid);
        // Valid now: edge 3 is new to valid inputs only, edge 20 new altogether; the input
        // must stay valid to keep what it brought.
        h.record_finding(&hits(&[(3, 1), (20, 1)]), true, &mut found);
        assert_eq!(found.edges, [3, 20]);
        assert!(found.must_be_valid);
        // Nothing new: nothing contributed.
        h.record_finding(&hits(&[(3, 4), (20, 1)]), true, &mut found);
        assert!(found.edges.is_empty() && !found.must_be_valid);
    }

    #[test]
    fn the_news_of_an_execution_are_the_words_it_added_to_either_history() {
        let mut h = CoverageHistory::new(64);
        let mut found = Contribution::default();
        let mut news = Vec::new();
        h.record_news(&hits(&[(3, 1), (17, 2)]), false, &mut found, &mut news);
        assert_eq!(news, hits(&[(3, 1), (17, 2)]));
        // Word 0 (edge 3) is new to valid runs only, word 2 (edge 20) to both, word 5 (edge 41)
        // to neither: only the first two, each once.
        h.record(&hits(&[(41, 1)]), true);
        h.record_news(
            &hits(&[(20, 1), (3, 1), (41, 1)]),
            true,
            &mut found,
            &mut news,
        );
        assert_eq!(news, hits(&[(3, 1), (20, 1)]));
        h.record_news(&hits(&[(3, 1), (20, 1)]), true, &mut found, &mut news);
        assert!(news.is_empty());
    }

    fn words() -> impl proptest::strategy::Strategy<Value = Vec<(u32, u8)>> {
        proptest::collection::vec(
            (0u32..96, proptest::sample::select(vec![1u8, 2, 4, 128])),
            0..24,
        )
    }

    proptest::proptest! {
        /// A receiver that has seen everything the sender had seen before a run judges the run
        /// by its news exactly as by its whole coverage: the words outside the news hold
        /// nothing the sender lacked, so nothing the receiver lacks.
        #[test]
        fn news_judge_a_run_as_its_whole_coverage_does(
            sender_past in proptest::collection::vec((words(), proptest::bool::ANY), 0..6),
            receiver_own in proptest::collection::vec((words(), proptest::bool::ANY), 0..6),
            run in words(),
            valid in proptest::bool::ANY,
        ) {
            let mut sender = CoverageHistory::new(96);
            for (w, v) in &sender_past {
                sender.record(&hits(w), *v);
            }
            let mut receiver = sender.clone();
            for (w, v) in &receiver_own {
                receiver.record(&hits(w), *v);
            }
            let run = hits(&run);
            let mut news = Vec::new();
            sender.record_news(&run, valid, &mut Contribution::default(), &mut news);
            proptest::prop_assert_eq!(receiver.peek(&news, valid), receiver.peek(&run, valid));
        }
    }

    proptest::proptest! {
        /// Skipping the whole history's pass when a valid run brings nothing to the valid one
        /// changes nothing: over any sequence of runs, every answer, the news, the contribution
        /// and both histories are those of passing over both every time.
        #[test]
        fn a_valid_run_new_to_nothing_valid_is_new_to_nothing(
            runs in proptest::collection::vec((words(), proptest::bool::ANY), 1..12),
        ) {
            let (mut skipping, mut both) = (CoverageHistory::new(96), CoverageHistory::new(96));
            for (w, valid) in &runs {
                let run = hits(w);
                let (mut found, mut news) = (Contribution::default(), Vec::new());
                let answer = skipping.record_news(&run, *valid, &mut found, &mut news);
                let (mut found_both, mut news_both) = (Contribution::default(), Vec::new());
                let all = Novelty::record(
                    &mut both.all, &mut both.all_edges, &run, &mut found_both.edges, &mut news_both,
                );
                let mut valid_new = Vec::new();
                let by_valid = if *valid {
                    Novelty::record(
                        &mut both.valid, &mut both.valid_edges, &run, &mut valid_new, &mut news_both,
                    )
                } else {
                    Novelty::default()
                };
                settle(&mut found_both, valid_new, &mut news_both);
                proptest::prop_assert_eq!(answer, (all, by_valid));
                proptest::prop_assert_eq!(&found, &found_both);
                proptest::prop_assert_eq!(&news, &news_both);
                proptest::prop_assert_eq!(&skipping.all, &both.all);
                proptest::prop_assert_eq!(&skipping.valid, &both.valid);
                proptest::prop_assert_eq!(
                    (skipping.all_edges, skipping.valid_edges),
                    (both.all_edges, both.valid_edges)
                );
            }
        }
    }

    #[test]
    fn valid_only_keeps_only_valid_inputs() {
        let mut h = CoverageHistory::new(16);
        let restricted = SaveCriteria::ValidOnly;
        let (all, by_valid) = h.record(&hits(&[(3, 1)]), false);
        assert!(!restricted.keeps(COUNTS, false, all, by_valid));
        let (all, by_valid) = h.record(&hits(&[(3, 1)]), true);
        assert!(restricted.keeps(COUNTS, true, all, by_valid));
        let (all, by_valid) = h.record(&hits(&[(3, 1)]), true);
        assert!(!restricted.keeps(COUNTS, true, all, by_valid));
        assert_eq!(h.corpus_edges(restricted), 1);
    }
}
