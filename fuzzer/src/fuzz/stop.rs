//! When a campaign stops: a time budget, an execution budget, or saturation.

use std::fmt;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use libafl::HasMetadata;
use libafl::state::HasExecutions;
use serde::{Deserialize, Serialize};

use crate::feedback::CoverageHistory;

/// Saturation: coverage has stopped growing. The Bonsai paper's own future work; the lattice
/// uses it to stop a node early.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Saturation {
    /// No new edge for this long.
    pub time: Option<Duration>,
    /// No new edge for this many executions.
    pub execs: Option<u64>,
}

/// The budgets of one run; the first one reached stops it. All empty means "run until
/// interrupted".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopCondition {
    pub time: Option<Duration>,
    pub execs: Option<u64>,
    pub saturation: Saturation,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StopReason {
    Time,
    Executions,
    Saturated,
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StopReason::Time => "time",
            StopReason::Executions => "executions",
            StopReason::Saturated => "saturated",
        })
    }
}

/// A [`StopCondition`] anchored at the campaign's start. The deadline is an absolute instant
/// taken before LibAFL forks the fuzzing process, so restarts after a crash neither extend nor
/// reset it; executions and the time of the last new edge live in the LibAFL state.
#[derive(Clone, Copy, Debug)]
pub struct Stop {
    condition: StopCondition,
    started: Instant,
    started_wall: f64,
}

fn wall_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl Stop {
    pub fn new(condition: StopCondition, started: Instant) -> Self {
        Self {
            condition,
            started,
            started_wall: wall_now(),
        }
    }

    /// Whether the run should stop now, and why.
    pub fn reached<S: HasExecutions + HasMetadata>(&self, state: &S) -> Option<StopReason> {
        let executions = *state.executions();
        if self.condition.execs.is_some_and(|max| executions >= max) {
            return Some(StopReason::Executions);
        }
        if self
            .condition
            .time
            .is_some_and(|budget| self.started.elapsed() >= budget)
        {
            return Some(StopReason::Time);
        }
        let saturation = self.condition.saturation;
        if saturation.time.is_none() && saturation.execs.is_none() {
            return None;
        }
        let (last_execs, last_secs) = state
            .metadata::<CoverageHistory>()
            .map_or((0, 0.0), |h| (h.last_new_edge_execs, h.last_new_edge_secs));
        if saturation
            .execs
            .is_some_and(|n| executions.saturating_sub(last_execs) >= n)
        {
            return Some(StopReason::Saturated);
        }
        let quiet_since = last_secs.max(self.started_wall);
        if saturation
            .time
            .is_some_and(|t| wall_now() - quiet_since >= t.as_secs_f64())
        {
            return Some(StopReason::Saturated);
        }
        None
    }
}

/// Why a text is not a duration. Its message is written to follow clap's `invalid value ...
/// for '--time <TIME>': `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DurationError {
    /// No number in front (`forever`, `m10`).
    NotANumber(String),
    /// A unit other than ms, s, m, min, h and d.
    UnknownUnit {
        /// The unit as written.
        unit: String,
        /// The whole duration as written.
        text: String,
    },
    /// Negative, infinite or not a number.
    OutOfRange(String),
}

impl std::fmt::Display for DurationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DurationError::NotANumber(text) => {
                write!(
                    f,
                    "expected a duration such as 30s, 10m or 2h, got '{text}'"
                )
            }
            DurationError::UnknownUnit { unit, text } => {
                write!(
                    f,
                    "unknown time unit '{unit}' in '{text}' (use s, m, h or d)"
                )
            }
            DurationError::OutOfRange(text) => {
                write!(f, "expected a non-negative duration, got '{text}'")
            }
        }
    }
}

impl std::error::Error for DurationError {}

/// Parses a duration as the command line writes it: `30s`, `10m`, `2h`, `1d`, or plain
/// seconds.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| DurationError::NotANumber(text.to_string()))?;
    let scale = match unit {
        "" | "s" => 1.0,
        "ms" => 0.001,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        _ => {
            return Err(DurationError::UnknownUnit {
                unit: unit.to_string(),
                text: text.to_string(),
            });
        }
    };
    if !value.is_finite() || value < 0.0 {
        return Err(DurationError::OutOfRange(text.to_string()));
    }
    Ok(Duration::from_secs_f64(value * scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_in_the_units_users_write() {
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("10m").unwrap(), Duration::from_secs(600));
        assert_eq!(parse_duration("2h").unwrap(), Duration::from_secs(7200));
        assert_eq!(parse_duration("45").unwrap(), Duration::from_secs(45));
        assert_eq!(parse_duration("1.5m").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(
            parse_duration("10x"),
            Err(DurationError::UnknownUnit {
                unit: "x".into(),
                text: "10x".into()
            })
        );
        assert_eq!(
            parse_duration(""),
            Err(DurationError::NotANumber(String::new()))
        );
        assert_eq!(
            parse_duration("m"),
            Err(DurationError::NotANumber("m".into()))
        );
    }
}
