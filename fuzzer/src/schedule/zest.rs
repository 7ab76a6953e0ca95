//! Zest's scheduler: cycle through the queue; favored entries own some edge.

use libafl::HasMetadata;
use libafl::corpus::{Corpus, CorpusId};
use libafl::schedulers::{RemovableScheduler, Scheduler};
use libafl::state::HasCorpus;
use libafl_bolts::Error;
use serde::{Deserialize, Serialize};

use super::energy::{Energy, zest_energy};
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
}

/// Cycles through the queue in insertion order (new entries join the current cycle at its
/// end), and gives each parent [`zest_energy`] children.
pub struct ZestScheduler {
    edges: usize,
}

impl ZestScheduler {
    pub fn new(edges: usize) -> Self {
        Self { edges }
    }
}

impl<S> Scheduler<ChoiceInput, S> for ZestScheduler
where
    S: HasCorpus<ChoiceInput> + HasMetadata,
{
    fn on_add(&mut self, state: &mut S, id: CorpusId) -> Result<(), Error> {
        let parent = *state.corpus().current();
        let (indices, valid, size) = {
            let mut entry = state.corpus().get(id)?.borrow_mut();
            entry.set_parent_id_optional(parent);
            let indices = entry
                .metadata::<MapIndexesMetadata>()
                .map(|m| m.list.clone())
                .unwrap_or_default();
            let (valid, size) = entry
                .metadata::<EntryInfo>()
                .map_or((false, 0), |i| (i.valid, i.text.len()));
            (indices, valid, size)
        };
        let edges = self.edges;
        state
            .metadata_or_insert_with(|| Ownership::new(edges))
            .add(id.0, &indices, valid, size);
        Ok(())
    }

    fn next(&mut self, state: &mut S) -> Result<CorpusId, Error> {
        let corpus = state.corpus();
        let Some(first) = corpus.first() else {
            return Err(Error::empty("the corpus is empty"));
        };
        let next = corpus.current().and_then(|id| corpus.next(id));
        let id = next.unwrap_or(first);
        if next.is_none() {
            let edges = self.edges;
            state
                .metadata_or_insert_with(|| Ownership::new(edges))
                .cycles += 1;
        }
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
        Ok(state.metadata::<Ownership>().map_or(1, |o| o.energy(id.0)))
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
}
