//! What a peer fuzzer shares with Bonsai's loop, so that the two are measured alike: the
//! conditions the loop runs a target under, and the `coverage.csv` it writes. The Nautilus
//! baseline (`fuzzer/baseline`, crate `bonsai-baseline`) is such a peer; it lives outside the
//! engine so that the engine does not build LibAFL's Nautilus, and the loop itself stays
//! crate-private, so this is the one door to its parts. The rest a peer needs is public
//! already: fault decisions in `feedback`, `.meta` lines in `corpus`, names in `layout`.

pub use crate::fuzz::{
    CoveragePoint, DurationError, install_signal_guard, parse_duration, quiet_library_backtraces,
    resume_offset,
};
