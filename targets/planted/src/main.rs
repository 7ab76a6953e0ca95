//! `bonsai-planted`: the Bonsai command line with the planted-bug target linked in.

bonsai::target_main!(
    "planted",
    bonsai_target_planted::Planted,
    bonsai_baseline::NAUTILUS
);
