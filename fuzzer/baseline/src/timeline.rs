//! The baseline's `OUT/coverage.csv`, in the format of `bonsai fuzz`'s, so that
//! `scripts/compare-nautilus` reads both fuzzers' coverage over time the same way (how soon
//! each reaches a level of coverage).

use std::borrow::Cow;
use std::cell::Cell;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

use libafl::HasMetadata;
use libafl::corpus::Testcase;
use libafl::feedbacks::{Feedback, StateInitializer};
use libafl::inputs::NautilusInput;
use libafl_bolts::{Error, Named};
use serde::{Deserialize, Serialize};

use bonsai::layout::COVERAGE_CSV;
use bonsai::peer::CoveragePoint;

const INTERVAL: Duration = Duration::from_secs(1);

/// Appends a line of `coverage.csv` at most once a second. The header and the line at the
/// origin are written by `bonsai::peer::resume_offset` in the supervisor, before any fuzzing process
/// starts, so that a process restarted after a crash or hang only appends.
pub struct Timeline {
    file: Option<File>,
    next: Instant,
}

impl Timeline {
    pub fn open(out: &Path) -> Self {
        let path = out.join(COVERAGE_CSV);
        let file = match OpenOptions::new().append(true).open(&path) {
            Ok(f) => Some(f),
            Err(e) => {
                tracing::warn!("{}: cannot write the coverage log: {e}", path.display());
                None
            }
        };
        Self {
            file,
            next: Instant::now(),
        }
    }

    /// Whether a second has passed since the last line.
    pub fn due(&mut self) -> bool {
        let now = Instant::now();
        if now < self.next {
            return false;
        }
        self.next = now + INTERVAL;
        true
    }

    pub fn log(&mut self, point: CoveragePoint) {
        if let Some(file) = &mut self.file
            && let Err(e) = file.write_all(point.to_line().as_bytes())
        {
            tracing::warn!("cannot write the coverage log: {e}");
            self.file = None;
        }
    }
}

/// Valid entries of the baseline's corpus, counted as they are added. State metadata, so that
/// the count survives LibAFL's restarts with the corpus it counts.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ValidCount(pub u64);
libafl_bolts::impl_serdeany!(ValidCount);

/// A corpus feedback that never decides anything: when the other feedbacks keep an input, it
/// counts it as valid if the target accepted it (the harness's verdict of the execution just
/// evaluated).
pub struct ValidEntries {
    last_valid: Rc<Cell<bool>>,
}

impl ValidEntries {
    pub fn new(last_valid: Rc<Cell<bool>>) -> Self {
        Self { last_valid }
    }
}

impl Named for ValidEntries {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("baseline-valid-entries");
        &NAME
    }
}

impl<S: HasMetadata> StateInitializer<S> for ValidEntries {
    fn init_state(&mut self, state: &mut S) -> Result<(), Error> {
        if !state.has_metadata::<ValidCount>() {
            state.add_metadata(ValidCount::default());
        }
        Ok(())
    }
}

impl<EM, OT, S: HasMetadata> Feedback<EM, NautilusInput, OT, S> for ValidEntries {
    fn append_metadata(
        &mut self,
        state: &mut S,
        _manager: &mut EM,
        _observers: &OT,
        _testcase: &mut Testcase<NautilusInput>,
    ) -> Result<(), Error> {
        if self.last_valid.get() {
            state.metadata_or_insert_with(ValidCount::default).0 += 1;
        }
        Ok(())
    }
}
