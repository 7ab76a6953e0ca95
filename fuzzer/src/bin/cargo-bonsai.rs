//! `cargo bonsai`: the cargo subcommand (init, build, and every Bonsai command on the built
//! target); everything lives in the library's `cargo_bonsai` module.

fn main() -> std::process::ExitCode {
    bonsai::cargo_bonsai::main()
}
