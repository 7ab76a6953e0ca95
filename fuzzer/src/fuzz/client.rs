//! A fuzzing process's place among the clients of a multi-core run.
//!
//! The coordinator (`fuzz::coordinator`) starts each client as a fresh `bonsai fuzz` with the
//! user's own arguments and this role in the environment, as LibAFL's launcher does when it
//! does not fork: every client then builds its grammar, target and loop exactly as a
//! single-core run does, in a process that holds no thread or lock of the coordinator's.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::diagnostic::Diagnostic;
use crate::layout::CLIENTS_DIR;

/// The environment variable that carries a client's role.
pub const CLIENT_ROLE_VAR: &str = "BONSAI_FUZZ_CLIENT";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientRole {
    /// 0-based; also names the client's directory `OUT/clients/<index>`.
    pub index: usize,
    /// Clients of the run on this machine.
    pub count: usize,
    /// The core the client is bound to.
    pub core: usize,
    /// The local LLMP broker's port.
    pub broker_port: u16,
    /// Whether the output directory held a run before this one: the client then seeds from
    /// the queue, as a resumed single-core run does.
    pub resumed: bool,
    /// Queue entries numbered from here on were written by this run's clients: a client that
    /// starts later receives them over LLMP and does not load them as seeds.
    pub queue_below: u32,
    /// What is left of `--time` when the client starts (a restarted client gets less).
    pub time_left: Option<Duration>,
}

impl ClientRole {
    /// The role in the environment, if this process is a client; a malformed one is an error.
    pub fn from_env() -> Option<Result<Self, Diagnostic>> {
        let text = std::env::var(CLIENT_ROLE_VAR).ok()?;
        Some(
            Self::parse(&text)
                .ok_or_else(|| Diagnostic::error(format!("malformed {CLIENT_ROLE_VAR}: `{text}`"))),
        )
    }

    fn parse(text: &str) -> Option<Self> {
        let mut role = ClientRole {
            index: 0,
            count: 1,
            core: 0,
            broker_port: 0,
            resumed: false,
            queue_below: 0,
            time_left: None,
        };
        for field in text.split(';').filter(|f| !f.is_empty()) {
            let (key, value) = field.split_once('=')?;
            match key {
                "index" => role.index = value.parse().ok()?,
                "count" => role.count = value.parse().ok()?,
                "core" => role.core = value.parse().ok()?,
                "port" => role.broker_port = value.parse().ok()?,
                "resumed" => role.resumed = value == "1",
                "queue_below" => role.queue_below = value.parse().ok()?,
                "time_left_ms" => {
                    role.time_left = Some(Duration::from_millis(value.parse().ok()?));
                }
                _ => return None,
            }
        }
        (role.index < role.count && role.broker_port != 0).then_some(role)
    }

    /// The value of [`CLIENT_ROLE_VAR`] that hands this role over.
    pub fn to_env(self) -> String {
        let mut text = format!(
            "index={};count={};core={};port={};resumed={};queue_below={}",
            self.index,
            self.count,
            self.core,
            self.broker_port,
            u8::from(self.resumed),
            self.queue_below
        );
        if let Some(t) = self.time_left {
            text.push_str(&format!(";time_left_ms={}", t.as_millis()));
        }
        text
    }

    /// The client's own random seed from the run's `--seed`: clients that drew the same
    /// decisions would run the same inputs, each finding what the other finds at the same
    /// moment. The machine's name and the broker's port make the clients of different
    /// machines differ too; the same command on the same machine draws the same again.
    pub fn seed(&self, run_seed: u64) -> u64 {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let mut hasher = fnv::FnvHasher::default();
        std::hash::Hasher::write(
            &mut hasher,
            format!(
                "{run_seed};{};{};{}",
                self.index,
                self.broker_port,
                host.trim()
            )
            .as_bytes(),
        );
        std::hash::Hasher::finish(&hasher)
    }

    /// `OUT/clients/<index>`: the client's log, pid, coverage.csv and summary.json.
    pub fn dir(&self, out: &Path) -> PathBuf {
        out.join(CLIENTS_DIR).join(self.index.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_role_survives_the_environment() {
        let role = ClientRole {
            index: 1,
            count: 2,
            core: 3,
            broker_port: 4242,
            resumed: true,
            queue_below: 17,
            time_left: Some(Duration::from_millis(12_345)),
        };
        assert_eq!(ClientRole::parse(&role.to_env()), Some(role));
        let fresh = ClientRole {
            resumed: false,
            time_left: None,
            ..role
        };
        assert_eq!(ClientRole::parse(&fresh.to_env()), Some(fresh));
    }

    #[test]
    fn clients_draw_different_decisions() {
        let role = |index, broker_port| ClientRole {
            index,
            count: 2,
            core: 0,
            broker_port,
            resumed: false,
            queue_below: 0,
            time_left: None,
        };
        assert_ne!(role(0, 1337).seed(7), role(1, 1337).seed(7));
        assert_ne!(role(0, 1337).seed(7), role(0, 1338).seed(7));
        assert_ne!(role(0, 1337).seed(7), role(0, 1337).seed(8));
        assert_eq!(role(1, 1337).seed(7), role(1, 1337).seed(7));
    }

    #[test]
    fn malformed_roles_are_refused() {
        for text in [
            "",
            "index=2;count=2;port=1",
            "index=0;count=1;port=0",
            "index=x;count=1;port=1",
            "index=0;count=1;port=1;colour=blue",
            "index",
        ] {
            assert_eq!(ClientRole::parse(text), None, "{text}");
        }
    }
}
