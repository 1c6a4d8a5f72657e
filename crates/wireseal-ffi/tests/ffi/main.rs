//! The C ABI's integration tests, one binary: the generated header and the C
//! and C++ suites built against the library.

mod c_suite;
mod cpp_suite;
mod header;
