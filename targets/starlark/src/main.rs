//! `bonsai-starlark`: the Bonsai command line with starlark-rust's type checker linked in.

bonsai::target_main!(
    "starlark",
    bonsai_target_starlark::Starlark::new(),
    bonsai_baseline::NAUTILUS
);
