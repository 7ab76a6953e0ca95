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
/// and choice-less nodes included) is not kept: the donor takes 13 to 30% of the bytes (300
/// generated inputs at 3,3,3: wgsl 13%, javascript 23%, starlark 30%), so the same budget holds
/// three to seven times the donors.
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
/// Donors are drawn uniformly from the whole corpus, so the cache's hit rate is about its share
/// of the corpus. Drawing most donors from the cache instead (three in four) was tried: a
/// single-core run made 1 to 6% more executions a second, but covered fewer edges in all six
/// starlark and naga pairs (`docs/results/issue-33-every-core.md`), so the draw stays uniform.
pub struct DonorCache {
    donors: HashMap<CorpusId, Donor, ahash::RandomState>,
    /// The cached ids, to draw one uniformly.
    ids: Vec<CorpusId>,
    bytes: usize,
    budget: usize,
}

impl DonorCache {
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

    /// The donor to use among `count` corpus entries: any of them, uniformly.
    pub fn pick<R: Rand>(&self, rng: &mut R, count: usize) -> CorpusId {
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
    fn a_cached_donor_is_not_replayed_again_and_every_entry_can_be_drawn() {
        let all = samples(200);
        let mut cache = DonorCache::new(usize::MAX);
        let mut rng = StdRand::with_seed(5);
        let (mut replays, mut drawn) = (0, std::collections::HashSet::new());
        for _ in 0..2000 {
            let id = cache.pick(&mut rng, all.len());
            drawn.insert(id);
            let donor = cache
                .get_or_replay(id, || {
                    replays += 1;
                    Ok::<_, ()>(all[id.0].clone())
                })
                .unwrap();
            assert_eq!(donor.choices, all[id.0].choices.as_slice());
        }
        assert_eq!(replays, drawn.len(), "a cached donor was replayed again");
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
