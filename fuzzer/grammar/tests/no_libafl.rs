//! The toolkit's promise: a user who wants generation, grammar coverage or suites builds no
//! LibAFL. `cargo tree` resolves this crate's dependencies as a user's build would (normal and
//! build edges; dev-dependencies never reach a user), and no package in it may be a LibAFL crate.
//! The same listing of the engine must name LibAFL, so a pass is not a listing that went wrong.

use std::path::PathBuf;
use std::process::Command;

/// The package names of `package`'s dependency tree, one per line as `cargo tree` prints them.
fn dependency_names(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let output = Command::new(cargo)
        .args([
            "tree",
            "-e",
            "normal,build",
            "--prefix",
            "none",
            "--manifest-path",
        ])
        .arg(&manifest)
        .args(["-p", package])
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree -p {package} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .collect()
}

fn is_libafl(name: &str) -> bool {
    name.starts_with("libafl")
}

#[test]
fn no_libafl_crate_is_in_the_toolkits_dependency_tree() {
    let names = dependency_names("bonsai-grammar");
    assert!(
        names.iter().any(|n| n == "regex-syntax") && names.iter().any(|n| n == "fast_rands"),
        "the listing lacks known dependencies: {names:?}"
    );
    let libafl: Vec<&String> = names.iter().filter(|n| is_libafl(n)).collect();
    assert!(
        libafl.is_empty(),
        "bonsai-grammar depends on LibAFL through {libafl:?}"
    );
}

#[test]
fn the_same_listing_finds_libafl_under_the_engine() {
    let names = dependency_names("bonsai");
    assert!(
        names.iter().any(|n| is_libafl(n)),
        "the engine's tree shows no libafl crate, so the check above proves nothing: {names:?}"
    );
}
