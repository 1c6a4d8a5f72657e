//! `wireseal/meshcore`.
