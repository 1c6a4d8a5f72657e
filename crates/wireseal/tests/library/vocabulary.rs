//! The vocabulary (`wireseal::manual::vocabulary`) as types: this file fails
//! to compile when a module drifts from it. Nothing here runs real work; the
//! one test only makes the harness build the assertions.

use std::fmt::{Debug, Display};
use std::str::FromStr;
use wireseal::error::ErrorKind;
use wireseal::{aescrypt, bip324, meshtastic, peat, sphinx};

/// Every module's error: comparable, cloneable, printable, thread-safe, with
/// a kind from the one table.
trait ModuleError: Clone + Eq + Debug + Display + std::error::Error + Send + Sync + 'static {
    fn kind_of(&self) -> ErrorKind;
}

macro_rules! module_errors {
    ($($e:ty),*) => {$(
        impl ModuleError for $e {
            fn kind_of(&self) -> ErrorKind {
                self.kind()
            }
        }
    )*};
}
module_errors!(
    meshtastic::Error,
    peat::Error,
    bip324::Error,
    sphinx::Error,
    aescrypt::Error
);

/// The shared variants, spelled the same in every module, and the variants
/// of the other common kinds exactly where a module's calls return them.
macro_rules! shared_variants {
    ($($m:ident: [$($v:ident),*]),*) => {$(
        const _: fn() = || {
            use $m::Error as E;
            let _ = [
                E::Auth,
                E::Truncated { len: 0, min: 1 },
                E::TooLong { len: 2, max: 1 },
                E::BufferTooSmall { required: 1 },
                $(E::$v,)*
            ];
        };
    )*};
}
shared_variants!(
    meshtastic: [InvalidKey, Replay],
    peat: [InvalidKey, Replay, Exhausted],
    bip324: [InvalidKey, Poisoned, Exhausted],
    sphinx: [InvalidKey, Replay],
    aescrypt: [Poisoned]
);

/// Each of those variants has the kind of its name.
#[test]
fn common_kinds_keep_their_names() {
    use wireseal::error::ErrorKind as K;
    assert_eq!(meshtastic::Error::Replay.kind(), K::Replay);
    assert_eq!(peat::Error::Exhausted.kind(), K::Exhausted);
    assert_eq!(bip324::Error::Poisoned.kind(), K::Poisoned);
    assert_eq!(sphinx::Error::InvalidKey.kind(), K::InvalidKey);
    assert_eq!(aescrypt::Error::Poisoned.kind(), K::Poisoned);
}

/// Size helpers: `const fn sealed_len(usize) -> usize` and
/// `const fn opened_len(usize) -> Result<usize, Error>`, usable in constants.
const _: [usize; 6] = [
    meshtastic::sealed_len(1),
    peat::sealed_len(1),
    peat::peer_sealed_len(1),
    bip324::sealed_len(1),
    sphinx::blinding::sealed_len(1),
    sphinx::onion_len(1300),
];
const _: [Result<usize, meshtastic::Error>; 1] = [meshtastic::opened_len(100)];
const _: [Result<usize, peat::Error>; 2] = [peat::opened_len(100), peat::peer_opened_len(100)];
const _: [Result<usize, bip324::Error>; 1] = [bip324::opened_len(100)];
const _: [Result<usize, sphinx::Error>; 1] = [sphinx::blinding::opened_len(100)];

/// `*_in_place` returns the processed part of the caller's buffer.
const _: fn() = || {
    let _ = |k: &meshtastic::ChannelKey, b: &mut [u8]| -> Result<(), meshtastic::Error> {
        let _: &mut [u8] = k.seal_in_place(1, 2, b)?;
        let _: &mut [u8] = k.open_in_place(1, 2, b)?;
        Ok(())
    };
    let _ = |k: &peat::MeshKey, b: &mut [u8]| -> Result<(), peat::Error> {
        let _: &mut [u8] = k.open_in_place(b)?;
        Ok(())
    };
    let _ = |s: &sphinx::SharedSecret, b: &mut [u8]| -> Result<(), sphinx::Error> {
        let _: &mut [u8] = sphinx::failure::wrap_in_place(s, b)?;
        Ok(())
    };
};

/// Batch entry points: `(now, batch, ..)` where time matters, `(batch, ..)`
/// otherwise, named `*_batch_*`.
const _: fn() = || {
    use wireseal::batch::Batch;
    let _ = |e: &mut meshtastic::PkcEngine,
             b: &Batch,
             p: &[meshtastic::SealedPkc<'_>],
             out: &mut [u8]| { e.open_batch_into(0, b, p, out) };
    let _ = |b: &Batch, k: &wireseal::keys::PrivateKey, items: &[sphinx::PeelItem<'_>]| {
        sphinx::peel_batch(b, k, items)
    };
};

/// User-facing names parse and print one spelling (`FromStr` + `Display`).
fn named<T: FromStr + Display>() {}

#[test]
fn the_vocabulary_compiles() {
    named::<bip324::Network>();
    named::<bip324::Role>();
    named::<sphinx::Area>();
    named::<sphinx::Padding>();
    named::<sphinx::Attribution>();
    named::<peat::MeshId>();
    named::<peat::policy::Level>();
    named::<peat::policy::Link>();
    named::<peat::policy::DataType>();
    named::<peat::policy::Override>();
    named::<meshtastic::SignaturePolicy>();
    named::<meshtastic::Identity>();
    // Each module's kinds come from the one table.
    let kinds = [
        meshtastic::Error::Auth.kind_of(),
        peat::Error::Auth.kind_of(),
        bip324::Error::Auth.kind_of(),
        sphinx::Error::Auth.kind_of(),
        aescrypt::Error::Auth.kind_of(),
    ];
    assert!(kinds.iter().all(|k| *k == ErrorKind::Auth));
}
