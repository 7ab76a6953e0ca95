//! The `bonsai` command line; everything lives in the library's `cli` module so that target
//! binaries (`bonsai-<target>`) share it.

fn main() -> std::process::ExitCode {
    bonsai::cli::run()
}
