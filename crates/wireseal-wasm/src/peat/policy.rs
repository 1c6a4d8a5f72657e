//! `decide`: the encryption policy, as the record `wireseal peat policy
//! --json` prints.

use crate::args;
use crate::errors::{self, JsResult};
use js_sys::Array;
use wasm_bindgen::prelude::*;
use wireseal::peat::policy as pol;

// The policy's names and record as TypeScript types, beside the generated
// declarations; `js/src/peat.d.ts` re-exports them without the prefix.
#[wasm_bindgen(typescript_custom_section)]
const POLICY_TYPES: &str = r#"
/** A policy level. */
export type peat_Level = 'none' | 'mesh-wide' | 'selective' | 'peer-e2ee';
/** A link's trust. */
export type peat_Link = 'trusted-local' | 'known-peer' | 'untrusted-relay';
/** The protection a document gets. */
export type peat_Protection = 'plain' | 'mesh-wide' | 'peer-e2ee';
/** The rule that decided. */
export type peat_Rule = 'base' | 'link' | 'adaptive' | 'always-encrypt';
/** `counter`, `heartbeat`, `location`, `chat`, `emergency`, `sensitive-chat` or `app:N` (N from 0 to 65535). */
export type peat_DataType = 'counter' | 'heartbeat' | 'location' | 'chat' | 'emergency' | 'sensitive-chat' | `app:${number}`;
/** The adaptive rule of a decision. */
export interface peat_AdaptiveRecord {
  battery_below_percent: number;
  rate_above_hz: number | null;
}
/** The record `decide` returns: the one `wireseal peat policy --json` prints. */
export interface peat_Decision {
  protection: peat_Protection;
  decided_by: peat_Rule;
  level: peat_Level;
  data: peat_DataType;
  link: peat_Link;
  base: peat_Protection;
  after_link: peat_Protection;
  after_adaptive: peat_Protection;
  adaptive: peat_AdaptiveRecord | null;
  always_encrypt: peat_DataType[];
}
"#;

/// A policy value by the library's name.
fn parse<T: std::str::FromStr<Err = wireseal::peat::Error>>(
    v: &JsValue,
    what: &str,
) -> JsResult<T> {
    args::string(v, what)?.parse().map_err(errors::peat)
}

/// A record value as a JavaScript value (`null` for none).
fn field(f: &pol::Field) -> JsResult<JsValue> {
    Ok(match f {
        pol::Field::Name(s) => JsValue::from_str(s),
        pol::Field::Names(v) => v
            .iter()
            .map(|s| JsValue::from_str(s))
            .collect::<Array>()
            .into(),
        pol::Field::Int(n) => JsValue::from_f64(*n as f64),
        pol::Field::Float(x) => JsValue::from_f64(*x),
        pol::Field::Record(fields) => record(fields)?,
        _ => JsValue::NULL,
    })
}

/// Named fields as a plain object, in order.
fn record(fields: &[(&str, pol::Field)]) -> JsResult<JsValue> {
    let pairs = fields
        .iter()
        .map(|(k, v)| Ok((*k, field(v)?)))
        .collect::<JsResult<Vec<_>>>()?;
    args::object(&pairs)
}

/// A threshold of option `adaptive`: `null`/`undefined` for one that never
/// fires.
fn threshold(v: Option<&JsValue>) -> Option<&JsValue> {
    v.filter(|v| !v.is_null() && !v.is_undefined())
}

/// The protection a document gets under the policy of `level`, with the
/// default classes and overrides, as the record `wireseal peat policy
/// --json` prints (its keys in snake_case: `protection`, `decided_by`,
/// `level`, `data`, `link`, `base`, `after_link`, `after_adaptive`,
/// `adaptive`, `always_encrypt`). Names are the library's
/// (`"mesh-wide"`, `"known-peer"`, `"app:7"`). Options: `batteryPercent`
/// and `updateRateHz` (the conditions; a full battery and no updates by
/// default), `adaptive: [batteryBelowPercent, rateAboveHz]` (turns on the
/// low-power rule; `null` for a threshold that never fires) and
/// `alwaysEncrypt` (replaces the always-encrypt list).
///
/// # Errors
///
/// `invalid_input` for an unknown name, a value out of range or
/// arguments of the wrong type.
#[wasm_bindgen(js_name = peat_decide, unchecked_return_type = "peat_Decision")]
pub fn decide(
    #[wasm_bindgen(unchecked_param_type = "peat_Level")] level: JsValue,
    #[wasm_bindgen(js_name = dataType, unchecked_param_type = "peat_DataType")] data_type: JsValue,
    #[wasm_bindgen(unchecked_param_type = "peat_Link")] link: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ batteryPercent?: number, updateRateHz?: number, adaptive?: [number | null, number | null], alwaysEncrypt?: peat_DataType[] }"
    )]
    options: Option<JsValue>,
) -> JsResult<JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let mut policy = pol::Policy::new(parse(&level, "level")?);
    let data: pol::DataType = parse(&data_type, "dataType")?;
    let link: pol::Link = parse(&link, "link")?;
    if let Some(a) = args::option(&options, "adaptive")? {
        let items = args::array_items(&a, "options.adaptive")?;
        if items.len() != 2 {
            return Err(errors::invalid_input(
                "options.adaptive must be [batteryBelowPercent, rateAboveHz]",
            ));
        }
        let battery = threshold(items.first())
            .map(|b| {
                let n = b.as_f64().unwrap_or(f64::NAN);
                args::u8_arg(n, "options.adaptive[0]")
            })
            .transpose()?;
        let rate = threshold(items.get(1))
            .map(|r| {
                r.as_f64()
                    .ok_or_else(|| errors::invalid_input("options.adaptive[1] must be a number"))
            })
            .transpose()?;
        policy.adaptive = Some(pol::Adaptive::new(battery, rate).map_err(errors::peat)?);
    }
    if let Some(list) = args::option(&options, "alwaysEncrypt")? {
        policy.always_encrypt = args::array_items(&list, "options.alwaysEncrypt")?
            .iter()
            .map(|t| parse(t, "options.alwaysEncrypt[i]"))
            .collect::<JsResult<_>>()?;
    }
    let full = pol::Conditions::FULL_POWER;
    let battery = args::int_option(&options, "batteryPercent", u64::from(u8::MAX))?
        .map_or(full.battery_percent, |b| b as u8);
    let rate = match args::option(&options, "updateRateHz")? {
        None => full.update_rate_hz,
        Some(r) => r
            .as_f64()
            .ok_or_else(|| errors::invalid_input("options.updateRateHz must be a number"))?,
    };
    let cond = pol::Conditions::new(battery, rate).map_err(errors::peat)?;
    record(&pol::explain(&policy, data, link, cond).fields())
}
