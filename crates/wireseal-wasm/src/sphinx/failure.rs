//! Failure packets with BOLT #4 attribution data, and the reply to an onion
//! that does not peel: the same operations, hop numbers (from 1) and field
//! names as the Python package and `wireseal sphinx error`.

use super::{optional_bytes, optional_js, optional_number, private_key, public_key, tuple};
use crate::args::{self, to_js};
use crate::errors::{self, JsResult};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wireseal::sphinx::attribution::UNKNOWN_HOLD_TIME_MS;
use wireseal::sphinx::failure;
use wireseal::sphinx::malformed::Malformed as RMalformed;
use wireseal::sphinx::{blinding, keys, AttributionData, HopSecrets, Incoming};

/// Largest hold time a caller may give, in milliseconds (2^53: every
/// integer up to it is exact in a JavaScript number; the wire saturates
/// far below).
pub(super) const MAX_HOLD_TIME_MS: u64 = 1 << 53;

/// The route's secrets (a JavaScript array of 32-byte secrets, path
/// order), its last `blinded_hops` inside a blinded path.
pub(super) fn secrets(v: &JsValue, what: &str, blinded_hops: usize) -> JsResult<HopSecrets> {
    let list = args::array_items(v, what)?
        .iter()
        .enumerate()
        .map(|(i, s)| super::shared_secret(s, &format!("{what}[{i}]")))
        .collect::<JsResult<Vec<_>>>()?;
    HopSecrets::new(list)
        .with_blinded_tail(blinded_hops)
        .map_err(errors::sphinx)
}

/// Option `blindedHops` (0 when absent).
pub(super) fn blinded_hops(options: &JsValue) -> JsResult<usize> {
    Ok(args::int_option(options, "blindedHops", u64::from(u32::MAX))?.unwrap_or(0) as usize)
}

/// Option `holdTimeMs` (0, "unknown", when absent).
pub(super) fn hold_time(options: &JsValue) -> JsResult<u64> {
    Ok(args::int_option(options, "holdTimeMs", MAX_HOLD_TIME_MS)?.unwrap_or(UNKNOWN_HOLD_TIME_MS))
}

/// How the hop's HTLC arrived: option `blinded` (a `path_key` came with it).
pub(super) fn incoming(options: &JsValue) -> JsResult<Incoming> {
    Ok(if args::bool_option(options, "blinded")?.unwrap_or(false) {
        Incoming::Blinded
    } else {
        Incoming::Unblinded
    })
}

/// Attribution data as received (920 bytes), or a new block.
pub(super) fn block(data: Option<&[u8]>) -> JsResult<AttributionData> {
    data.map_or(Ok(AttributionData::new()), |d| {
        AttributionData::from_slice(d).map_err(errors::sphinx)
    })
}

fn packet_out(packet: &[u8], a: Option<&AttributionData>) -> JsResult<JsValue> {
    args::object(&[
        ("packet", to_js(packet).into()),
        ("attributionData", optional_js(a.map(|a| &a.as_bytes()[..]))),
    ])
}

/// The shared secret (32 bytes) of a hop with `nodeKey` that received an
/// onion with `ephemeralKey` (the onion's bytes 1 to 33; `Peeled` has the
/// secret too): what the failure and fulfill functions take.
///
/// # Errors
///
/// `invalid_key` for an unusable node key or an ephemeral key that is not
/// a curve point; `invalid_input` for arguments of the wrong type.
#[wasm_bindgen(js_name = sphinx_hopSharedSecret)]
pub fn hop_shared_secret(
    #[wasm_bindgen(js_name = nodeKey, unchecked_param_type = "Uint8Array")] node_key: JsValue,
    #[wasm_bindgen(js_name = ephemeralKey, unchecked_param_type = "Uint8Array")]
    ephemeral_key: JsValue,
) -> JsResult<Uint8Array> {
    let k = private_key(&node_key, "nodeKey")?;
    let e = public_key(&ephemeral_key, "ephemeralKey")?;
    Ok(to_js(keys::shared_secret(&k, &e).expose()))
}

/// At the failing hop: the failure packet carrying `message` (a failure
/// code and its data) and its attribution data. Options: `holdTimeMs` (0
/// when absent); `blinded: true` for a hop whose HTLC came with a
/// `path_key` (no attribution data, as BOLT #4 has it); `attribution:
/// false` acts as a hop without attribution support.
///
/// # Errors
///
/// `too_long` for a message over the return packet's limit;
/// `invalid_key` for a shared secret that is not 32 bytes; `invalid_input`
/// for arguments of the wrong type.
#[wasm_bindgen(js_name = sphinx_failureCreate, unchecked_return_type = "sphinx_FailurePacket")]
pub fn failure_create(
    #[wasm_bindgen(js_name = sharedSecret, unchecked_param_type = "Uint8Array")]
    shared_secret: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] message: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ holdTimeMs?: number, attribution?: boolean, blinded?: boolean }"
    )]
    options: Option<JsValue>,
) -> JsResult<JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let ss = super::shared_secret(&shared_secret, "sharedSecret")?;
    let message = args::bytes(&message, "message")?;
    let hold = hold_time(&options)?;
    let incoming = incoming(&options)?;
    if !args::bool_option(&options, "attribution")?.unwrap_or(true) {
        let p = failure::create_to_vec(&ss, &message).map_err(errors::sphinx)?;
        return packet_out(&p, None);
    }
    let (p, a) = failure::create_at(&ss, incoming, &message, hold).map_err(errors::sphinx)?;
    packet_out(&p, a.as_ref())
}

/// At an intermediate hop: adds this hop's layer to `packet` (its first
/// 32,768 bytes when longer: the rest is dropped) and to option
/// `attributionData` (a new block when absent), reporting option
/// `holdTimeMs` (0 when absent). `blinded: true` (a `path_key` came with
/// the HTLC) adds and passes on no attribution data; `attribution: false`
/// wraps the packet only.
///
/// # Errors
///
/// `truncated` for a packet shorter than 36 bytes or attribution data
/// shorter than 920; `too_long` for longer attribution data;
/// `invalid_key` for a shared secret that is not 32 bytes;
/// `invalid_input` for arguments of the wrong type.
#[wasm_bindgen(js_name = sphinx_failureWrap, unchecked_return_type = "sphinx_FailurePacket")]
pub fn failure_wrap(
    #[wasm_bindgen(js_name = sharedSecret, unchecked_param_type = "Uint8Array")]
    shared_secret: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] packet: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ attributionData?: Uint8Array, holdTimeMs?: number, attribution?: boolean, blinded?: boolean }"
    )]
    options: Option<JsValue>,
) -> JsResult<JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let ss = super::shared_secret(&shared_secret, "sharedSecret")?;
    let mut p = args::bytes(&packet, "packet")?;
    let data = super::bytes_option(&options, "attributionData")?;
    let hold = hold_time(&options)?;
    let incoming = incoming(&options)?;
    if !args::bool_option(&options, "attribution")?.unwrap_or(true) {
        let sent = failure::wrap_in_place(&ss, &mut p).map_err(errors::sphinx)?;
        return packet_out(sent, None);
    }
    let mut a = Some(block(data.as_deref())?);
    let sent =
        failure::relay_in_place(&ss, incoming, hold, &mut p, &mut a).map_err(errors::sphinx)?;
    packet_out(sent, a.as_ref())
}

fn unwrapped(u: &failure::Unwrapped) -> JsResult<JsValue> {
    let holds: Array = u
        .hold_times_ms
        .iter()
        .map(|&t| JsValue::from_f64(t as f64))
        .collect();
    args::object(&[
        ("hop", optional_number(u.hop)),
        ("message", optional_js(u.message.as_deref())),
        ("holdTimesMs", holds.into()),
        ("attribution", JsValue::from_str(u.attribution.name())),
        ("blamedHop", optional_number(u.blamed_hop)),
    ])
}

/// At the origin: reads `packet` and its `attributionData` (if any came
/// back; `undefined` otherwise) over the route's `sharedSecrets` (path
/// order), the last option `blindedHops` of them inside a blinded path
/// (they add no attribution data; it is read up to the introduction node).
/// An unattributable packet is a result, not an error.
///
/// # Errors
///
/// `invalid_input` for no secrets, more blinded hops than hops, or
/// arguments of the wrong type; `invalid_key` for a secret that is not 32
/// bytes.
#[wasm_bindgen(js_name = sphinx_failureUnwrap, unchecked_return_type = "sphinx_Unwrapped")]
pub fn failure_unwrap(
    #[wasm_bindgen(js_name = sharedSecrets, unchecked_param_type = "ReadonlyArray<Uint8Array>")]
    shared_secrets: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] packet: JsValue,
    #[wasm_bindgen(js_name = attributionData, unchecked_optional_param_type = "Uint8Array | undefined")]
    attribution_data: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "{ blindedHops?: number }")] options: Option<
        JsValue,
    >,
) -> JsResult<JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let hs = secrets(&shared_secrets, "sharedSecrets", blinded_hops(&options)?)?;
    let packet = args::bytes(&packet, "packet")?;
    let data = optional_bytes(
        &attribution_data.unwrap_or(JsValue::UNDEFINED),
        "attributionData",
    )?;
    let u = failure::unwrap_attributed(&hs, &packet, data.as_deref()).map_err(errors::sphinx)?;
    unwrapped(&u)
}

/// [`failure_unwrap`] for many failures `[[sharedSecrets, packet,
/// attributionData or undefined], ...]`. Returns, in input order, an
/// `Unwrapped` or the `WiresealError` that unwrapping that item alone
/// would throw.
///
/// # Errors
///
/// `invalid_input` / `invalid_key` for items of the wrong shape or type.
#[wasm_bindgen(js_name = sphinx_failureUnwrapBatch, unchecked_return_type = "sphinx_UnwrapResult[]")]
pub fn failure_unwrap_batch(
    #[wasm_bindgen(
        unchecked_param_type = "ReadonlyArray<readonly [ReadonlyArray<Uint8Array>, Uint8Array, Uint8Array | undefined]>"
    )]
    items: JsValue,
) -> JsResult<Array> {
    let items = args::array_items(&items, "items")?
        .iter()
        .enumerate()
        .map(|(i, it)| {
            let at = format!("items[{i}]");
            let [s, p, a] = tuple::<3>(it, &at, "[sharedSecrets, packet, attributionData]")?;
            Ok((
                secrets(&s, &format!("{at}[0]"), 0)?,
                args::bytes(&p, &format!("{at}[1]"))?,
                optional_bytes(&a, &format!("{at}[2]"))?,
            ))
        })
        .collect::<JsResult<Vec<_>>>()?;
    items
        .iter()
        .map(
            |(s, p, a)| match failure::unwrap_attributed(s, p, a.as_deref()) {
                Ok(u) => unwrapped(&u),
                Err(e) => Ok(errors::sphinx(e)),
            },
        )
        .collect()
}

/// At a hop, forwarding or final: the `Malformed` reply its onion calls
/// for (`nodeKey`, and option `pathKey`, the HTLC's, for a hop inside a
/// blinded path), or `undefined` when the onion's HMAC verifies.
///
/// # Errors
///
/// `truncated` / `too_long` / `unsupported` for a packet of neither onion
/// size; `invalid_key` for unusable keys; `invalid_input` for arguments of
/// the wrong type.
#[wasm_bindgen(js_name = sphinx_malformed, unchecked_return_type = "sphinx_Malformed | undefined")]
pub fn malformed(
    #[wasm_bindgen(js_name = nodeKey, unchecked_param_type = "Uint8Array")] node_key: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] onion: JsValue,
    #[wasm_bindgen(js_name = associatedData, unchecked_param_type = "Uint8Array")]
    associated_data: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "{ pathKey?: Uint8Array }")] options: Option<
        JsValue,
    >,
) -> JsResult<JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let node = private_key(&node_key, "nodeKey")?;
    let onion = args::bytes(&onion, "onion")?;
    let associated_data = args::bytes(&associated_data, "associatedData")?;
    let unblinded = match args::option(&options, "pathKey")? {
        Some(p) if !p.is_null() => {
            let pk = public_key(&p, "options.pathKey")?;
            Some(blinding::unblind(&node, &pk).map_err(errors::sphinx)?)
        }
        _ => None,
    };
    let key = unblinded.as_ref().map_or(&node, |u| u.blinded_privkey());
    let Some(m) = RMalformed::reply_for(&onion, key, &associated_data).map_err(errors::sphinx)?
    else {
        return Ok(JsValue::UNDEFINED);
    };
    let message = m.failure_message().map_err(errors::sphinx)?;
    args::object(&[
        ("failureCode", JsValue::from_f64(f64::from(m.failure_code))),
        (
            "failure",
            JsValue::from_str(m.reason().map_or("", |r| r.name())),
        ),
        ("sha256OfOnion", to_js(&m.sha256_of_onion).into()),
        ("message", to_js(&message).into()),
    ])
}
