//! Fulfills: hold times (BOLT #4 attribution data) and the final node's
//! `fulfillment_payload`, with the same operations and field names as the
//! Python package and `wireseal sphinx fulfill`.

use super::failure::{blinded_hops, block, hold_time, incoming, secrets};
use super::{bytes_option, optional_bytes, optional_js};
use crate::args::{self, to_js};
use crate::errors::{self, JsResult};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wireseal::sphinx::fulfill::{self, payload, Payload, Returned};

fn fulfilled(r: &Returned) -> JsResult<JsValue> {
    args::object(&[
        ("payload", optional_js(r.payload.as_deref())),
        (
            "attributionData",
            optional_js(r.attribution.as_ref().map(|a| &a.as_bytes()[..])),
        ),
    ])
}

/// At the recipient or an intermediate hop of a fulfilled HTLC without a
/// payload: adds this hop's hold time (option `holdTimeMs`, 0 when absent)
/// and HMACs to option `attributionData` (a new block when absent);
/// returns the 920 bytes.
///
/// # Errors
///
/// `truncated` / `too_long` for attribution data that is not 920 bytes;
/// `invalid_key` for a shared secret that is not 32 bytes;
/// `invalid_input` for arguments of the wrong type.
#[wasm_bindgen(js_name = sphinx_fulfillWrap)]
pub fn fulfill_wrap(
    #[wasm_bindgen(js_name = sharedSecret, unchecked_param_type = "Uint8Array")]
    shared_secret: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ attributionData?: Uint8Array, holdTimeMs?: number }"
    )]
    options: Option<JsValue>,
) -> JsResult<Uint8Array> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let ss = super::shared_secret(&shared_secret, "sharedSecret")?;
    let data = bytes_option(&options, "attributionData")?;
    let hold = hold_time(&options)?;
    let mut a = block(data.as_deref())?;
    fulfill::wrap(&ss, hold, &mut a);
    Ok(to_js(a.as_bytes()))
}

/// At the final node: seals option `records` (a TLV stream without
/// `padding`) into a `fulfillment_payload` when given, and starts the
/// attribution data with option `holdTimeMs` unless `blinded: true` (a
/// `path_key` came with the HTLC).
///
/// # Errors
///
/// `invalid_input` for records holding a padding record, or arguments of
/// the wrong type; `malformed` for records that are not a TLV stream;
/// `too_long` for records too long to seal; `invalid_key` for a shared
/// secret that is not 32 bytes.
#[wasm_bindgen(js_name = sphinx_fulfillCreate, unchecked_return_type = "sphinx_Fulfilled")]
pub fn fulfill_create(
    #[wasm_bindgen(js_name = sharedSecret, unchecked_param_type = "Uint8Array")]
    shared_secret: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ holdTimeMs?: number, records?: Uint8Array, blinded?: boolean }"
    )]
    options: Option<JsValue>,
) -> JsResult<JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let ss = super::shared_secret(&shared_secret, "sharedSecret")?;
    let hold = hold_time(&options)?;
    let records = bytes_option(&options, "records")?;
    let incoming = incoming(&options)?;
    let r = fulfill::create_at(&ss, incoming, hold, records.as_deref()).map_err(errors::sphinx)?;
    fulfilled(&r)
}

/// At a hop passing a fulfill back: adds this hop's hold time and HMACs
/// (over option `payload` as received) to option `attributionData` unless
/// `blinded: true`, then its layer of the payload.
///
/// # Errors
///
/// `too_long` for a payload over 32,768 bytes or attribution data over 920;
/// `truncated` for shorter attribution data; `invalid_key` for a shared
/// secret that is not 32 bytes; `invalid_input` for arguments of the wrong
/// type.
#[wasm_bindgen(js_name = sphinx_fulfillRelay, unchecked_return_type = "sphinx_Fulfilled")]
pub fn fulfill_relay(
    #[wasm_bindgen(js_name = sharedSecret, unchecked_param_type = "Uint8Array")]
    shared_secret: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ payload?: Uint8Array, attributionData?: Uint8Array, holdTimeMs?: number, blinded?: boolean }"
    )]
    options: Option<JsValue>,
) -> JsResult<JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let ss = super::shared_secret(&shared_secret, "sharedSecret")?;
    let payload = bytes_option(&options, "payload")?;
    let data = bytes_option(&options, "attributionData")?;
    let hold = hold_time(&options)?;
    let incoming = incoming(&options)?;
    let mut r = Returned {
        payload,
        attribution: data.as_deref().map(|a| block(Some(a))).transpose()?,
    };
    fulfill::relay(&ss, incoming, hold, &mut r).map_err(errors::sphinx)?;
    fulfilled(&r)
}

/// At the origin: the hold times in a fulfill's `attributionData`
/// (`undefined` when none came back) and its option `payload` over the
/// route's `sharedSecrets`, the last option `blindedHops` inside a blinded
/// path.
///
/// # Errors
///
/// `invalid_input` for no secrets, more blinded hops than hops, or
/// arguments of the wrong type; `invalid_key` for a secret that is not 32
/// bytes.
#[wasm_bindgen(js_name = sphinx_fulfillUnwrap, unchecked_return_type = "sphinx_HoldTimes")]
pub fn fulfill_unwrap(
    #[wasm_bindgen(js_name = sharedSecrets, unchecked_param_type = "ReadonlyArray<Uint8Array>")]
    shared_secrets: JsValue,
    #[wasm_bindgen(js_name = attributionData, unchecked_optional_param_type = "Uint8Array | undefined")]
    attribution_data: Option<JsValue>,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ payload?: Uint8Array, blindedHops?: number }"
    )]
    options: Option<JsValue>,
) -> JsResult<JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let hs = secrets(&shared_secrets, "sharedSecrets", blinded_hops(&options)?)?;
    let data = optional_bytes(
        &attribution_data.unwrap_or(JsValue::UNDEFINED),
        "attributionData",
    )?;
    let payload = bytes_option(&options, "payload")?;
    let f = fulfill::unwrap_returned(&hs, payload.as_deref(), data.as_deref())
        .map_err(errors::sphinx)?;
    let h = &f.hold_times;
    let holds: Array = h
        .hold_times_ms
        .iter()
        .map(|&t| JsValue::from_f64(t as f64))
        .collect();
    let payload_error = match &f.payload {
        Payload::Ignored(e) => JsValue::from_str(&e.to_string()),
        _ => JsValue::UNDEFINED,
    };
    args::object(&[
        ("holdTimesMs", holds.into()),
        ("attribution", JsValue::from_str(h.attribution.name())),
        ("blamedHop", super::optional_number(h.blamed_hop)),
        ("payloadStatus", JsValue::from_str(f.payload.name())),
        ("payload", optional_js(f.payload.records())),
        ("payloadError", payload_error),
    ])
}

/// `records` with the `padding` record BOLT #4 asks for: the plaintext of
/// a `fulfillment_payload` (at least 256 bytes, a multiple of 256).
///
/// # Errors
///
/// `invalid_input` for records already holding a padding record, or an
/// argument of the wrong type; `malformed` for records that are not a TLV
/// stream; `too_long` for records too long to pad.
#[wasm_bindgen(js_name = sphinx_fulfillmentPadded)]
pub fn fulfillment_padded(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] records: JsValue,
) -> JsResult<Uint8Array> {
    let records = args::bytes(&records, "records")?;
    Ok(to_js(&payload::padded(&records).map_err(errors::sphinx)?))
}
