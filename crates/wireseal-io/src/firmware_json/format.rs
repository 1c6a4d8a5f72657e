//! The JSON text the 2.7 firmware's serializer writes (its bundled SimpleJSON
//! library): object keys in byte order, no spaces, every number a `double`
//! printed with 15 significant digits (`%.15g`), `/` escaped as `\/`,
//! control characters as `\u00xx`, other bytes as they are.

use std::collections::BTreeMap;

/// A JSON value as SimpleJSON holds it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// Every number is a `double`.
    Num(f64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Value>),
    /// An object: keys in byte order (a `std::map<std::string, …>`).
    Obj(BTreeMap<String, Value>),
}

impl Value {
    /// An unsigned or signed integer, as the firmware casts it.
    pub fn int(v: impl Into<i64>) -> Value {
        Value::Num(v.into() as f64)
    }

    /// A protobuf `float`, widened to `double` as the firmware does (so
    /// `3.72f` prints `3.72000002861023`).
    pub fn float(v: f32) -> Value {
        Value::Num(f64::from(v))
    }

    /// A string.
    pub fn str(s: impl Into<String>) -> Value {
        Value::Str(s.into())
    }

    /// The text.
    pub fn write(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Num(n) => out.push_str(&g15(*n)),
            Value::Str(s) => string(s, out),
            Value::Arr(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            Value::Obj(m) => {
                out.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    string(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    /// The value from a standard JSON parse (a text message that is JSON).
    pub fn from_json(v: serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Num(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::String(s) => Value::Str(s),
            serde_json::Value::Array(a) => {
                Value::Arr(a.into_iter().map(Value::from_json).collect())
            }
            serde_json::Value::Object(m) => Value::Obj(
                m.into_iter()
                    .map(|(k, v)| (k, Value::from_json(v)))
                    .collect(),
            ),
        }
    }
}

/// `%.15g` of a `double`, as `std::stringstream` with `precision(15)`
/// writes it; NaN and infinities are `null`.
pub fn g15(v: f64) -> String {
    if !v.is_finite() {
        return "null".into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Whole numbers below 10^15 print as integers (the common case: ids,
    // times, node numbers).
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return (v as i64).to_string();
    }
    // d.dddddddddddddde±X: 15 significant digits, correctly rounded.
    let sci = format!("{v:.14e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if !(-4..15).contains(&exp) {
        let mut m = digits[..1].to_owned();
        let rest = digits[1..].trim_end_matches('0');
        if !rest.is_empty() {
            m.push('.');
            m.push_str(rest);
        }
        out.push_str(&m);
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.unsigned_abs()));
        return out;
    }
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(digits.trim_end_matches('0'));
        return out;
    }
    let int_len = exp as usize + 1;
    out.push_str(&digits[..int_len]);
    let frac = digits[int_len..].trim_end_matches('0');
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    out
}

/// A string as SimpleJSON escapes it.
pub fn string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' | '/' => {
                out.push('\\');
                out.push(c);
            }
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Bytes as the firmware's C string: up to the first NUL, as UTF-8 (an
/// invalid sequence becomes U+FFFD, where the firmware copies the bytes).
pub fn c_string(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values docs/gateway.md and the vectors' notes list, printed by
    /// the same formatting compiled with g++.
    #[test]
    fn numbers_as_the_firmware_prints_them() {
        let cases: [(f32, &str); 10] = [
            (3.72, "3.72000002861023"),
            (15.56, "15.5600004196167"),
            (8.23, "8.22999954223633"),
            (23.56, "23.5599994659424"),
            (1013.27, "1013.27001953125"),
            (5.8, "5.80000019073486"),
            (10.5, "10.5"),
            (-7.25, "-7.25"),
            (100.0, "100"),
            (1e-5, "9.99999974737875e-06"),
        ];
        for (f, want) in cases {
            assert_eq!(g15(f64::from(f)), want, "{f}");
        }
        assert_eq!(g15(4_294_967_295.0), "4294967295");
        assert_eq!(g15(-1_221_981_000.0), "-1221981000");
        assert_eq!(g15(1e15), "1e+15");
        assert_eq!(g15(123_456_789_012_345.0), "123456789012345");
        assert_eq!(g15(0.0001), "0.0001");
        assert_eq!(g15(f64::NAN), "null");
    }

    #[test]
    fn strings_as_the_firmware_escapes_them() {
        let mut out = String::new();
        string("a/b \"q\" \\ \n\t\u{1}\u{7f} é", &mut out);
        assert_eq!(out, r#""a\/b \"q\" \\ \n\t\u0001\u007f é""#);
        assert_eq!(c_string(b"hi\0there"), "hi");
    }
}
