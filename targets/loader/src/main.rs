//! `bonsai-loader`: the whole Bonsai command line with the grammar-loader target linked in.
//! `bonsai ... --target loader` finds this binary and hands the command over to it.

bonsai::target_main!(
    "loader",
    bonsai_target_loader::Loader,
    bonsai_baseline::NAUTILUS
);
