//! One node's fuzzing process: `PROGRAM fuzz ...` as a child of the campaign.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::config::NodeBudget;
use crate::diagnostic::Diagnostic;
use crate::feedback::CoverageGrain;

/// Everything the child's command line is made of.
#[derive(Clone, Debug)]
pub struct NodeCommand {
    pub program: PathBuf,
    pub target: String,
    pub grammar: PathBuf,
    pub bounds: String,
    pub valid_only: bool,
    pub save_on: CoverageGrain,
    pub trim_tests: u64,
    /// `bonsai fuzz --grammar-feedback kpath:K` in every node.
    pub grammar_feedback: Option<usize>,
    pub seeds: Option<PathBuf>,
    pub out: PathBuf,
    pub seed: u64,
    pub timeout_ms: u64,
    pub budget: NodeBudget,
    /// The child's stderr (its status lines and warnings) is appended here.
    pub log: PathBuf,
    /// With more than one core per node: the cores its clients run on, and the port of its
    /// LLMP broker.
    pub cores: Option<(Vec<usize>, u16)>,
}

impl NodeCommand {
    pub fn args(&self) -> Vec<String> {
        let mut args = vec![
            "fuzz".to_string(),
            "--target".into(),
            self.target.clone(),
            "--grammar".into(),
            self.grammar.display().to_string(),
            "--bounds".into(),
            self.bounds.clone(),
            "--out".into(),
            self.out.display().to_string(),
            "--seed".into(),
            self.seed.to_string(),
            "--timeout-ms".into(),
            self.timeout_ms.to_string(),
            "--time".into(),
            format!("{:.3}s", self.budget.time.as_secs_f64()),
            "--save-on".into(),
            self.save_on.to_string(),
            "--trim-tests".into(),
            self.trim_tests.to_string(),
            // Faults are reduced once per bucket for the whole lattice when it is done, not
            // by every node that meets them (`cli::campaign`).
            "--reduce-crashes".into(),
            "0".into(),
            // A node grows a concise corpus: inputs kept for their slowness alone are long.
            "--keep-slow".into(),
            "false".into(),
        ];
        if self.valid_only {
            args.push("--valid-only".into());
        }
        if let Some(k) = self.grammar_feedback {
            args.push("--grammar-feedback".into());
            args.push(format!("kpath:{k}"));
        }
        if let Some(seeds) = &self.seeds {
            args.push("--seeds".into());
            args.push(seeds.display().to_string());
        }
        if let Some(t) = self.budget.saturate_time {
            args.push("--saturate-time".into());
            args.push(format!("{:.3}s", t.as_secs_f64()));
        }
        if let Some(n) = self.budget.saturate_execs {
            args.push("--saturate-execs".into());
            args.push(n.to_string());
        }
        if let Some(n) = self.budget.execs {
            args.push("--execs".into());
            args.push(n.to_string());
        }
        if let Some((cores, port)) = &self.cores {
            args.push("--cores".into());
            args.push(
                cores
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
            );
            args.push("--broker-port".into());
            args.push(port.to_string());
        }
        args
    }
}

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
    /// Starts the child. It dies with the campaign (Linux: the parent-death signal), so a
    /// `kill -9` of the campaign never leaves a fuzzer writing into a node that a resumed
    /// campaign is about to restart.
    pub fn spawn(
        name: String,
        command: &NodeCommand,
        earlier_secs: f64,
    ) -> Result<NodeProcess, Diagnostic> {
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&command.log)
            .map_err(|e| Diagnostic::error(format!("cannot open: {e}")).in_file(&command.log))?;
        let mut cmd = Command::new(&command.program);
        cmd.args(command.args())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        crate::parent_death::die_with_parent(&mut cmd);
        let child = cmd.spawn().map_err(|e| {
            Diagnostic::error(format!("cannot start the fuzzer for node {name}: {e}"))
                .in_file(&command.program)
        })?;
        Ok(NodeProcess {
            name,
            dir: command.out.clone(),
            child,
            started: Instant::now(),
            earlier_secs,
            cores: command
                .cores
                .as_ref()
                .map(|(cores, _)| cores.clone())
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
