//! Version 3 keys stretched outside the module: what a stream's header asks
//! for (`stretchRequest`), and the key a platform's PBKDF2 made from it,
//! offered to a `Decryptor` or `VerifyPass` (`offerKey`). The browser
//! entry stretches with WebCrypto this way, natively and off the calling
//! thread; which key is used stays the library's rule
//! (`aescrypt::StretchedKey`).

use super::limits;
use crate::args;
use crate::errors::JsResult;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wireseal::aescrypt::{self as ac, Parse, Version};
use wireseal::secret::Secret;

/// What the stream beginning with `head` needs stretched: `{ publicIv,
/// iterations }` for a version 3 header, the salt and rounds of its
/// PBKDF2-HMAC-SHA512; `null` when it needs none (another version) or its
/// header is refused (a decryptor fed the same bytes says why); while
/// `head` ends inside the header, the number of bytes from the stream's
/// start the next step of the header needs (asking again before that many
/// are in gives the same answer). Option `maxIterations` as for
/// `Decryptor`.
///
/// # Errors
///
/// `invalid_input` when `head` is not a `Uint8Array` or an option has the
/// wrong type.
#[wasm_bindgen(
    js_name = aescrypt_stretchRequest,
    unchecked_return_type = "{ publicIv: Uint8Array, iterations: number } | null | number"
)]
pub fn stretch_request(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] head: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "{ maxIterations?: number }")] options: JsValue,
) -> JsResult<JsValue> {
    let lim = limits(&options)?;
    let array = args::uint8_array(&head, "head")?;
    // A header is at most `max_header_len` bytes: no more is copied in.
    let most = u32::try_from(lim.max_header_len).unwrap_or(u32::MAX);
    let head = array.subarray(0, array.length().min(most)).to_vec();
    match ac::parse_header(&head, &lim) {
        Ok(Parse::NeedMore(n)) => Ok(JsValue::from(n as f64)),
        Ok(Parse::Done(h)) => match h.iterations.filter(|_| h.version == Version::V3) {
            Some(n) => args::object(&[
                ("publicIv", Uint8Array::from(&h.public_iv[..]).into()),
                ("iterations", n.into()),
            ]),
            None => Ok(JsValue::NULL),
        },
        Err(_) => Ok(JsValue::NULL),
    }
}

/// The key `offerKey` was given: 32 bytes stretched with `publicIv` (16
/// bytes) and `iterations`.
///
/// # Errors
///
/// `invalid_input` for arguments of the wrong type or a non-integer or
/// out-of-range `iterations`; `invalid_key` for a salt or key of the
/// wrong length.
pub(super) fn offered(
    public_iv: &JsValue,
    iterations: f64,
    key: &JsValue,
) -> JsResult<ac::StretchedKey> {
    let iv = args::array::<16>(public_iv, "publicIv")?;
    let n = args::u32_arg(iterations, "iterations")?;
    let key = Secret::new(args::array::<32>(key, "key")?);
    Ok(ac::StretchedKey::new(iv, n, key))
}
