//! `bonsai fuzz --cores` and `--connect`: clients sharing entries over LLMP, one output
//! directory, and what survives a SIGKILL of a client or of the whole run.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{fuzz_command, summary_of};

/// Two clients: on two cores where the machine has them, else twice on core 0.
fn two_cores() -> &'static str {
    if std::thread::available_parallelism().map_or(1, usize::from) >= 2 {
        "0,1"
    } else {
        "0,0"
    }
}

/// A TCP port nobody listens on now.
fn free_port() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port().to_string()
}

/// Every complete queue entry: number → its `.choices` bytes.
fn entries(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    for entry in std::fs::read_dir(out.join("queue")).into_iter().flatten() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "meta") {
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            let choices = std::fs::read(path.with_extension("choices")).unwrap();
            found.insert(stem, choices);
        }
    }
    found
}

fn meta(out: &Path, stem: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("queue").join(format!("{stem}.meta"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn start(out: &Path, extra: &[&str]) -> Child {
    fuzz_command(out, extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Two clients (`two_cores`) on a broker port of their own, bounds 3,3,3, for `time`, with
/// `extra` arguments.
fn start_two_clients(out: &Path, time: &str, extra: &[&str]) -> Child {
    let port = free_port();
    let args = [
        "--bounds",
        "3,3,3",
        "--time",
        time,
        "--cores",
        two_cores(),
        "--broker-port",
        &port,
    ];
    start(out, &[&args[..], extra].concat())
}

/// The arguments of one "machine" of the multi-machine tests: one client on `core`, its broker
/// on `port`, linked to the broker at `connect` if given, bounds 3,3,3, for `time`.
fn machine<'a>(
    time: &'a str,
    core: &'a str,
    port: &'a str,
    connect: Option<&'a str>,
) -> Vec<&'a str> {
    let mut args = vec![
        "--bounds",
        "3,3,3",
        "--time",
        time,
        "--cores",
        core,
        "--broker-port",
        port,
    ];
    if let Some(remote) = connect {
        args.extend(["--connect", remote]);
    }
    args
}

/// The entries of `receiver`'s queue that it received ("import") and `sender`'s queue holds.
fn imports_from(receiver: &Path, sender: &Path) -> Vec<String> {
    let sent: BTreeSet<Vec<u8>> = entries(sender).into_values().collect();
    entries(receiver)
        .into_iter()
        .filter(|(stem, choices)| {
            meta(receiver, stem)["mutator"] == "import" && sent.contains(choices)
        })
        .map(|(stem, _)| stem)
        .collect()
}

fn finish(child: Child) -> serde_json::Value {
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "fuzz failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    summary_of(&output.stdout)
}

/// Waits until `path` holds a process id and returns it.
fn pid_in(path: &Path, within: Duration) -> i32 {
    let deadline = Instant::now() + within;
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

#[test]
fn clients_share_entries_and_write_each_one_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let summary = finish(start_two_clients(
        &out,
        "12s",
        &["--share-coverage", "true"],
    ));
    assert_eq!(summary["clients"], 2, "{summary}");
    let queue = entries(&out);
    assert_eq!(summary["corpus"].as_u64().unwrap() as usize, queue.len());
    assert!(queue.len() > 20, "{summary}");
    // Each content once on disk: what one client received from the other is not written again.
    let distinct: BTreeSet<&Vec<u8>> = queue.values().collect();
    assert_eq!(distinct.len(), queue.len(), "an entry was written twice");
    assert!(
        queue
            .keys()
            .all(|stem| meta(&out, stem)["mutator"] != "import"),
        "a received entry was written into the directory it came from"
    );
    let (mut client_execs, mut client_rates) = (0, 0.0);
    for k in 0..2 {
        let part: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join(format!("clients/{k}/summary.json"))).unwrap(),
        )
        .unwrap();
        client_execs += part["execs"].as_u64().unwrap();
        client_rates += part["execs_per_sec"].as_f64().unwrap();
        // Each client holds most of the shared queue: it received what the other found.
        let held = part["corpus"].as_u64().unwrap() as usize;
        assert!(
            held * 10 >= queue.len() * 6,
            "client {k} holds {held} of {} entries: nothing was shared",
            queue.len()
        );
    }
    assert_eq!(summary["execs"].as_u64().unwrap(), client_execs);
    // The run's rate is the clients' rates summed, each over its own fuzzing time as a
    // single-core run counts it; not over the coordinator's wall clock, which also holds the
    // clients' start and the end's summaries.
    let rate = summary["execs_per_sec"].as_f64().unwrap();
    assert!(
        (rate - client_rates).abs() <= 1e-6 * client_rates,
        "{rate} execs/s for clients at {client_rates} together"
    );
    assert!(
        summary["elapsed_secs"].as_f64().unwrap() >= 12.0,
        "{summary}"
    );
    // Entries whose sender's run covered nothing new to the receiver are dropped unrun; the
    // rest are run. Both clients find the planted target's shallow edges on their own, so
    // some of what each receives is old news.
    let (received, unrun) = (
        summary["received"].as_u64().unwrap(),
        summary["received_unrun"].as_u64().unwrap(),
    );
    assert!(0 < unrun && unrun < received, "{summary}");
    // One coverage.csv for the run, whose executions grow to the summary's.
    let log = std::fs::read_to_string(out.join("coverage.csv")).unwrap();
    let last: Vec<&str> = log.lines().last().unwrap().split(',').collect();
    assert_eq!(last[1].parse::<u64>().unwrap(), client_execs, "{log}");
    assert!(log.lines().count() > 5, "{log}");
    // Every entry replays to its text, whichever client wrote it.
    let replay = common::bonsai(&[
        "replay",
        "--target",
        "planted",
        "--grammar",
        common::grammar_path().to_str().unwrap(),
        out.join("queue").to_str().unwrap(),
    ]);
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
}

/// The parent of a process, from `/proc`; `None` once it has ended.
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 2..];
    after_name.split(' ').nth(1)?.parse().ok()
}

/// SIGKILLs the process whose id `pid_file` holds (or its parent, the client's supervisor). A
/// client's fuzzing process is restarted by LibAFL after each crash the planted target has,
/// with a new id: read and kill again until the kill lands.
fn kill_client(pid_file: &Path, parent: bool) -> i32 {
    for _ in 0..100 {
        let pid = pid_in(pid_file, Duration::from_secs(20));
        let target = if parent { parent_of(pid) } else { Some(pid) };
        // SAFETY: plain system call.
        if let Some(target) = target
            && alive(pid)
            && unsafe { libc::kill(target, libc::SIGKILL) } == 0
        {
            return target;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("could not kill the client of {}", pid_file.display());
}

#[test]
fn killed_clients_are_started_again_and_nothing_saved_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = start_two_clients(&out, "25s", &[]);
    pid_in(&out.join("clients/1/pid"), Duration::from_secs(20));
    std::thread::sleep(Duration::from_secs(5));
    let before = entries(&out);
    assert!(!before.is_empty());
    // Client 1's fuzzing process: its supervisor starts it again from the shared queue.
    kill_client(&out.join("clients/1/pid"), false);
    std::thread::sleep(Duration::from_secs(3));
    // Client 0's supervisor, fuzzing process and all: the coordinator starts it again.
    kill_client(&out.join("clients/0/pid"), true);
    let output = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let summary = summary_of(&output.stdout);
    let after = entries(&out);
    for (stem, choices) in &before {
        assert_eq!(
            after.get(stem),
            Some(choices),
            "entry {stem} was lost or changed"
        );
    }
    assert!(summary["restarts"].as_u64().unwrap() >= 2, "{summary}");
    let client_log = std::fs::read_to_string(out.join("clients/1/log")).unwrap();
    assert!(
        client_log.contains("the fuzzing process was lost"),
        "client 1:\n{client_log}"
    );
    assert!(stderr.contains("client 0 was lost"), "{stderr}");
    // Both went on fuzzing to the end of the run.
    for k in 0..2 {
        let log = std::fs::read_to_string(out.join(format!("clients/{k}/coverage.csv"))).unwrap();
        let last_secs: f64 = log
            .lines()
            .last()
            .unwrap()
            .split(',')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            last_secs > 15.0,
            "client {k} stopped at {last_secs}s:\n{log}"
        );
    }
}

#[test]
fn a_killed_run_resumes_with_every_saved_entry() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut run = start_two_clients(&out, "60s", &[]);
    let clients: Vec<i32> = (0..2)
        .map(|k| {
            pid_in(
                &out.join(format!("clients/{k}/pid")),
                Duration::from_secs(20),
            )
        })
        .collect();
    std::thread::sleep(Duration::from_secs(6));
    run.kill().unwrap();
    run.wait().unwrap();
    // The clients die with the coordinator: nobody goes on writing into the directory.
    let deadline = Instant::now() + Duration::from_secs(10);
    while clients.iter().any(|&pid| alive(pid)) {
        assert!(
            Instant::now() < deadline,
            "a client outlived its coordinator"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let before = entries(&out);
    assert!(!before.is_empty());
    let summary = finish(start_two_clients(&out, "6s", &[]));
    let after = entries(&out);
    for (stem, choices) in &before {
        assert_eq!(
            after.get(stem),
            Some(choices),
            "entry {stem} was lost or changed"
        );
    }
    // The resumed clients seeded from the queue: every saved entry, shared among them.
    assert!(
        summary["seeds_loaded"].as_u64().unwrap() as usize >= before.len(),
        "{summary}"
    );
}

/// System V shared-memory segments now (LibAFL's LLMP pages and restart states on Linux):
/// id → (creator pid, processes attached).
fn shm_segments() -> BTreeMap<i32, (i32, u32)> {
    let text = std::fs::read_to_string("/proc/sysvipc/shm").unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            Some((
                f.get(1)?.parse().ok()?,
                (f.get(4)?.parse().ok()?, f.get(6)?.parse().ok()?),
            ))
        })
        .collect()
}

/// Whether the process exists and is not a zombie (which holds no memory any more).
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .is_some_and(|i| !stat[i..].starts_with(") Z"))
    })
}

/// The process and its descendants, from `/proc`.
fn descendants(root: i32) -> BTreeSet<i32> {
    let mut found = BTreeSet::from([root]);
    loop {
        let before = found.len();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            if let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok())
                && parent_of(pid).is_some_and(|p| found.contains(&p))
            {
                found.insert(pid);
            }
        }
        if found.len() == before {
            return found;
        }
    }
}

/// Collects the pids of `run` and its descendants every few milliseconds, for `time` or
/// until the run has ended.
fn watch(run: &mut Child, pids: &mut BTreeSet<i32>, time: Duration) {
    let deadline = Instant::now() + time;
    while Instant::now() < deadline && run.try_wait().unwrap().is_none() {
        pids.extend(descendants(run.id() as i32));
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The segments there are now: a run's leftovers are the segments it made, not ones that
/// were there before it started. Other runs on the machine leave theirs (older binaries, other
/// users), and with pids wrapping around (32,768 of them on many machines) a process of this
/// run can have the pid that made one of those.
fn segments_before() -> BTreeSet<i32> {
    shm_segments().into_keys().collect()
}

/// Waits until none of `pids` runs any more and returns the segments they created that are
/// still there, leaving out those in `before`.
fn segments_left_by(pids: &BTreeSet<i32>, before: &BTreeSet<i32>) -> Vec<(i32, (i32, u32))> {
    let deadline = Instant::now() + Duration::from_secs(15);
    while pids.iter().any(|&pid| running(pid)) {
        assert!(Instant::now() < deadline, "a process outlived the run");
        std::thread::sleep(Duration::from_millis(100));
    }
    shm_segments()
        .into_iter()
        .filter(|(id, (creator, _))| pids.contains(creator) && !before.contains(id))
        .collect()
}

/// SIGKILLs `run` once its processes have made their shared memory, waits until every
/// process of it has ended, and returns the segments they created that are still there.
fn segments_left_by_a_killed(
    mut run: Child,
    settle: Duration,
    before: &BTreeSet<i32>,
) -> Vec<(i32, (i32, u32))> {
    let mut pids = BTreeSet::new();
    watch(&mut run, &mut pids, settle);
    assert!(
        shm_segments()
            .iter()
            .any(|(id, (creator, _))| pids.contains(creator) && !before.contains(id)),
        "the run made no shared memory to leave behind: {pids:?}"
    );
    run.kill().unwrap();
    run.wait().unwrap();
    segments_left_by(&pids, before)
}

/// LibAFL's System V segments outlive a process killed before it removed them; the run marks
/// each for removal when it creates it, so that the kernel frees it with the last process
/// attached, whichever way that process ends.
#[test]
fn a_killed_run_leaves_no_shared_memory_behind() {
    let dir = tempfile::tempdir().unwrap();
    // A multi-core run: the broker's pages, each client's pages and restart state.
    let out = dir.path().join("cores");
    let before = segments_before();
    let run = start_two_clients(&out, "60s", &[]);
    pid_in(&out.join("clients/1/pid"), Duration::from_secs(20));
    let left = segments_left_by_a_killed(run, Duration::from_secs(3), &before);
    assert!(left.is_empty(), "a killed --cores run left {left:?}");
    // A single-core run: the supervisor's restart state.
    let out = dir.path().join("single");
    let before = segments_before();
    let run = start(&out, &["--bounds", "3,3,3", "--time", "60s"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while descendants(run.id() as i32).len() < 2 {
        assert!(Instant::now() < deadline, "no fuzzing process started");
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = segments_left_by_a_killed(run, Duration::from_secs(2), &before);
    assert!(left.is_empty(), "a killed single-core run left {left:?}");
}

/// A client's fuzzing process that LibAFL restarts after a fault leaves its LLMP pages to its
/// successor, which attaches them without owning them: with LibAFL's own provider nobody ever
/// removed them, and a run that ended normally left one set per restart behind.
#[test]
fn a_run_whose_clients_restarted_leaves_no_shared_memory_behind() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // The planted seeds abort, overflow the stack and hang: each restarts a fuzzing process.
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/seeds");
    let port = free_port();
    let before = segments_before();
    let mut run = start(
        &out,
        &[
            "--bounds",
            "2,3,4",
            "--time",
            "8s",
            "--timeout-ms",
            "100",
            "--seeds",
            seeds.to_str().unwrap(),
            "--cores",
            two_cores(),
            "--broker-port",
            &port,
        ],
    );
    let mut pids = BTreeSet::new();
    watch(&mut run, &mut pids, Duration::from_secs(60));
    let summary = finish(run);
    assert!(
        summary["restarts"].as_u64().unwrap() > 0,
        "no client restarted: {summary}"
    );
    let left = segments_left_by(&pids, &before);
    assert!(left.is_empty(), "the run left {left:?}");
}

#[test]
fn two_machines_on_loopback_receive_each_others_entries() {
    let dir = tempfile::tempdir().unwrap();
    let first_out = dir.path().join("first");
    let second_out = dir.path().join("second");
    let first_port = free_port();
    let first = start(&first_out, &machine("14s", "0", &first_port, None));
    std::thread::sleep(Duration::from_secs(2));
    let second_port = free_port();
    let connect = format!("127.0.0.1:{first_port}");
    let core = if two_cores() == "0,1" { "1" } else { "0" };
    let second = start(
        &second_out,
        &machine("10s", core, &second_port, Some(&connect)),
    );
    finish(second);
    finish(first);
    let first_entries = entries(&first_out);
    let second_entries = entries(&second_out);
    assert!(
        !imports_from(&second_out, &first_out).is_empty(),
        "no entry of the first machine reached the second's queue ({} and {} entries)",
        first_entries.len(),
        second_entries.len()
    );
    let found_by_second: BTreeSet<&Vec<u8>> = second_entries
        .iter()
        .filter(|(stem, _)| meta(&second_out, stem)["mutator"] != "import")
        .map(|(_, c)| c)
        .collect();
    assert!(
        first_entries.iter().any(|(stem, choices)| {
            meta(&first_out, stem)["mutator"] == "import" && found_by_second.contains(choices)
        }),
        "no entry of the second machine reached the first's queue"
    );
}

/// The first machine's run is killed: the second goes on alone and says so; a third run,
/// started with `--connect` to the second, links with it and their entries flow again.
#[test]
fn a_run_whose_linked_broker_dies_goes_on_alone_says_so_and_takes_a_new_link() {
    let dir = tempfile::tempdir().unwrap();
    let (first_out, second_out, third_out) = (
        dir.path().join("first"),
        dir.path().join("second"),
        dir.path().join("third"),
    );
    let core = if two_cores() == "0,1" { "1" } else { "0" };
    let first_port = free_port();
    let mut first = start(&first_out, &machine("60s", "0", &first_port, None));
    std::thread::sleep(Duration::from_secs(2));
    let second_port = free_port();
    let hub = format!("127.0.0.1:{first_port}");
    let second = fuzz_command(&second_out, &machine("24s", core, &second_port, Some(&hub)))
        .env("BONSAI_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(6));
    first.kill().unwrap();
    first.wait().unwrap();
    std::thread::sleep(Duration::from_secs(4));
    let (third_port, survivor) = (free_port(), format!("127.0.0.1:{second_port}"));
    let third = start(
        &third_out,
        &machine("10s", "0", &third_port, Some(&survivor)),
    );
    finish(third);
    let output = second.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{log}");
    let lost = log
        .find(&format!(
            "the link with the broker at 127.0.0.1:{first_port} is gone"
        ))
        .unwrap_or_else(|| panic!("the lost link was not reported:\n{log}"));
    assert!(
        log[lost..].contains(&format!("--connect <this machine>:{second_port}")),
        "{log}"
    );
    let linked = log[lost..]
        .find("linked with the broker of another run at 127.0.0.1:")
        .map(|i| i + lost);
    assert!(linked.is_some(), "the new link was not reported:\n{log}");
    // The third run's finds reached the second run's queue after the first was gone.
    assert!(
        !imports_from(&second_out, &third_out).is_empty(),
        "no entry of the third run reached the second's queue"
    );
}

#[test]
fn bad_cores_ports_and_remote_brokers_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = |extra: &[&str]| {
        fuzz_command(
            &out,
            &[&["--bounds", "2,2,2", "--time", "5s"], extra].concat(),
        )
        .output()
        .unwrap()
    };
    let no_core = run(&["--cores", "4096"]);
    assert_eq!(no_core.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&no_core.stderr).contains("there is no core 4096"),
        "{}",
        String::from_utf8_lossy(&no_core.stderr)
    );
    let malformed = run(&["--cores", "1-0"]);
    assert_eq!(malformed.status.code(), Some(2));
    // Nobody listens on a port just freed: the link to the remote broker fails, with its
    // address in the message, before any client starts.
    let nobody = format!("127.0.0.1:{}", free_port());
    let port = free_port();
    let unreachable = run(&["--cores", "0", "--broker-port", &port, "--connect", &nobody]);
    assert_eq!(unreachable.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&unreachable.stderr);
    assert!(stderr.contains(&nobody), "{stderr}");
    // A port another process holds.
    let held = std::net::TcpListener::bind("0.0.0.0:0").unwrap();
    let held_port = held.local_addr().unwrap().port().to_string();
    let taken = run(&["--cores", "0", "--broker-port", &held_port]);
    assert_eq!(taken.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&taken.stderr);
    assert!(stderr.contains("--broker-port"), "{stderr}");
}
