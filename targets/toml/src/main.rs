//! `bonsai-toml`: the Bonsai command line with toml_edit's TOML parser linked in.

bonsai::target_main!(
    "toml",
    bonsai_target_toml::Toml::new(),
    bonsai_baseline::NAUTILUS
);
