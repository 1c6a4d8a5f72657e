//! The driver crate's integration tests, one binary: the partial-file writer
//! and a file rewritten between the seekable decryptor's two passes.

mod partial_file;
mod seek_file;
