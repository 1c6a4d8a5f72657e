//! Every failure as a JavaScript `WiresealError` (defined in the package's
//! `errors.js`): `kind` is the library's [`ErrorKind`] name (`auth`,
//! `truncated`, `too_long`, ...), `message` the library's text, and MeshCore
//! errors add the finer `reason` (`path_too_long`, `version`, ...).

use wasm_bindgen::prelude::*;
use wireseal::error::ErrorKind;

#[wasm_bindgen(raw_module = "../errors.js")]
extern "C" {
    /// `new WiresealError(kind, message, reason)`.
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(kind: &str, message: &str, reason: Option<String>) -> JsValue;
}

/// A `WiresealError` of `kind` with `message`.
pub fn error(kind: ErrorKind, message: impl AsRef<str>) -> JsValue {
    make_error(kind.as_str(), message.as_ref(), None)
}

/// A `WiresealError` of `kind` with `message` and a finer `reason`.
pub fn with_reason(kind: ErrorKind, message: impl AsRef<str>, reason: &str) -> JsValue {
    make_error(kind.as_str(), message.as_ref(), Some(reason.to_owned()))
}

/// `invalid_input`: an argument of the wrong type or out of range.
pub fn invalid_input(message: impl AsRef<str>) -> JsValue {
    error(ErrorKind::InvalidInput, message)
}

/// `invalid_key`: a key of the wrong length or unusable.
pub fn invalid_key(message: impl AsRef<str>) -> JsValue {
    error(ErrorKind::InvalidKey, message)
}

/// Meshtastic errors.
pub fn meshtastic(e: wireseal::meshtastic::Error) -> JsValue {
    error(e.kind(), e.to_string())
}

/// MeshCore errors, with the library's reason name.
pub fn meshcore(e: wireseal::meshcore::Error) -> JsValue {
    with_reason(e.kind(), e.to_string(), e.reason())
}

/// peat errors.
pub fn peat(e: wireseal::peat::Error) -> JsValue {
    error(e.kind(), e.to_string())
}

/// BIP324 errors.
pub fn bip324(e: wireseal::bip324::Error) -> JsValue {
    error(e.kind(), e.to_string())
}

/// Sphinx errors.
pub fn sphinx(e: wireseal::sphinx::Error) -> JsValue {
    error(e.kind(), e.to_string())
}

/// AES Crypt errors.
pub fn aescrypt(e: wireseal::aescrypt::Error) -> JsValue {
    error(e.kind(), e.to_string())
}

/// The result type of every export.
pub type JsResult<T> = Result<T, JsValue>;
