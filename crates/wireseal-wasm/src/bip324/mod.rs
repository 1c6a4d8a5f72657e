//! `wireseal/bip324`: the BIP324 v2 transport, sans-IO. [`Connection`]
//! wraps the library's `bip324::Connection`: it is fed the bytes received
//! and hands back the bytes to send and the contents of the packets
//! received; [`KeyPool`] pre-generates ElligatorSwift keys. With the
//! `test-vectors` feature (the tests' build only), `PacketCipher` is the
//! packet layer alone, keyed from a caller-chosen ECDH shared secret as in
//! the BIP's vectors. The module's constants (`REKEY_INTERVAL`,
//! `MAX_GARBAGE_LEN`, `NETWORKS`) are in `js/src/bip324.js`.

mod connection;
mod pool;
#[cfg(feature = "test-vectors")]
mod vectors;

pub use connection::Connection;
pub use pool::KeyPool;
#[cfg(feature = "test-vectors")]
pub use vectors::PacketCipher;

use crate::args;
use crate::errors::{self, JsResult};
use wasm_bindgen::prelude::*;
use wireseal::bip324::{Network, PacketType, Role};

/// A network option: a name or the magic as 8 hex digits (parsed by the
/// library), or the 4 magic bytes; mainnet when absent.
fn network(options: &JsValue) -> JsResult<Network> {
    let Some(n) = args::option(options, "network")? else {
        return Ok(Network::MAINNET);
    };
    if let Some(text) = n.as_string() {
        return text.parse().map_err(errors::bip324);
    }
    let b = args::bytes(&n, "options.network")
        .map_err(|_| errors::invalid_input("options.network must be a string or a Uint8Array"))?;
    Network::try_from(&b[..]).map_err(errors::bip324)
}

/// A role by the library's name (`initiator` or `responder`).
fn role(v: &JsValue) -> JsResult<Role> {
    args::string(v, "role")?.parse().map_err(errors::bip324)
}

/// A `maxContents` option: the most contents bytes a received packet may
/// carry (the library's default, Bitcoin Core's limit, when absent).
fn max_contents(options: &JsValue) -> JsResult<Option<usize>> {
    Ok(args::int_option(options, "maxContents", usize::MAX as u64)?.map(|m| m as usize))
}

/// A bytes option, empty when absent.
fn bytes_option(options: &JsValue, name: &str) -> JsResult<Vec<u8>> {
    match args::option(options, name)? {
        None => Ok(Vec::new()),
        Some(v) => args::bytes(&v, &format!("options.{name}")),
    }
}

/// The packet type of option `decoy` (a genuine packet when absent).
fn kind(options: &JsValue) -> JsResult<PacketType> {
    Ok(if args::bool_option(options, "decoy")?.unwrap_or(false) {
        PacketType::Decoy
    } else {
        PacketType::Genuine
    })
}
