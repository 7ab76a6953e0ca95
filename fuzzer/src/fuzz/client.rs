//! A fuzzing process's place among the clients of a multi-core run.
//!
//! The coordinator (`fuzz::coordinator`) starts each client as a process of its own on the
//! run's configuration with this role in it ([`ClientRole::config`]), as LibAFL's launcher
//! does when it does not fork: every client then builds its grammar, target and loop exactly
//! as a single-core run does, in a process that holds no thread or lock of the coordinator's.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::config::FuzzConfig;
use crate::layout::CLIENTS_DIR;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
}

impl ClientRole {
    /// What the client in this role runs: the whole run's configuration, as one of `count`
    /// processes sharing it, with `time_left` of its time (a restarted client gets less). The
    /// coordinator shows the status, writes the run's summary and reduces the crashes.
    pub fn config(&self, run: &FuzzConfig, time_left: Option<Duration>) -> FuzzConfig {
        let mut config = run.clone();
        config.client = Some(*self);
        config.multi_core = None;
        config.show_status = false;
        config.stop.time = time_left;
        config.stop.execs = run.stop.execs.map(|n| n.div_ceil(self.count as u64).max(1));
        config.measure_overhead = None;
        config.seed = self.seed(run.seed);
        config
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

    /// `OUT/clients/<index>`: the client's configuration, log, pid, coverage.csv and
    /// summary.json.
    pub fn dir(&self, out: &Path) -> PathBuf {
        out.join(CLIENTS_DIR).join(self.index.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(index: usize, broker_port: u16) -> ClientRole {
        ClientRole {
            index,
            count: 2,
            core: 0,
            broker_port,
            resumed: false,
            queue_below: 0,
        }
    }

    #[test]
    fn clients_draw_different_decisions() {
        assert_ne!(role(0, 1337).seed(7), role(1, 1337).seed(7));
        assert_ne!(role(0, 1337).seed(7), role(0, 1338).seed(7));
        assert_ne!(role(0, 1337).seed(7), role(0, 1337).seed(8));
        assert_eq!(role(1, 1337).seed(7), role(1, 1337).seed(7));
    }

    /// Each client runs its share of the executions, with its own seed and without the
    /// status line or the overhead measurement that belong to the whole run.
    #[test]
    fn a_client_runs_its_share_of_the_run() {
        let target = crate::target::LinkedTarget {
            name: "planted",
            make: || unreachable!("not run"),
        };
        let bounds = crate::sampler::Bounds::new(1, 1, 1).unwrap();
        let mut run = FuzzConfig::new(target, "g".into(), bounds, "out".into());
        run.stop.execs = Some(5);
        run.show_status = true;
        run.measure_overhead = Some(10);
        let client = role(1, 1337).config(&run, Some(Duration::from_secs(3)));
        assert_eq!(client.client, Some(role(1, 1337)));
        assert_eq!(client.stop.execs, Some(3));
        assert_eq!(client.stop.time, Some(Duration::from_secs(3)));
        assert!(!client.show_status);
        assert_eq!(client.measure_overhead, None);
        assert_eq!(client.seed, role(1, 1337).seed(run.seed));
    }
}
