//! The C ABI's integration tests, one binary: the generated header and the C
//! suite built against the library.

mod c_suite;
mod header;
