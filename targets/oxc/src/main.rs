//! `bonsai-oxc`: the Bonsai command line with the oxc JavaScript compiler linked in.

bonsai::target_main!(
    "oxc",
    bonsai_target_oxc::Oxc::new(),
    bonsai_baseline::NAUTILUS
);
