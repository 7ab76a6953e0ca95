//! `bonsai-naga`: the Bonsai command line with the naga WGSL compiler linked in.

bonsai::target_main!(
    "naga",
    bonsai_target_naga::Naga::new(),
    bonsai_baseline::NAUTILUS
);
