//! One node's fuzzing process: a child of the campaign running the node's `FuzzConfig`.

use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

use crate::diagnostic::Diagnostic;
use crate::fuzz::FuzzConfig;

/// A running node.
pub struct NodeProcess {
    pub name: String,
    pub dir: PathBuf,
    child: Child,
    pub started: Instant,
    /// Wall time the node had already spent in earlier attempts.
    pub earlier_secs: f64,
    /// The cores its clients run on, when it has more than one.
    pub cores: Vec<usize>,
}

impl NodeProcess {
    /// Starts the child on `config`, written to `config_file`, its standard error appended to
    /// `log`. It dies with the campaign (Linux: the parent-death signal), so a `kill -9` of
    /// the campaign never leaves a fuzzer writing into a node that a resumed campaign is about
    /// to restart.
    pub fn spawn(
        name: String,
        program: &Path,
        config: &FuzzConfig,
        config_file: &Path,
        log: &Path,
        earlier_secs: f64,
    ) -> Result<NodeProcess, Diagnostic> {
        let child = crate::fuzz::spawn_child(
            program,
            config,
            config_file,
            log,
            &format!("the fuzzer for node {name}"),
        )?;
        Ok(NodeProcess {
            name,
            dir: config.out.clone(),
            child,
            started: Instant::now(),
            earlier_secs,
            cores: config
                .multi_core
                .as_ref()
                .map(|multi_core| multi_core.cores.clone())
                .unwrap_or_default(),
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The exit status once the child has ended.
    pub fn poll(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    pub fn elapsed_secs(&self) -> f64 {
        self.earlier_secs + self.started.elapsed().as_secs_f64()
    }

    /// Asks the child to stop (SIGTERM: LibAFL's fuzzing process exits at once, its
    /// supervisor with it), and kills it if it has not ended within `grace`. Everything it
    /// saved is already on disk.
    pub fn stop(&mut self, grace: Duration) {
        if self.poll().is_some() {
            return;
        }
        // SAFETY: signalling our own child, whose pid cannot be reused before we reap it.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if self.poll().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The node's summary, written by the fuzzing process when it finished normally.
pub fn read_summary(dir: &Path) -> Option<crate::fuzz::Summary> {
    let text = std::fs::read_to_string(dir.join(crate::corpus::SUMMARY)).ok()?;
    serde_json::from_str(&text).ok()
}
