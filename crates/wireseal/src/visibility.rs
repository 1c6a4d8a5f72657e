//! Items whose visibility depends on a feature: public with the feature,
//! crate-private without it, from one declaration.
//!
//! - [`pub_if_hazmat!`]: items the bench, the fuzz targets and the
//!   library's own tests measure or drive directly (raw primitive
//!   operations, the batch helpers under the format entry points).
//! - [`pub_if_test_vectors!`]: entry points that take a caller-chosen nonce,
//!   key or randomness, so official vectors can be reproduced byte for
//!   byte. Reusing a nonce breaks the formats' security; only tests enable
//!   the `test-vectors` feature.

/// Declares the item `pub` with the `hazmat` feature, `pub(crate)` without.
macro_rules! pub_if_hazmat {
    ($(#[$meta:meta])* $kw:ident $($item:tt)*) => {
        #[cfg(feature = "hazmat")]
        $(#[$meta])*
        pub $kw $($item)*

        #[cfg(not(feature = "hazmat"))]
        $(#[$meta])*
        #[allow(dead_code, unreachable_pub)]
        pub(crate) $kw $($item)*
    };
}
pub(crate) use pub_if_hazmat;

#[allow(unused_macros)]
/// Declares the item `pub` with the `test-vectors` feature, `pub(crate)`
/// without.
macro_rules! pub_if_test_vectors {
    ($(#[$meta:meta])* $kw:ident $($item:tt)*) => {
        #[cfg(feature = "test-vectors")]
        $(#[$meta])*
        pub $kw $($item)*

        #[cfg(not(feature = "test-vectors"))]
        $(#[$meta])*
        #[allow(dead_code, unreachable_pub)]
        pub(crate) $kw $($item)*
    };
}
#[allow(unused_imports)]
pub(crate) use pub_if_test_vectors;
