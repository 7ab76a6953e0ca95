//! The scripts read `.meta` files through scripts/entry_meta.py: the JSON line the engine
//! writes now and the `key=value` line of older outputs must both come out as the same fields.

use std::path::PathBuf;
use std::process::Command;

use bonsai::corpus::EntryInfo;
use bonsai::fault::{Fault, FaultKind};

fn read_with_python(meta: &str) -> serde_json::Value {
    let scripts = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts");
    let output = Command::new("python3")
        .args([
            "-c",
            "import json, sys; from entry_meta import parse_meta; \
             print(json.dumps(parse_meta(sys.stdin.read()), sort_keys=True))",
        ])
        .current_dir(&scripts)
        .env("PYTHONPATH", &scripts)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(meta.as_bytes())?;
            child.wait_with_output()
        })
        .expect("python3 runs");
    assert!(output.status.success());
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn scripts_read_the_engine_s_metadata_in_both_formats() {
    let info = EntryInfo {
        text: "print 1;".into(),
        valid: false,
        new_edges: 0,
        edges: 17,
        parent: Some(3),
        mutator: "havoc".into(),
        found_at: 2.25,
        trimmed_from: Some(20),
        fault: Some(Fault {
            kind: FaultKind::Timeout,
            signature: 0x1234_5678_9abc_def0,
            message: "the target did not finish in time".into(),
            location: "in f".into(),
            frames: vec!["f (x.rs:1)".into(), "g (y.rs:2)".into()],
            recursion: Vec::new(),
            texts: Vec::new(),
        }),
        ..EntryInfo::default()
    };
    let new = read_with_python(&info.to_text());
    let old = read_with_python(
        "size=8 valid=no edges=17 new_edges=0 parent=000003 mutator=havoc time=2.250s \
         trimmed_from=20 kind=timeout signature=123456789abcdef0 \
         message=\"the target did not finish in time\"\n  at f (x.rs:1)\n  at g (y.rs:2)\n",
    );
    for key in [
        "size",
        "valid",
        "edges",
        "new_edges",
        "mutator",
        "time",
        "trimmed_from",
        "kind",
        "signature",
        "message",
        "frames",
    ] {
        assert_eq!(new[key], old[key], "{key}: {new} vs {old}");
        assert!(!new[key].is_null(), "{key}: {new}");
    }
    assert_eq!(new["signature"], "123456789abcdef0");
    assert_eq!(new["new_edges"], 0);
}
