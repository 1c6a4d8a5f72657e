//! Records as JavaScript objects, built without JSON text: a `serde`
//! serializer writes the record as a tape (operation codes and numbers in
//! one `f64` array, the text of every string in one `String`), and the
//! package's `record-object.js` builds the object from it in one call.
//!
//! The object is the one `JSON.parse` makes of the record's JSON (the line
//! the gateway writes), which the package's tests check record by record:
//! numbers are JSON's doubles (an `f32` goes through its shortest decimal,
//! as `serde_json` writes it), NaN and the infinities are `null`, bytes are
//! arrays of numbers, an enum variant with data is `{variant: data}`. JSON
//! text would cost an envelope's decode about half its time: every string
//! escaped on the way out, then parsed back.
//!
//! Map keys are interned: a key's text crosses once, the first time the
//! module writes it, and then only its number (`record-object.js` keeps the
//! same table). A key is looked up by its address and length and its text
//! compared, so a key string freed and another written at the same address
//! is never mistaken for it; the table is bounded ([`MAX_KEYS`]), past which
//! keys cross as text every time. The record serializers' keys are string
//! literals, so in practice every key is interned once.

use crate::errors::{invalid_input, JsResult};
use serde::ser::{self, Serialize};
use std::cell::{Cell, RefCell};
use std::fmt::{Display, Write as _};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(raw_module = "../record-object.js")]
extern "C" {
    /// Builds the object a tape describes (`record-object.js`).
    #[wasm_bindgen(catch, js_name = buildRecord)]
    fn build_record(ops: &[f64], text: &str) -> Result<JsValue, JsValue>;
}

/// The tape's operation codes (`record-object.js` has the same numbers).
mod op {
    /// Starts an object; its keys and values follow, then [`END`].
    pub const OBJECT: f64 = 0.0;
    /// Starts an array; its values follow, then [`END`].
    pub const ARRAY: f64 = 1.0;
    /// Ends the innermost object or array.
    pub const END: f64 = 2.0;
    /// The next value's key: an interned key's number follows.
    pub const KEY: f64 = 3.0;
    /// The next value's key, interned now: its number and its text's
    /// length (UTF-16 units) follow.
    pub const NEW_KEY: f64 = 4.0;
    /// The next value's key, not interned: its text's length follows.
    pub const TEXT_KEY: f64 = 5.0;
    /// A number: its value follows.
    pub const NUMBER: f64 = 6.0;
    /// A string: its length (UTF-16 units) follows.
    pub const STRING: f64 = 7.0;
    /// `true`.
    pub const TRUE: f64 = 8.0;
    /// `false`.
    pub const FALSE: f64 = 9.0;
    /// `null`.
    pub const NULL: f64 = 10.0;
    /// A number written as decimal text (read as `JSON.parse` reads it):
    /// the text's length follows.
    pub const DECIMAL: f64 = 11.0;
}

/// The most keys interned (the records' serializers use about a hundred).
pub const MAX_KEYS: usize = 1024;

/// Slots of [`KeyTable::recent`].
const RECENT: usize = 32;

/// The keys interned so far, as `record-object.js` holds them.
#[derive(Default)]
struct KeyTable {
    /// `(address, length, number)`, sorted by address and length.
    by_address: Vec<(usize, usize, u32)>,
    /// The keys' text, by number.
    names: Vec<Box<str>>,
    /// The last `(address, length, number)` found in each slot (by
    /// address): a record's keys found without the search.
    recent: [Cell<(usize, usize, u32)>; RECENT],
}

impl KeyTable {
    fn slot(&self, address: usize) -> &Cell<(usize, usize, u32)> {
        &self.recent[(address >> 3) % RECENT]
    }

    fn find(&self, key: &str) -> Option<u32> {
        let at = (key.as_ptr() as usize, key.len());
        let slot = self.slot(at.0);
        let (address, len, id) = slot.get();
        let id = if (address, len) == at {
            id
        } else {
            let i = self
                .by_address
                .binary_search_by(|e| (e.0, e.1).cmp(&at))
                .ok()?;
            let id = self.by_address[i].2;
            slot.set((at.0, at.1, id));
            id
        };
        (*self.names[id as usize] == *key).then_some(id)
    }

    fn insert(&mut self, address: usize, name: Box<str>) {
        let at = (address, name.len());
        let id = self.names.len() as u32;
        match self.by_address.binary_search_by(|e| (e.0, e.1).cmp(&at)) {
            // A freed key's address, reused: the newer text wins there (the
            // older keeps its number, found again only at another address).
            Ok(i) => self.by_address[i].2 = id,
            Err(i) => self.by_address.insert(i, (at.0, at.1, id)),
        }
        self.slot(address).set((at.0, at.1, id));
        self.names.push(name);
    }
}

thread_local! {
    static KEYS: RefCell<KeyTable> = RefCell::default();
    /// A tape's two buffers, kept between records (their capacity, not
    /// their contents: each record clears them).
    static SCRATCH: RefCell<(Vec<f64>, String)> = RefCell::default();
}

/// A record's tape, being written.
struct Tape<'t> {
    ops: Vec<f64>,
    text: String,
    keys: &'t KeyTable,
    /// Keys interned by this tape, committed once the object is built.
    new_keys: Vec<(usize, Box<str>)>,
}

/// Why a value could not be written (a serializer's bug or a key that is
/// not text or a number, never the network's bytes).
#[derive(Debug)]
struct TapeError(String);

impl Display for TapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TapeError {}

impl ser::Error for TapeError {
    fn custom<T: Display>(msg: T) -> Self {
        Self(msg.to_string())
    }
}

/// `s`'s length as JavaScript counts it.
fn utf16_len(s: &str) -> f64 {
    let n = if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    };
    n as f64
}

/// The record `value` as a JavaScript object.
///
/// # Errors
///
/// `invalid_input` when `value` does not serialize (a map key that is not
/// text or a number); never for the library's records.
pub fn to_object<T: Serialize + ?Sized>(value: &T) -> JsResult<JsValue> {
    let (mut ops, mut text) = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    ops.clear();
    text.clear();
    KEYS.with(|table| {
        let keys = table.borrow();
        let mut tape = Tape {
            ops,
            text,
            keys: &keys,
            new_keys: Vec::new(),
        };
        value
            .serialize(&mut tape)
            .map_err(|e| invalid_input(format!("a record that cannot be built: {e}")))?;
        let object = build_record(&tape.ops, &tape.text)?;
        let Tape {
            ops,
            text,
            new_keys,
            ..
        } = tape;
        drop(keys);
        let mut keys = table.borrow_mut();
        for (address, name) in new_keys {
            keys.insert(address, name);
        }
        SCRATCH.with(|s| *s.borrow_mut() = (ops, text));
        Ok(object)
    })
}

/// A batch's results as one array, in order: each success as `object`
/// makes it (its record, through [`to_object`]), each failure as `error`
/// makes it.
///
/// # Errors
///
/// What `object` returns.
pub fn results<T, E>(
    results: &[Result<T, E>],
    object: impl Fn(&T) -> JsResult<JsValue>,
    error: impl Fn(&E) -> JsValue,
) -> JsResult<js_sys::Array> {
    let out = js_sys::Array::new_with_length(results.len() as u32);
    for (i, r) in results.iter().enumerate() {
        let v = match r {
            Ok(d) => object(d)?,
            Err(e) => error(e),
        };
        out.set(i as u32, v);
    }
    Ok(out)
}

impl Tape<'_> {
    fn string(&mut self, s: &str) {
        self.ops.extend([op::STRING, utf16_len(s)]);
        self.text.push_str(s);
    }

    fn number(&mut self, v: f64) {
        if v.is_finite() {
            self.ops.extend([op::NUMBER, v]);
        } else {
            self.ops.push(op::NULL);
        }
    }

    /// Opens `{variant: ...}` and, inside it, `opens` (an array or an
    /// object) for the variant's data.
    fn open_variant(&mut self, variant: &str, opens: f64) {
        self.ops.push(op::OBJECT);
        self.key(variant);
        self.ops.push(opens);
    }

    fn key(&mut self, k: &str) {
        if let Some(id) = self.keys.find(k) {
            self.ops.extend([op::KEY, f64::from(id)]);
            return;
        }
        let base = self.keys.names.len();
        if let Some(i) = self.new_keys.iter().position(|(_, n)| **n == *k) {
            self.ops.extend([op::KEY, (base + i) as f64]);
        } else if base + self.new_keys.len() < MAX_KEYS {
            let id = base + self.new_keys.len();
            self.ops.extend([op::NEW_KEY, id as f64, utf16_len(k)]);
            self.new_keys.push((k.as_ptr() as usize, k.into()));
        } else {
            self.ops.extend([op::TEXT_KEY, utf16_len(k)]);
        }
        self.text.push_str(k);
    }
}

/// Integer methods: the nearest double, as `JSON.parse` reads the decimal
/// `serde_json` writes.
macro_rules! integers {
    ($($method:ident: $t:ty),*) => {
        $(fn $method(self, v: $t) -> Result<(), TapeError> {
            self.number(v as f64);
            Ok(())
        })*
    };
}

/// Serializes a value into the tape: every `serialize_*` writes one value.
impl ser::Serializer for &mut Tape<'_> {
    type Ok = ();
    type Error = TapeError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Result<(), TapeError> {
        self.ops.push(if v { op::TRUE } else { op::FALSE });
        Ok(())
    }
    integers!(
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64
    );
    /// The shortest decimal that `serde_json` writes, which JavaScript
    /// reads as `JSON.parse` does (not the `f32`'s exact value: `0.1f32`
    /// is read as 0.1).
    fn serialize_f32(self, v: f32) -> Result<(), TapeError> {
        if !v.is_finite() {
            self.ops.push(op::NULL);
            return Ok(());
        }
        let mut digits = zmij::Buffer::new();
        let text = digits.format_finite(v);
        self.ops.extend([op::DECIMAL, text.len() as f64]);
        self.text.push_str(text);
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), TapeError> {
        self.number(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), TapeError> {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), TapeError> {
        self.string(v);
        Ok(())
    }
    /// Written straight into the tape's text (no `String` of its own).
    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<(), TapeError> {
        let start = self.text.len();
        write!(self.text, "{value}").map_err(ser::Error::custom)?;
        let len = utf16_len(&self.text[start..]);
        self.ops.extend([op::STRING, len]);
        Ok(())
    }
    /// An array of numbers, as `serde_json` writes bytes.
    fn serialize_bytes(self, v: &[u8]) -> Result<(), TapeError> {
        self.ops.push(op::ARRAY);
        for b in v {
            self.ops.extend([op::NUMBER, f64::from(*b)]);
        }
        self.ops.push(op::END);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), TapeError> {
        self.ops.push(op::NULL);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), TapeError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), TapeError> {
        self.ops.push(op::NULL);
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), TapeError> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), TapeError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), TapeError> {
        value.serialize(self)
    }
    /// `{variant: value}`.
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), TapeError> {
        self.ops.push(op::OBJECT);
        self.key(variant);
        value.serialize(&mut *self)?;
        self.ops.push(op::END);
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self, TapeError> {
        self.ops.push(op::ARRAY);
        Ok(self)
    }
    fn serialize_tuple(self, len: usize) -> Result<Self, TapeError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Self, TapeError> {
        self.serialize_seq(Some(len))
    }
    /// `{variant: [fields]}`.
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self, TapeError> {
        self.open_variant(variant, op::ARRAY);
        Ok(self)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self, TapeError> {
        self.ops.push(op::OBJECT);
        Ok(self)
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Self, TapeError> {
        self.serialize_map(Some(len))
    }
    /// `{variant: {fields}}`.
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self, TapeError> {
        self.open_variant(variant, op::OBJECT);
        Ok(self)
    }
}

/// A compound's items, each one value; `end` closes what the compound
/// opened (an array, or an array or object inside a variant's object).
macro_rules! compound {
    ($($trait:ident::$method:ident, closes $closes:expr;)*) => {
        $(impl ser::$trait for &mut Tape<'_> {
            type Ok = ();
            type Error = TapeError;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TapeError> {
                value.serialize(&mut **self)
            }
            fn end(self) -> Result<(), TapeError> {
                self.ops.extend_from_slice($closes);
                Ok(())
            }
        })*
    };
}

/// A struct's fields, each a key and a value; `end` as for [`compound`].
macro_rules! fields {
    ($($trait:ident, closes $closes:expr;)*) => {
        $(impl ser::$trait for &mut Tape<'_> {
            type Ok = ();
            type Error = TapeError;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), TapeError> {
                self.key(key);
                value.serialize(&mut **self)
            }
            fn end(self) -> Result<(), TapeError> {
                self.ops.extend_from_slice($closes);
                Ok(())
            }
        })*
    };
}

compound! {
    SerializeSeq::serialize_element, closes &[op::END];
    SerializeTuple::serialize_element, closes &[op::END];
    SerializeTupleStruct::serialize_field, closes &[op::END];
    SerializeTupleVariant::serialize_field, closes &[op::END, op::END];
}

fields! {
    SerializeStruct, closes &[op::END];
    SerializeStructVariant, closes &[op::END, op::END];
}

impl ser::SerializeMap for &mut Tape<'_> {
    type Ok = ();
    type Error = TapeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), TapeError> {
        key.serialize(KeyWriter(self))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TapeError> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), TapeError> {
        self.ops.push(op::END);
        Ok(())
    }
}

/// A map key: text, or a number or `bool` written as its decimal text (as
/// `serde_json` writes keys); anything else is an error.
struct KeyWriter<'a, 't>(&'a mut Tape<'t>);

impl KeyWriter<'_, '_> {
    fn text(self, k: &str) -> Result<(), TapeError> {
        self.0.key(k);
        Ok(())
    }
}

/// Not text, a number or `bool`: no JSON key.
fn key_must_be_text() -> TapeError {
    TapeError("a map key must be text or a number".into())
}

/// Key methods that write a number as its decimal text.
macro_rules! decimal_keys {
    ($($method:ident: $t:ty),*) => {
        $(fn $method(self, v: $t) -> Result<(), TapeError> {
            self.text(&v.to_string())
        })*
    };
}

/// Key methods for values that make no JSON key.
macro_rules! refused_keys {
    ($($method:ident($($arg:ty),*) -> $out:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$out, TapeError> {
            Err(key_must_be_text())
        })*
    };
}

impl ser::Serializer for KeyWriter<'_, '_> {
    type Ok = ();
    type Error = TapeError;
    type SerializeSeq = ser::Impossible<(), TapeError>;
    type SerializeTuple = ser::Impossible<(), TapeError>;
    type SerializeTupleStruct = ser::Impossible<(), TapeError>;
    type SerializeTupleVariant = ser::Impossible<(), TapeError>;
    type SerializeMap = ser::Impossible<(), TapeError>;
    type SerializeStruct = ser::Impossible<(), TapeError>;
    type SerializeStructVariant = ser::Impossible<(), TapeError>;

    fn serialize_str(self, v: &str) -> Result<(), TapeError> {
        self.text(v)
    }
    fn serialize_char(self, v: char) -> Result<(), TapeError> {
        self.text(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_bool(self, v: bool) -> Result<(), TapeError> {
        self.text(if v { "true" } else { "false" })
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), TapeError> {
        self.text(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), TapeError> {
        value.serialize(self)
    }
    decimal_keys!(
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64
    );
    refused_keys! {
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), TapeError> {
        Err(key_must_be_text())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), TapeError> {
        Err(key_must_be_text())
    }
}
