//! `bonsai-example`: the whole Bonsai command line with the example target linked in.
//! `bonsai ... --target example` finds this binary and hands the command over to it.

bonsai::target_main!(
    "example",
    bonsai_target_example::Example,
    bonsai_baseline::NAUTILUS
);
