//! Splice donors: other corpus entries, reduced to what a splice reads from them.

use std::collections::HashMap;

use libafl::corpus::CorpusId;
use libafl_bolts::rands::{Rand, StdRand};

use crate::grammar::RuleId;
use crate::sampler::Sample;
use crate::tree::NodeKind;

/// One donor: the choice span of every subtree of its tree that made decisions, by rule. A
/// splice asks only "a span of rule R", so neither the tree (24 bytes a node) nor a list of
/// `(rule, start, end)` triples (12 bytes a span) is kept: each rule's spans are two LEB128
/// numbers each, the start as a step from the rule's previous span (a pre-order tree's spans
/// start in order) and the length, which takes one or two bytes for nearly all of them.
///
/// The choices themselves are the corpus entry's: entries are normalized, so replaying one
/// gives back its own choices, and the spans index those. A donor keeps a copy only where the
/// replay differed (it never has in a run, but the spans must index what was replayed).
///
/// Measured on a 40-second starlark queue (2,577 entries at 3,3,3): triples and a copy of the
/// choices took 54.5 MB, 21 KB a donor, so the 4 MB cache held under a tenth of the queue and
/// nearly every splice replayed its donor (7.4% of the run's time).
pub struct Donor {
    /// The rules with spans, sorted, each with the offset of its first span in `encoded`.
    rules: Vec<(u32, u32)>,
    encoded: Vec<u8>,
    /// The replayed choices, only where they are not the entry's.
    own_choices: Option<Vec<u32>>,
    /// The choices of the entry it was made from, as [`fingerprint`] reads them: the loop's
    /// trim replaces an entry by a smaller one under the same id, and spans of the old choices
    /// would index past the end of the new ones.
    made_from: u64,
}

/// A hash of an entry's choices, length included: whether a cached donor was made from the
/// choices an entry has now. A few kilobytes hashed per splice, next to a replay per miss.
fn fingerprint(entry: &[u32]) -> u64 {
    ahash::RandomState::with_seeds(7, 11, 13, 17).hash_one(entry)
}

impl Donor {
    /// The donor `sample` (a replay of `entry`'s choices) makes.
    pub fn of(sample: &Sample, entry: &[u32]) -> Self {
        // The spans grouped by rule, each rule's in tree order (so their starts never
        // decrease): a counting sort, two passes over the nodes, where sorting the triples was
        // a third of building a donor.
        let spanned = |n: &crate::tree::Node| match n.kind {
            NodeKind::Rule { rule, .. } if n.choices_end > n.choices_start => Some(rule.0),
            _ => None,
        };
        let nodes = sample.tree.nodes();
        let mut first: Vec<u32> = Vec::new();
        for rule in nodes.iter().filter_map(spanned) {
            if rule as usize >= first.len() {
                first.resize(rule as usize + 1, 0);
            }
            first[rule as usize] += 1;
        }
        let mut rules = Vec::new();
        let mut total = 0;
        for (rule, count) in first.iter_mut().enumerate() {
            if *count > 0 {
                rules.push((rule as u32, 0));
            }
            let at = total;
            total += *count;
            *count = at;
        }
        let mut spans = vec![(0u32, 0u32); total as usize];
        for node in nodes {
            if let Some(rule) = spanned(node) {
                let at = &mut first[rule as usize];
                spans[*at as usize] = (node.choices_start, node.choices_end);
                *at += 1;
            }
        }
        // `first[rule]` is now the end of the rule's spans; `rules` lists them in rule order.
        let mut encoded = Vec::with_capacity(spans.len() * 2);
        let mut from = 0;
        for (rule, offset) in &mut rules {
            *offset = encoded.len() as u32;
            let mut previous = 0;
            for &(start, end) in &spans[from..first[*rule as usize] as usize] {
                push_leb128(&mut encoded, start - previous);
                push_leb128(&mut encoded, end - start);
                previous = start;
            }
            from = first[*rule as usize] as usize;
        }
        rules.shrink_to_fit();
        encoded.shrink_to_fit();
        let own_choices =
            (sample.choices.as_slice() != entry).then(|| sample.choices.as_slice().to_vec());
        Self {
            rules,
            encoded,
            own_choices,
            made_from: fingerprint(entry),
        }
    }

    /// The choices the spans index: `entry`'s (the corpus entry's), unless the replay differed.
    pub fn choices<'a>(&'a self, entry: &'a [u32]) -> &'a [u32] {
        self.own_choices.as_deref().unwrap_or(entry)
    }

    /// The choice spans `(start, end)` of this donor's subtrees of `rule`, in tree order.
    pub fn spans_of(&self, rule: RuleId) -> impl Iterator<Item = (usize, usize)> + '_ {
        let k = self.rules.partition_point(|&(r, _)| r < rule.0);
        let bytes = match self.rules.get(k) {
            Some(&(r, from)) if r == rule.0 => {
                let to = self
                    .rules
                    .get(k + 1)
                    .map_or(self.encoded.len(), |&(_, to)| to as usize);
                &self.encoded[from as usize..to]
            }
            _ => &[],
        };
        let mut at = 0;
        let mut start = 0usize;
        std::iter::from_fn(move || {
            if at == bytes.len() {
                return None;
            }
            start += read_leb128(bytes, &mut at) as usize;
            let len = read_leb128(bytes, &mut at) as usize;
            Some((start, start + len))
        })
    }

    /// Heap bytes the donor holds.
    pub fn bytes(&self) -> usize {
        self.rules.capacity() * size_of::<(u32, u32)>()
            + self.encoded.capacity()
            + self
                .own_choices
                .as_ref()
                .map_or(0, |c| c.capacity() * size_of::<u32>())
    }
}

/// Appends `value` as a LEB128 number (postcard's varint: seven bits a byte, low first), one
/// byte for a span below 128 choices, which most are.
fn push_leb128(out: &mut Vec<u8>, value: u32) {
    let mut buffer = [0u8; 5];
    let written = postcard::to_slice(&value, &mut buffer).expect("a u32 takes at most 5 bytes");
    // Byte by byte: a copy of a length the compiler cannot know is a call to `memcpy`, and a
    // donor makes thousands of one- and two-byte ones (a fifth of building a starlark donor).
    for &byte in written.iter() {
        out.push(byte);
    }
}

/// Reads one number that [`push_leb128`] wrote at `at`, and moves `at` past it.
fn read_leb128(bytes: &[u8], at: &mut usize) -> u32 {
    let (value, rest) = postcard::take_from_bytes::<u32>(&bytes[*at..])
        .expect("a donor's spans are the numbers push_leb128 wrote");
    *at = bytes.len() - rest.len();
    value
}

/// The donors replayed so far, within a byte budget; a donor that does not fit pushes out
/// others drawn at random, so the cache stays full.
///
/// Donors are drawn uniformly from the whole corpus, so the cache's hit rate is about its share
/// of the corpus. Drawing most donors from the cache instead (three in four) was tried: a
/// single-core run made 1 to 6% more executions a second, but covered fewer edges in all six
/// starlark and naga pairs (`docs/results/issue-33-every-core.md`), so the draw stays uniform.
/// The evictions draw from the cache's own generator: what is cached changes the speed only,
/// never which mutants the run makes.
pub struct DonorCache {
    donors: HashMap<CorpusId, Donor, ahash::RandomState>,
    /// The cached ids, to evict one at random.
    ids: Vec<CorpusId>,
    bytes: usize,
    budget: usize,
    evictions: StdRand,
}

impl DonorCache {
    pub fn new(budget: usize) -> Self {
        Self {
            donors: HashMap::default(),
            ids: Vec::new(),
            bytes: 0,
            budget,
            evictions: StdRand::with_seed(0x5eed_d0a0),
        }
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The donor to use among `count` corpus entries: any of them, uniformly.
    pub fn pick<R: Rand>(&self, rng: &mut R, count: usize) -> CorpusId {
        CorpusId(rng.below_or_zero(count))
    }

    /// The donor `id`, whose corpus entry has the choices `entry`, replayed by `replay` if it
    /// is not cached, or was cached from other choices (the entry was trimmed since).
    pub fn get_or_replay<E>(
        &mut self,
        id: CorpusId,
        entry: &[u32],
        replay: impl FnOnce() -> Result<Sample, E>,
    ) -> Result<&Donor, E> {
        let current = self
            .donors
            .get(&id)
            .is_some_and(|donor| donor.made_from == fingerprint(entry));
        if !current {
            self.insert(id, Donor::of(&replay()?, entry));
        }
        Ok(&self.donors[&id])
    }

    /// Caches the donor of a new entry `id` from `sample`, the run that saved it, when that run
    /// replayed the entry's choices `entry` exactly; otherwise leaves it to be replayed when
    /// drawn. Early in a run nearly every entry is drawn as a donor soon after it is saved, and
    /// its replay then cost a splice as much as the run that saved it (a fifth of the engine's
    /// sampling in starlark's first 30,000 executions); the saving run's tree is at hand for
    /// nothing. Returns whether it cached.
    pub fn offer(&mut self, id: CorpusId, sample: &Sample, entry: &[u32]) -> bool {
        if sample.choices.as_slice() != entry {
            return false;
        }
        self.insert(id, Donor::of(sample, entry));
        true
    }

    /// Puts `donor` in place of any donor `id` had, evicting others at random until it fits.
    fn insert(&mut self, id: CorpusId, donor: Donor) {
        if let Some(stale) = self.donors.remove(&id) {
            self.bytes -= stale.bytes();
            self.ids.retain(|&cached| cached != id);
        }
        let size = donor.bytes();
        while self.bytes + size > self.budget && !self.ids.is_empty() {
            let k = self.evictions.below_or_zero(self.ids.len());
            let evicted = self.ids.swap_remove(k);
            if let Some(gone) = self.donors.remove(&evicted) {
                self.bytes -= gone.bytes();
            }
        }
        self.bytes += size;
        self.ids.push(id);
        self.donors.insert(id, donor);
    }
}

#[cfg(test)]
pub(super) mod tests {
    use libafl_bolts::rands::StdRand;

    use super::*;
    use crate::grammar::Grammar;
    use crate::sampler::{Bounds, Sampler};

    /// The donor tests' grammar, shared with splice's.
    pub(in crate::mutators) fn grammar() -> &'static Grammar {
        Box::leak(Box::new(
            Grammar::from_text(
                "g",
                "s = e ; e = e \"+\" e | \"(\" e \")\" | \"[\" e \"]\" | \"x\" | \"y\" ;",
            )
            .unwrap(),
        ))
    }

    pub(in crate::mutators) fn bounds() -> Bounds {
        Bounds::new(1, 2, 6).unwrap()
    }

    /// `count` fresh samples of [`grammar`] within [`bounds`], the same ones every call.
    pub(in crate::mutators) fn samples(count: usize) -> Vec<Sample> {
        let mut sampler = Sampler::new(grammar(), bounds()).unwrap();
        let mut rng = StdRand::with_seed(3);
        (0..count)
            .map(|_| {
                let mut sample = Sample::default();
                sampler.generate(&mut rng, &mut sample);
                sample
            })
            .collect()
    }

    #[test]
    fn a_donor_gives_the_spans_of_each_rule_as_its_tree_has_them() {
        for sample in samples(20) {
            let entry = sample.choices.as_slice();
            let donor = Donor::of(&sample, entry);
            assert_eq!(donor.choices(entry), entry);
            assert!(
                donor.own_choices.is_none(),
                "the entry's choices are not copied"
            );
            let rules: std::collections::BTreeSet<RuleId> = sample
                .tree
                .nodes()
                .iter()
                .filter_map(|n| match n.kind {
                    NodeKind::Rule { rule, .. } => Some(rule),
                    _ => None,
                })
                .collect();
            for rule in rules {
                let from_tree: Vec<(usize, usize)> = sample
                    .tree
                    .nodes()
                    .iter()
                    .filter(|n| n.choices_end > n.choices_start)
                    .filter(|n| matches!(n.kind, NodeKind::Rule { rule: r, .. } if r == rule))
                    .map(|n| (n.choices_start as usize, n.choices_end as usize))
                    .collect();
                assert_eq!(donor.spans_of(rule).collect::<Vec<_>>(), from_tree);
            }
            let tree_bytes = sample.tree.len() * size_of::<crate::tree::Node>();
            assert!(donor.bytes() < tree_bytes + sample.choices.len() * 4);
        }
    }

    /// The loop's trim replaces an entry by a smaller one under the same id: the donor cached
    /// from the old choices must not be used with the new ones (its spans would index past
    /// their end, which panicked the engine), and the cache's byte count follows the swap.
    #[test]
    fn a_donor_whose_entry_changed_is_replayed_again() {
        let mut samples = samples(40);
        samples.sort_by_key(|s| s.choices.len());
        let (small, large) = (samples[0].clone(), samples.pop().unwrap());
        assert!(small.choices.len() < large.choices.len());
        let mut cache = DonorCache::new(1 << 20);
        let id = CorpusId(3);
        cache
            .get_or_replay(id, large.choices.as_slice(), || Ok::<_, ()>(large.clone()))
            .unwrap();
        let mut replayed = false;
        let donor = cache
            .get_or_replay(id, large.choices.as_slice(), || {
                replayed = true;
                Ok::<_, ()>(large.clone())
            })
            .unwrap();
        assert!(!replayed, "the same choices are served from the cache");
        let longest = |donor: &Donor| {
            donor
                .rules
                .iter()
                .flat_map(|&(rule, _)| donor.spans_of(RuleId(rule)))
                .map(|(_, end)| end)
                .max()
                .unwrap_or(0)
        };
        assert!(
            longest(donor) > small.choices.len(),
            "a span past the new entry's end"
        );
        let donor = cache
            .get_or_replay(id, small.choices.as_slice(), || {
                replayed = true;
                Ok::<_, ()>(small.clone())
            })
            .unwrap();
        assert!(replayed, "the trimmed entry was not replayed");
        assert!(longest(donor) <= small.choices.len());
        let held: usize = cache.donors.values().map(Donor::bytes).sum();
        assert_eq!(cache.bytes(), held);
        assert_eq!(cache.ids, vec![id]);
    }

    /// A donor offered from the run that saved its entry is the one a replay would make, and
    /// is served without replaying; a run whose choices are not the entry's offers nothing.
    #[test]
    fn an_offered_donor_is_served_as_the_replayed_one_would_be() {
        let all = samples(30);
        let mut offered = DonorCache::new(1 << 20);
        let mut replayed = DonorCache::new(1 << 20);
        for (k, sample) in all.iter().enumerate() {
            let entry = sample.choices.as_slice();
            assert!(offered.offer(CorpusId(k), sample, entry));
            let served = offered
                .get_or_replay(CorpusId(k), entry, || Err("replayed an offered donor"))
                .unwrap();
            let made = replayed
                .get_or_replay(CorpusId(k), entry, || Ok::<_, ()>(sample.clone()))
                .unwrap();
            assert_eq!(served.rules, made.rules);
            assert_eq!(served.encoded, made.encoded);
            assert_eq!(served.choices(entry), made.choices(entry));
        }
        assert_eq!(offered.bytes(), replayed.bytes());
        let mut other = all[0].choices.as_slice().to_vec();
        other.push(1);
        let mut cache = DonorCache::new(1 << 20);
        assert!(!cache.offer(CorpusId(0), &all[0], &other));
        assert_eq!(cache.bytes(), 0);
    }

    #[test]
    fn spans_far_apart_and_long_decode_as_they_were() {
        for (value, width) in [
            (0, 1),
            (1, 1),
            (127, 1),
            (128, 2),
            (300, 2),
            (16_383, 2),
            (16_384, 3),
            (1 << 21, 4),
            (u32::MAX, 5),
        ] {
            let mut bytes = Vec::new();
            push_leb128(&mut bytes, value);
            assert_eq!(bytes.len(), width, "{value} in {width} bytes");
            push_leb128(&mut bytes, 5);
            let mut at = 0;
            assert_eq!(read_leb128(&bytes, &mut at), value);
            assert_eq!(read_leb128(&bytes, &mut at), 5);
            assert_eq!(at, bytes.len());
        }
    }

    #[test]
    fn a_replay_that_differs_from_its_entry_keeps_its_own_choices() {
        let sample = samples(1).remove(0);
        let mut entry = sample.choices.as_slice().to_vec();
        entry.push(7);
        let donor = Donor::of(&sample, &entry);
        assert_eq!(donor.choices(&entry), sample.choices.as_slice());
    }

    #[test]
    fn a_cached_donor_is_not_replayed_again_and_every_entry_can_be_drawn() {
        let all = samples(200);
        let mut cache = DonorCache::new(usize::MAX);
        let mut rng = StdRand::with_seed(5);
        let (mut replays, mut drawn) = (0, std::collections::HashSet::new());
        for _ in 0..2000 {
            let id = cache.pick(&mut rng, all.len());
            drawn.insert(id);
            let entry = all[id.0].choices.as_slice();
            let donor = cache
                .get_or_replay(id, entry, || {
                    replays += 1;
                    Ok::<_, ()>(all[id.0].clone())
                })
                .unwrap();
            assert_eq!(donor.choices(entry), entry);
        }
        assert_eq!(replays, drawn.len(), "a cached donor was replayed again");
        assert!(
            drawn.len() > 190,
            "only {} of 200 entries drawn",
            drawn.len()
        );
    }

    #[test]
    fn a_full_cache_stays_full_within_its_budget() {
        let all = samples(100);
        let largest = all
            .iter()
            .map(|s| Donor::of(s, s.choices.as_slice()).bytes())
            .max()
            .unwrap();
        let budget = 6 * largest;
        let mut cache = DonorCache::new(budget);
        let mut rng = StdRand::with_seed(9);
        let mut most = 0;
        for k in 0..1000 {
            let id = cache.pick(&mut rng, all.len());
            cache
                .get_or_replay(id, all[id.0].choices.as_slice(), || {
                    Ok::<_, ()>(all[id.0].clone())
                })
                .unwrap();
            most = most.max(cache.bytes());
            assert_eq!(cache.ids.len(), cache.donors.len());
            let held: usize = cache.donors.values().map(Donor::bytes).sum();
            assert_eq!(held, cache.bytes());
            if k >= 100 {
                // Evictions take out only what the newcomer needs: the cache stays nearly full.
                assert!(
                    cache.bytes() + largest > budget,
                    "{} of {budget} after {k}",
                    cache.bytes()
                );
            }
        }
        assert!(most <= budget, "held {most} under {budget}");
    }

    /// The donor sizes of a run's queue, as the results report them (not run by `cargo test`):
    ///
    /// `BONSAI_DONOR_QUEUE=OUT/queue BONSAI_DONOR_GRAMMAR=$PWD/grammars/starlark.ebnf
    /// BONSAI_DONOR_BOUNDS=3,3,3 cargo test --release -p bonsai --lib donor_bytes_of_a_queue --
    /// --ignored --nocapture`
    ///
    /// prints the bytes the donors take as kept now and as they were kept before 6d64751 (the
    /// choices and a `(rule, start, end)` triple per span). Every entry must replay to its own
    /// choices, or the donors would need copies of them.
    #[test]
    #[ignore = "a measurement over a run's queue, named by environment variables"]
    fn donor_bytes_of_a_queue() {
        let variable = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("set {name}"));
        let grammar: &'static Grammar = Box::leak(Box::new(
            Grammar::from_file(std::path::Path::new(&variable("BONSAI_DONOR_GRAMMAR"))).unwrap(),
        ));
        let bounds: Vec<u32> = variable("BONSAI_DONOR_BOUNDS")
            .split(',')
            .map(|b| b.parse().unwrap())
            .collect();
        let mut sampler = Sampler::new(
            grammar,
            Bounds::new(bounds[0], bounds[1], bounds[2]).unwrap(),
        )
        .unwrap();
        let mut rng = StdRand::with_seed(1);
        let (mut now, mut before) = (Vec::new(), 0usize);
        for file in std::fs::read_dir(variable("BONSAI_DONOR_QUEUE")).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_none_or(|e| e != "choices") {
                continue;
            }
            let saved = crate::choice::SavedChoices::read(&path).unwrap();
            let mut sample = Sample::default();
            let _ = sampler.sample(
                saved.choices.as_slice(),
                crate::choice::Replay::Repair,
                &mut rng,
                &mut sample,
            );
            let donor = Donor::of(&sample, saved.choices.as_slice());
            assert!(
                donor.own_choices.is_none(),
                "{} does not replay to itself",
                path.display()
            );
            let spans: usize = donor
                .rules
                .iter()
                .map(|&(rule, _)| donor.spans_of(RuleId(rule)).count())
                .sum();
            before +=
                sample.choices.len() * size_of::<u32>() + spans * size_of::<(u32, u32, u32)>();
            now.push(donor.bytes());
        }
        now.sort_unstable();
        let total: usize = now.iter().sum();
        println!(
            "{} donors: {total} bytes now (median {}, largest {}); {before} bytes as choices and triples",
            now.len(),
            now[now.len() / 2],
            now[now.len() - 1],
        );
    }
}
