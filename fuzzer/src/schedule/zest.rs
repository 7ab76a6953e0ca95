//! Zest's scheduler: cycle through the queue; favored entries own some edge.

use libafl::HasMetadata;
use libafl::corpus::{Corpus, CorpusId};
use libafl::schedulers::{RemovableScheduler, Scheduler};
use libafl::state::{HasCorpus, HasRand};
use libafl_bolts::Error;
use libafl_bolts::rands::Rand;
use serde::{Deserialize, Serialize};

use super::energy::{ChildrenRule, Energy, zest_energy};
use crate::choice::ChoiceInput;
use crate::corpus::EntryInfo;
use libafl::feedbacks::MapIndexesMetadata;

const NOBODY: u32 = u32::MAX;

/// Who is responsible for each edge, and what that makes of each entry. State metadata, so it
/// survives LibAFL's restarts.
///
/// An edge's owner is the entry that best represents it: the first to reach it, replaced by a
/// valid entry if the owner is invalid (Zest's "valid inputs steal responsibility"), or by a
/// smaller entry of the same validity. An entry that owns at least one edge is *favored*.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Ownership {
    /// Per edge: the owning corpus id, or `NOBODY`.
    owner: Vec<u32>,
    /// Per corpus id: edges owned, whether valid, text size, edges covered.
    entries: Vec<OwnerEntry>,
    pub best_edges: u32,
    total_size: u64,
    pub cycles: u64,
    /// The mean of [`Self::energy`] over all entries, while no entry has been added since it
    /// was computed: energies change only in [`Self::add`].
    #[serde(skip)]
    mean_energy: Option<f64>,
    /// Entries never picked, oldest first; kept only while [`ZestScheduler::with_newest_first`]
    /// is on, so that the default schedule pays nothing for it.
    unpicked: Vec<u32>,
    /// Where the cycle stands, apart from picks of the newest entries.
    cycle_at: Option<CorpusId>,
}
libafl_bolts::impl_serdeany!(Ownership);

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
struct OwnerEntry {
    owned: u32,
    valid: bool,
    size: u32,
    edges: u32,
}

impl Ownership {
    pub fn new(edges: usize) -> Self {
        Self {
            owner: vec![NOBODY; edges],
            ..Self::default()
        }
    }

    /// Registers entry `id` covering `edges`.
    pub fn add(&mut self, id: usize, edges: &[usize], valid: bool, size: usize) {
        if self.entries.len() <= id {
            self.entries.resize(id + 1, OwnerEntry::default());
        }
        let size = size.min(u32::MAX as usize) as u32;
        self.entries[id] = OwnerEntry {
            owned: 0,
            valid,
            size,
            edges: edges.len() as u32,
        };
        for &edge in edges {
            let Some(slot) = self.owner.get_mut(edge) else {
                continue;
            };
            let takes = match *slot {
                NOBODY => true,
                old => {
                    let holder = self.entries[old as usize];
                    (valid && !holder.valid) || (valid == holder.valid && size < holder.size)
                }
            };
            if takes {
                if *slot != NOBODY {
                    self.entries[*slot as usize].owned -= 1;
                }
                *slot = id as u32;
                self.entries[id].owned += 1;
            }
        }
        self.best_edges = self.best_edges.max(edges.len() as u32);
        self.total_size += u64::from(size);
        self.mean_energy = None;
    }

    /// The newest entry never picked, which is then no longer unpicked.
    fn take_newest_unpicked(&mut self) -> Option<CorpusId> {
        self.unpicked.pop().map(|id| CorpusId(id as usize))
    }

    fn mark_picked(&mut self, id: CorpusId) {
        if self.unpicked.last() == Some(&(id.0 as u32)) {
            self.unpicked.pop();
        } else if let Some(at) = self.unpicked.iter().position(|&u| u as usize == id.0) {
            self.unpicked.remove(at);
        }
    }

    #[cfg(test)]
    pub fn is_favored(&self, id: usize) -> bool {
        self.entries.get(id).is_some_and(|e| e.owned > 0)
    }

    pub fn favored_count(&self) -> usize {
        self.entries.iter().filter(|e| e.owned > 0).count()
    }

    pub fn mean_size(&self) -> f64 {
        self.total_size as f64 / self.entries.len().max(1) as f64
    }

    pub fn energy(&self, id: usize) -> u64 {
        let entry = self.entries.get(id).copied().unwrap_or_default();
        zest_energy(
            entry.edges,
            self.best_edges,
            entry.owned > 0,
            entry.size as usize,
            self.mean_size(),
        )
    }

    /// The children of entry `id` when a pass over the queue is to cost `per_entry` children
    /// per entry on average: its [`Self::energy`] scaled by `per_entry / mean energy`, at
    /// least one. The weights stay Zest's; only the length of a pass is fixed.
    pub fn spread_children(&mut self, id: usize, per_entry: u64) -> u64 {
        let mean = match self.mean_energy {
            Some(mean) => mean,
            None => {
                let total: u64 = (0..self.entries.len()).map(|i| self.energy(i)).sum();
                let mean = total as f64 / self.entries.len().max(1) as f64;
                self.mean_energy = Some(mean);
                mean
            }
        };
        let scaled = self.energy(id) as f64 * per_entry as f64 / mean.max(1.0);
        (scaled.round() as u64).max(1)
    }
}

/// Cycles through the queue in insertion order (new entries join the current cycle at its
/// end), and gives each parent children by its [`ChildrenRule`]: [`zest_energy`] by default.
pub struct ZestScheduler {
    edges: usize,
    children: ChildrenRule,
    newest_first: f64,
}

impl ZestScheduler {
    pub fn new(edges: usize, children: ChildrenRule) -> Self {
        Self {
            edges,
            children,
            newest_first: 0.0,
        }
    }

    /// This share of the picks takes the newest entry that was never picked, when there is
    /// one; the others continue the cycle. Why: a pass of the cycle can outlast a run, so an
    /// entry kept late (a chain one level deeper) would never be mutated again, while the
    /// search through deep inputs goes one kept step after another.
    pub fn with_newest_first(mut self, share: f64) -> Self {
        self.newest_first = share.clamp(0.0, 1.0);
        self
    }
}

impl<S> Scheduler<ChoiceInput, S> for ZestScheduler
where
    S: HasCorpus<ChoiceInput> + HasMetadata + HasRand,
{
    fn on_add(&mut self, state: &mut S, id: CorpusId) -> Result<(), Error> {
        let parent = *state.corpus().current();
        let (indices, valid, size) = {
            let mut entry = state.corpus().get(id)?.borrow_mut();
            entry.set_parent_id_optional(parent);
            // The edge list is needed only here, to update the ownership: taken out of the
            // entry, it no longer holds 8 bytes per covered edge for the rest of the run
            // (about 18 KB per entry on starlark, whose inputs cover some 2,300 edges each).
            let indices = entry
                .metadata_map_mut()
                .remove::<MapIndexesMetadata>()
                .map(|m| m.list)
                .unwrap_or_default();
            let (valid, size) = entry
                .metadata::<EntryInfo>()
                .map_or((false, 0), |i| (i.valid, i.size()));
            (indices, valid, size)
        };
        let edges = self.edges;
        let ownership = state.metadata_or_insert_with(|| Ownership::new(edges));
        ownership.add(id.0, &indices, valid, size);
        if self.newest_first > 0.0 {
            ownership.unpicked.push(id.0 as u32);
        }
        Ok(())
    }

    fn next(&mut self, state: &mut S) -> Result<CorpusId, Error> {
        let Some(first) = state.corpus().first() else {
            return Err(Error::empty("the corpus is empty"));
        };
        let edges = self.edges;
        let newest = self.newest_first > 0.0 && state.rand_mut().coinflip(self.newest_first);
        let ownership = state.metadata_or_insert_with(|| Ownership::new(edges));
        let cycle_at = ownership.cycle_at;
        let fresh = if newest {
            ownership.take_newest_unpicked()
        } else {
            None
        };
        let id = match fresh {
            Some(id) => id,
            None => {
                let next = cycle_at.and_then(|id| state.corpus().next(id));
                let ownership = state.metadata_or_insert_with(|| Ownership::new(edges));
                if next.is_none() {
                    ownership.cycles += 1;
                }
                let id = next.unwrap_or(first);
                ownership.cycle_at = Some(id);
                if self.newest_first > 0.0 {
                    ownership.mark_picked(id);
                }
                id
            }
        };
        self.set_current_scheduled(state, Some(id))?;
        Ok(id)
    }

    fn set_current_scheduled(
        &mut self,
        state: &mut S,
        next: Option<CorpusId>,
    ) -> Result<(), Error> {
        *state.corpus_mut().current_mut() = next;
        Ok(())
    }
}

impl<S> RemovableScheduler<ChoiceInput, S> for ZestScheduler {}

impl<S: HasMetadata> Energy<S> for ZestScheduler {
    fn energy(&mut self, state: &mut S, id: CorpusId) -> Result<u64, Error> {
        let Ok(ownership) = state.metadata_mut::<Ownership>() else {
            return Ok(1);
        };
        Ok(match self.children {
            ChildrenRule::Zest => ownership.energy(id.0),
            ChildrenRule::Spread(per_entry) => ownership.spread_children(id.0, per_entry),
            ChildrenRule::Flat(children) => children,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_and_smaller_entries_take_ownership() {
        let mut o = Ownership::new(10);
        o.add(0, &[1, 2, 3], false, 30);
        assert!(o.is_favored(0));
        // Valid steals from invalid, even when larger.
        o.add(1, &[1, 2], true, 50);
        assert!(o.is_favored(1));
        assert!(o.is_favored(0), "still owns edge 3");
        // Smaller valid takes edge 1 and 2 from the larger valid one.
        o.add(2, &[1, 2], true, 10);
        assert!(!o.is_favored(1));
        // Larger invalid takes nothing.
        o.add(3, &[3], false, 99);
        assert!(!o.is_favored(3));
        assert_eq!(o.favored_count(), 2);
        assert!(o.energy(2) > o.energy(3));
    }

    type State = libafl::state::StdState<
        libafl::corpus::InMemoryCorpus<ChoiceInput>,
        ChoiceInput,
        libafl_bolts::rands::StdRand,
        libafl::corpus::InMemoryCorpus<ChoiceInput>,
    >;

    /// A state whose corpus holds `entries` inputs, each announced to `scheduler`.
    fn state_with(scheduler: &mut ZestScheduler, entries: usize) -> State {
        let mut state = State::new(
            libafl_bolts::rands::StdRand::with_seed(3),
            libafl::corpus::InMemoryCorpus::new(),
            libafl::corpus::InMemoryCorpus::new(),
            &mut (),
            &mut (),
        )
        .unwrap();
        for i in 0..entries {
            add(scheduler, &mut state, i as u32);
        }
        state
    }

    fn add(scheduler: &mut ZestScheduler, state: &mut State, choice: u32) -> CorpusId {
        let bounds = "2,2,2".parse().unwrap();
        let input = ChoiceInput::new(crate::choice::ChoiceSequence(vec![choice]), bounds);
        let id = state
            .corpus_mut()
            .add(libafl::corpus::Testcase::new(input))
            .unwrap();
        scheduler.on_add(state, id).unwrap();
        id
    }

    #[test]
    fn an_added_entry_gives_its_edges_to_the_ownership_and_keeps_no_list() {
        let mut scheduler = ZestScheduler::new(10, ChildrenRule::Zest);
        let mut state = state_with(&mut scheduler, 0);
        let bounds = "2,2,2".parse().unwrap();
        let mut testcase = libafl::corpus::Testcase::new(ChoiceInput::new(
            crate::choice::ChoiceSequence(vec![1]),
            bounds,
        ));
        testcase.add_metadata(MapIndexesMetadata::new(vec![2, 5, 7]));
        let id = state.corpus_mut().add(testcase).unwrap();
        scheduler.on_add(&mut state, id).unwrap();
        let ownership = state.metadata::<Ownership>().unwrap();
        assert_eq!(ownership.best_edges, 3);
        assert!(ownership.is_favored(id.0));
        // The list served only the ownership: kept, it held 8 bytes per covered edge for every
        // entry (about 18 KB per starlark entry) for the rest of the run.
        let entry = state.corpus().get(id).unwrap().borrow();
        assert!(!entry.has_metadata::<MapIndexesMetadata>());
    }

    #[test]
    fn the_cycle_visits_entries_in_order_and_takes_new_ones_at_its_end() {
        let mut scheduler = ZestScheduler::new(10, ChildrenRule::Zest);
        let mut state = state_with(&mut scheduler, 3);
        let picks: Vec<usize> = (0..4)
            .map(|_| scheduler.next(&mut state).unwrap().0)
            .collect();
        assert_eq!(picks, [0, 1, 2, 0]);
        add(&mut scheduler, &mut state, 9);
        let picks: Vec<usize> = (0..4)
            .map(|_| scheduler.next(&mut state).unwrap().0)
            .collect();
        assert_eq!(picks, [1, 2, 3, 0]);
        // The first pick starts a cycle too.
        assert_eq!(state.metadata::<Ownership>().unwrap().cycles, 3);
    }

    #[test]
    fn newest_first_picks_each_new_entry_once_and_the_cycle_goes_on_where_it_was() {
        let mut scheduler = ZestScheduler::new(10, ChildrenRule::Zest).with_newest_first(1.0);
        let mut state = state_with(&mut scheduler, 3);
        // Every pick takes the newest unpicked entry while there is one...
        let picks: Vec<usize> = (0..3)
            .map(|_| scheduler.next(&mut state).unwrap().0)
            .collect();
        assert_eq!(picks, [2, 1, 0]);
        // ...then the cycle, which had not started.
        assert_eq!(scheduler.next(&mut state).unwrap().0, 0);
        assert_eq!(scheduler.next(&mut state).unwrap().0, 1);
        let new = add(&mut scheduler, &mut state, 9);
        assert_eq!(scheduler.next(&mut state).unwrap(), new);
        // The cycle resumes after 1, and the new entry, already picked, still joins it.
        let picks: Vec<usize> = (0..3)
            .map(|_| scheduler.next(&mut state).unwrap().0)
            .collect();
        assert_eq!(picks, [2, 3, 0]);
    }

    #[test]
    fn a_spread_pass_costs_the_asked_children_per_entry_and_keeps_the_weights() {
        let mut o = Ownership::new(100);
        // One favored small entry and nine large ones that own nothing.
        o.add(0, &[0, 1, 2, 3], true, 5);
        for id in 1..10 {
            o.add(id, &[0, 1], true, 200);
        }
        let raw: Vec<u64> = (0..10).map(|id| o.energy(id)).collect();
        assert!(raw[0] > 50 * raw[1], "Zest's weights: {raw:?}");
        let spread: Vec<u64> = (0..10).map(|id| o.spread_children(id, 64)).collect();
        let total: u64 = spread.iter().sum();
        assert!(
            (600..=680).contains(&total),
            "a pass costs ~640: {spread:?}"
        );
        assert!(spread[0] > 20 * spread[1], "weights kept: {spread:?}");
        assert!(spread.iter().all(|&c| c >= 1));
        // The mean follows new entries.
        o.add(10, &[50, 51, 52, 53], true, 5);
        let again: u64 = (0..11).map(|id| o.spread_children(id, 64)).sum();
        assert!((660..=750).contains(&again), "{again}");
    }
}
