//! Splice donors: other corpus entries, reduced to what a splice reads from them.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use libafl::corpus::CorpusId;
use libafl_bolts::rands::Rand;

use crate::grammar::RuleId;
use crate::sampler::Sample;
use crate::tree::NodeKind;

/// One donor: its choices, and the choice span of every subtree that made decisions, by
/// rule. A splice asks only "a span of rule R", so the tree itself (24 bytes a node, terminals
/// and choice-less nodes included) is not kept: about a third of the bytes, three times the
/// donors in the same budget.
pub struct Donor {
    pub choices: Vec<u32>,
    /// `(rule, start, end)`, sorted by rule.
    spans: Vec<(u32, u32, u32)>,
}

impl Donor {
    pub fn of(sample: &Sample) -> Self {
        let mut spans: Vec<(u32, u32, u32)> = sample
            .tree
            .nodes()
            .iter()
            .filter(|n| n.choices_end > n.choices_start)
            .filter_map(|n| match n.kind {
                NodeKind::Rule { rule, .. } => Some((rule.0, n.choices_start, n.choices_end)),
                _ => None,
            })
            .collect();
        // Stable: the spans of one rule stay in tree order.
        spans.sort_by_key(|&(rule, _, _)| rule);
        Self {
            choices: sample.choices.as_slice().to_vec(),
            spans,
        }
    }

    /// The choice spans `(start, end)` of this donor's subtrees of `rule`.
    pub fn spans_of(&self, rule: RuleId) -> impl Iterator<Item = (usize, usize)> + '_ {
        let first = self.spans.partition_point(|&(r, _, _)| r < rule.0);
        self.spans[first..]
            .iter()
            .take_while(move |&&(r, _, _)| r == rule.0)
            .map(|&(_, start, end)| (start as usize, end as usize))
    }

    /// Heap bytes the donor holds.
    pub fn bytes(&self) -> usize {
        self.choices.len() * size_of::<u32>() + self.spans.len() * size_of::<(u32, u32, u32)>()
    }
}

/// The donors replayed so far, within a byte budget; beyond it the cache starts over.
///
/// Why a splice mostly reuses a cached donor: a donor drawn uniformly from the corpus is in
/// the cache about as often as the cache's share of the corpus (a few percent of a long run's
/// entries), so nearly every splice replayed a whole entry, and splice, one mutator in seven,
/// took 6% of a single-core run (a profile, `docs/results/issue-33-every-core.md`). Drawing
/// from the cache most of the time keeps the donors a uniform sample of the corpus (every entry
/// enters the cache through the uniform draws, and the cache starts over when full), only
/// drawn in batches.
pub struct DonorCache {
    donors: HashMap<CorpusId, Donor, ahash::RandomState>,
    /// The cached ids, to draw one uniformly.
    ids: Vec<CorpusId>,
    bytes: usize,
    budget: usize,
}

impl DonorCache {
    /// The chance that a splice draws its donor among the cached ones (when there are any).
    pub const REUSE: f64 = 0.75;

    pub fn new(budget: usize) -> Self {
        Self {
            donors: HashMap::default(),
            ids: Vec::new(),
            bytes: 0,
            budget,
        }
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The donor to use among `count` corpus entries: a cached one with chance
    /// [`Self::REUSE`], else any entry.
    pub fn pick<R: Rand>(&self, rng: &mut R, count: usize) -> CorpusId {
        if !self.ids.is_empty() && rng.coinflip(Self::REUSE) {
            return self.ids[rng.below_or_zero(self.ids.len())];
        }
        CorpusId(rng.below_or_zero(count))
    }

    /// The donor `id`, replayed by `replay` if it is not cached.
    pub fn get_or_replay<E>(
        &mut self,
        id: CorpusId,
        replay: impl FnOnce() -> Result<Sample, E>,
    ) -> Result<&Donor, E> {
        if self.bytes >= self.budget && !self.donors.contains_key(&id) {
            self.donors = HashMap::default();
            self.ids.clear();
            self.bytes = 0;
        }
        Ok(match self.donors.entry(id) {
            Entry::Occupied(cached) => cached.into_mut(),
            Entry::Vacant(slot) => {
                let donor = Donor::of(&replay()?);
                self.bytes += donor.bytes();
                self.ids.push(id);
                slot.insert(donor)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use libafl_bolts::rands::StdRand;

    use super::*;
    use crate::grammar::Grammar;
    use crate::sampler::{Bounds, Sampler};

    fn samples(count: usize) -> Vec<Sample> {
        let grammar: &'static Grammar = Box::leak(Box::new(
            Grammar::from_text(
                "g",
                "s = e ; e = e \"+\" e | \"(\" e \")\" | \"[\" e \"]\" | \"x\" | \"y\" ;",
            )
            .unwrap(),
        ));
        let mut sampler = Sampler::new(grammar, Bounds::new(1, 2, 6).unwrap()).unwrap();
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
            let donor = Donor::of(&sample);
            assert_eq!(donor.choices, sample.choices.as_slice());
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

    #[test]
    fn most_picks_reuse_a_cached_donor_and_every_entry_can_be_drawn() {
        let all = samples(200);
        // Room for about a tenth of the entries: a uniform draw would find its donor cached
        // about one time in ten.
        let mean = all.iter().map(|s| Donor::of(s).bytes()).sum::<usize>() / all.len();
        let mut cache = DonorCache::new(20 * mean);
        let mut rng = StdRand::with_seed(5);
        let (mut replays, mut drawn) = (0, std::collections::HashSet::new());
        for _ in 0..4000 {
            let id = cache.pick(&mut rng, all.len());
            drawn.insert(id);
            cache
                .get_or_replay(id, || {
                    replays += 1;
                    Ok::<_, ()>(all[id.0].clone())
                })
                .unwrap();
        }
        assert!(replays < 1400, "{replays} replays in 4,000 picks");
        assert!(
            drawn.len() > 190,
            "only {} of 200 entries drawn",
            drawn.len()
        );
    }

    #[test]
    fn a_full_cache_starts_over_within_its_budget() {
        let all = samples(100);
        let largest = all.iter().map(|s| Donor::of(s).bytes()).max().unwrap();
        let budget = 2 * largest;
        let mut cache = DonorCache::new(budget);
        let mut rng = StdRand::with_seed(9);
        let mut most = 0;
        for _ in 0..1000 {
            let id = cache.pick(&mut rng, all.len());
            cache
                .get_or_replay(id, || Ok::<_, ()>(all[id.0].clone()))
                .unwrap();
            most = most.max(cache.bytes());
            assert_eq!(cache.ids.len(), cache.donors.len());
        }
        assert!(most <= budget + largest, "held {most} under {budget}");
    }
}
