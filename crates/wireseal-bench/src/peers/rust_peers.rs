//! Whether the Rust peers (LDK's `lightning`, the `bip324` crate) are built
//! in: they are behind this crate's `rust-peers` feature, which the CLI turns
//! on only with its own `bench-peers` feature.

use super::Skip;
use crate::Row;

/// `Ok` when the Rust peers are compiled in.
///
/// # Errors
///
/// [`Skip`] naming the feature when they are not.
pub fn available() -> Result<(), Skip> {
    if cfg!(feature = "rust-peers") {
        Ok(())
    } else {
        Err(Skip::new(
            "built without the Rust peers (`cargo run --release -p wireseal-cli --features bench-peers -- bench`)",
        ))
    }
}

/// Marks every row whose baseline name starts with `peer` as skipped when
/// the Rust peers are not compiled in (their figures were not measured).
pub fn mark_skipped(rows: Vec<Row>, peer: &str) -> Vec<Row> {
    match available() {
        Ok(()) => rows,
        Err(why) => rows
            .into_iter()
            .map(|r| {
                if r.baseline_name.starts_with(peer) {
                    r.skipped(&why)
                } else {
                    r
                }
            })
            .collect(),
    }
}
