//! The design manual: how wireseal is laid out, the decisions behind it, and
//! the one vocabulary every module follows.
//!
//! This module holds no code. It is rustdoc rather than a markdown page so
//! that its links to real items (such as [`crate::cache::SharedSecretCache`])
//! break the documentation build (`RUSTDOCFLAGS="-D warnings" cargo doc`)
//! when an item is renamed: the design notes cannot drift from the code.
//!
//! - [`layout`]: the crates, the library's modules and what each holds.
//! - [`decisions`]: sans-IO and its exceptions, the shared-secret cache,
//!   batches, errors, where crypto crates are named, the bench frame.
//! - [`vocabulary`]: names, argument order and error variants that are the
//!   same in every format module.
//!
//! Per-format notes (wire details, security limits, measured figures) are in
//! the repository's `docs/` folder, one page per format.

pub mod decisions;
pub mod layout;
pub mod vocabulary;
