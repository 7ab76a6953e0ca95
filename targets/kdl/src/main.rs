//! `bonsai-kdl`: the Bonsai command line with the kdl crate's KDL parser linked in.

bonsai::target_main!(
    "kdl",
    bonsai_target_kdl::Kdl::new(),
    bonsai_baseline::NAUTILUS
);
