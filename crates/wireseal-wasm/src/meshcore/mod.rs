//! `wireseal/meshcore`: MeshCore channels and identities, the strict
//! decoder (its object is the library's record, the JSON `wireseal
//! meshcore decode --json` prints), the builders of group texts, adverts
//! and direct messages, packet hashes and header fields. The module's
//! constants (`PUBLIC_CHANNEL_KEY`, `MAX_TRANS_UNIT`, ...) are in
//! `js/src/meshcore.js`.

mod build;
mod decoder;
mod keys;

pub use build::{advert, encrypt_group, text_message};
pub use decoder::{packet_hash, parse, Decoder};
pub use keys::{ChannelKey, LocalIdentity};

use crate::args;
use crate::errors::{invalid_input, JsResult};
use wasm_bindgen::JsValue;

/// An optional integer argument in `0..=max`: `None` when it is
/// `undefined` (absent) or `null`.
fn opt_int(v: &JsValue, max: u64, what: &str) -> JsResult<Option<u64>> {
    match v {
        v if v.is_undefined() || v.is_null() => Ok(None),
        v => {
            let n = v
                .as_f64()
                .ok_or_else(|| invalid_input(format!("{what} must be a number")))?;
            args::int(n, max, what).map(Some)
        }
    }
}
