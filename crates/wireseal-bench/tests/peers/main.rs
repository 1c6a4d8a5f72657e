//! The bench crate's integration tests, one binary: interop against the real
//! peers (the `bip324` crate, AES Crypt implementations, LDK, lightning-onion),
//! python-xeddsa and the Meshtastic policy encoder, the Python package's
//! suite, and the report.

mod sphinx_ldk_support;

mod aescrypt_interop;
mod bip324_interop;
mod meshcore_interop;
mod meshtastic_python_peers;
mod python_package;
mod report;
mod sphinx_attribution_ldk;
mod sphinx_blinded_ldk;
mod sphinx_interop_go;
