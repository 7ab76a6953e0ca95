//! Scheduling. Which corpus entry to mutate next and how many children it gets.
//! `zest` is the default (Zest's cycling queue with favored entries and energy); `minimizer`
//! wraps LibAFL's minimizer scheduler as the baseline it is compared with.

mod energy;
mod minimizer;
mod zest;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use energy::{ChildrenRule, Energy};
pub use minimizer::MinimizerQueue;
pub use zest::{Ownership, ZestScheduler};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SchedulerKind {
    #[default]
    Zest,
    Minimizer,
}

impl FromStr for SchedulerKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "zest" => Ok(Self::Zest),
            "minimizer" => Ok(Self::Minimizer),
            _ => Err(format!(
                "unknown scheduler '{s}' (expected zest or minimizer)"
            )),
        }
    }
}

impl fmt::Display for SchedulerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Zest => "zest",
            Self::Minimizer => "minimizer",
        })
    }
}
