//! `campaign.log`: one line per event, appended, never rewritten.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::diagnostic::Diagnostic;

pub const LOG_FILE: &str = crate::layout::CAMPAIGN_LOG;

pub struct CampaignLog {
    file: File,
    path: PathBuf,
}

impl CampaignLog {
    pub fn open(dir: &Path) -> Result<Self, Diagnostic> {
        let path = dir.join(LOG_FILE);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| Diagnostic::error(format!("cannot open: {e}")).in_file(&path))?;
        Ok(Self { file, path })
    }

    /// Appends `2026-11-21T14:03:12Z message`. A full disk must not stop a campaign whose
    /// state file is still being written, so a failed write only warns.
    pub fn event(&mut self, message: &str) {
        let line = format!("{} {message}\n", utc_timestamp(unix_now()));
        if let Err(e) = self.file.write_all(line.as_bytes()) {
            tracing::warn!("{}: cannot append to the log: {e}", self.path.display());
        }
    }
}

pub fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the epoch (proleptic Gregorian calendar).
pub fn utc_timestamp(unix: f64) -> String {
    let secs = unix.max(0.0) as i64;
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    // Days to civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        assert_eq!(utc_timestamp(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(951_782_400.0), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(1_763_700_000.0), "2025-11-21T04:40:00Z");
    }
}
