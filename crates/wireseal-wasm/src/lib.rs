//! `wireseal-wasm`: the WebAssembly half of the npm package `wireseal`.
//!
//! wasm-bindgen exports are flat, so every export carries its module's
//! name (`meshtastic_ChannelKey`, `bip324_PacketCipher`, ...); the package's
//! ES modules (`js/src/*.js`) re-export them under the names the Python
//! package uses, in camelCase (`wireseal/meshtastic` → `ChannelKey`).
//!
//! Arguments arrive as untyped JavaScript values: [`args`] checks each one
//! (a `Uint8Array` where bytes are expected, an integer in range where a
//! number is) and every failure, the library's and the arguments', reaches
//! JavaScript as a `WiresealError` carrying the library's
//! [`wireseal::error::ErrorKind`] name ([`errors`]). No input reaches a
//! panic: a panic in WebAssembly is a trap, which JavaScript cannot tell
//! from a bug.
//!
//! Secrets live in the library's zeroizing types inside the exported
//! objects; `free()` (and the `FinalizationRegistry` wasm-bindgen registers
//! for every class) drops them, which wipes them in the module's memory.

pub mod aescrypt;
pub mod args;
pub mod bip324;
pub mod errors;
pub mod host;
pub mod meshcore;
pub mod meshtastic;
pub mod peat;
pub mod record_object;
pub mod sphinx;
pub mod wipe;

use wasm_bindgen::prelude::*;

/// The package's version (the crate's, which `scripts/js-build` also
/// writes into `package.json`).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
