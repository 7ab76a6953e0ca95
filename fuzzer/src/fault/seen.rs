//! The faults a run has saved so far.

use std::collections::HashSet;

use libafl::HasMetadata;
use serde::{Deserialize, Serialize};

use super::FaultKind;

/// Signatures already saved. State metadata, so that it survives LibAFL's restarts; a resumed
/// run seeds it from the `.meta` files on disk.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SeenFaults {
    /// (kind, signature) of every fault saved so far; a fault whose pair is here is not saved
    /// again.
    pub signatures: HashSet<(FaultKind, u64)>,
    /// Every faulting execution, duplicates included.
    pub occurrences: u64,
}
libafl_bolts::impl_serdeany!(SeenFaults);

impl SeenFaults {
    /// Gives `state` an empty record unless it has one (a restarted process keeps its own).
    pub fn init<S: HasMetadata>(state: &mut S) {
        if !state.has_metadata::<SeenFaults>() {
            state.add_metadata(SeenFaults::default());
        }
    }
}
