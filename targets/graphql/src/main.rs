//! `bonsai-graphql`: the Bonsai command line with graphql-parser linked in.

bonsai::target_main!(
    "graphql",
    bonsai_target_graphql::Graphql::new(),
    bonsai_baseline::NAUTILUS
);
