//! A decoded packet as the dict Python gets: the same keys, in the same
//! order, for every packet. Each dict starts as a copy of one holding every
//! key (made once, with the keys as interned strings: no key is made,
//! hashed or inserted again, and the dict never grows), and the names the
//! library gives its outcomes are Python strings made once each, as are
//! the channel and gateway ids a feed repeats; a key whose value is `None`
//! is not set at all (the template holds `None`).

use pyo3::prelude::*;
use pyo3::sync::{GILOnceCell, GILProtected};
use pyo3::types::{PyBytes, PyDict, PyString};
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use wireseal::meshtastic::app::PacketKind;
use wireseal::meshtastic::decoder::{Decoded, Decryption};

macro_rules! record_keys {
    ($($field:ident = $name:literal),* $(,)?) => {
        /// The record's keys, as Python strings.
        struct Keys {
            $($field: Py<PyString>,)*
            /// A dict holding every key with `None`, in order.
            template: Py<PyDict>,
        }

        impl Keys {
            fn new(py: Python<'_>) -> PyResult<Self> {
                let template = PyDict::new(py);
                $(
                    let $field = PyString::intern(py, $name);
                    template.set_item(&$field, py.None())?;
                )*
                Ok(Self {
                    $($field: $field.unbind(),)*
                    template: template.unbind(),
                })
            }
        }
    };
}

record_keys! {
    from = "from_",
    to = "to",
    id = "id",
    channel_id = "channel_id",
    gateway_id = "gateway_id",
    channel_hash = "channel_hash",
    rx_time = "rx_time",
    rx_snr = "rx_snr",
    rx_rssi = "rx_rssi",
    hop_limit = "hop_limit",
    hop_start = "hop_start",
    relay_node = "relay_node",
    claimed_signed = "claimed_signed",
    portnum = "portnum",
    payload = "payload",
    text = "text",
    kind = "kind",
    decryption = "decryption",
    channel = "channel",
    our_node = "our_node",
    signature = "signature",
    policy = "policy",
    policy_reason = "policy_reason",
    identity = "identity",
    control = "control",
    key_event = "key_event",
    error = "error",
}

static KEYS: GILOnceCell<Keys> = GILOnceCell::new();

/// The names made so far, by the address and length of the library's
/// `&'static str` (the library returns the same literal for the same name;
/// two literals at one address with one length hold the same text).
type Names = HashMap<(usize, usize), Py<PyString>, BuildHasherDefault<AddressHasher>>;
static NAMES: GILProtected<RefCell<Names>> = GILProtected::new(RefCell::new(HashMap::with_hasher(
    BuildHasherDefault::new(),
)));

/// Hashes the addresses of the library's names: a few dozen keys, all the
/// library's own, so a multiply and a rotate do.
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(23) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// One of the library's names (`as_str()` of an outcome) as a Python
/// string, made the first time it is asked for.
fn name<'py>(py: Python<'py>, s: &'static str) -> Bound<'py, PyString> {
    let key = (s.as_ptr() as usize, s.len());
    let mut names = NAMES.get(py).borrow_mut();
    names
        .entry(key)
        .or_insert_with(|| PyString::intern(py, s).unbind())
        .bind(py)
        .clone()
}

/// The Python strings of the ids seen lately (channel and gateway ids
/// repeat from packet to packet of a feed), at most [`IDS_KEPT`]; all
/// dropped when it is full, so what a feed sends never grows it further.
static IDS: GILProtected<RefCell<Option<Ids>>> = GILProtected::new(RefCell::new(None));

/// The ids' Python strings, by their text.
type Ids = HashMap<Box<str>, Py<PyString>>;

/// Most ids [`IDS`] keeps.
const IDS_KEPT: usize = 1024;

/// `s` (a channel or gateway id) as a Python string, the one made for the
/// same text before when it is still kept.
fn id<'py>(py: Python<'py>, s: &str) -> Bound<'py, PyString> {
    let mut ids = IDS.get(py).borrow_mut();
    let ids = ids.get_or_insert_with(HashMap::new);
    if let Some(p) = ids.get(s) {
        return p.bind(py).clone();
    }
    if ids.len() >= IDS_KEPT {
        ids.clear();
    }
    let p = PyString::new(py, s);
    ids.insert(s.into(), p.clone().unbind());
    p
}

/// `d` as the dict `decode` returns; `channel_name` gives the name of the
/// decoder's channel of an index. The keys whose value is `None` keep the
/// template's.
pub(super) fn record<'py, 'n>(
    py: Python<'py>,
    channel_name: impl Fn(usize) -> Option<&'n str>,
    d: &Decoded,
) -> PyResult<Bound<'py, PyDict>> {
    let k = KEYS.get_or_try_init(py, || Keys::new(py))?;
    let out = k.template.bind(py).copy()?;
    let set = |key: &Py<PyString>, value: Bound<'py, PyAny>| out.set_item(key.bind(py), value);
    let set_name = |key: &Py<PyString>, s: Option<&'static str>| match s {
        Some(s) => set(key, name(py, s).into_any()),
        None => Ok(()),
    };
    set(&k.from, d.from.into_pyobject(py)?.into_any())?;
    set(&k.to, d.to.into_pyobject(py)?.into_any())?;
    set(&k.id, d.id.into_pyobject(py)?.into_any())?;
    set(&k.channel_id, id(py, &d.channel_id).into_any())?;
    set(&k.gateway_id, id(py, &d.gateway_id).into_any())?;
    set(
        &k.channel_hash,
        d.channel_hash.into_pyobject(py)?.into_any(),
    )?;
    let r = &d.reception;
    set(&k.rx_time, r.rx_time.into_pyobject(py)?.into_any())?;
    set(&k.rx_snr, r.rx_snr().into_pyobject(py)?.into_any())?;
    set(&k.rx_rssi, r.rx_rssi.into_pyobject(py)?.into_any())?;
    set(&k.hop_limit, r.hop_limit.into_pyobject(py)?.into_any())?;
    set(&k.hop_start, r.hop_start.into_pyobject(py)?.into_any())?;
    set(&k.relay_node, r.relay_node.into_pyobject(py)?.into_any())?;
    set(
        &k.claimed_signed,
        r.claimed_signed.into_pyobject(py)?.to_owned().into_any(),
    )?;
    if let Some(portnum) = d.portnum() {
        set(&k.portnum, portnum.into_pyobject(py)?.into_any())?;
    }
    if let Some(payload) = d.payload() {
        set(&k.payload, PyBytes::new(py, payload).into_any())?;
    }
    if let Some(text) = d.text() {
        set(&k.text, PyString::new(py, text).into_any())?;
    }
    set_name(&k.kind, Some(PacketKind::of(d.portnum()).as_str()))?;
    set_name(&k.decryption, Some(d.decryption.as_str()))?;
    if let Some(channel) = match d.decryption {
        Decryption::Channel(i) => channel_name(i),
        _ => None,
    } {
        set(&k.channel, PyString::new(py, channel).into_any())?;
    }
    if let Some(node) = d.our_node {
        set(&k.our_node, node.into_pyobject(py)?.into_any())?;
    }
    set_name(&k.signature, Some(d.signature.as_str()))?;
    set_name(&k.policy, d.verdict.map(|v| v.as_str()))?;
    let reason = d.verdict.and_then(|v| v.concern()).map(|c| c.as_str());
    set_name(&k.policy_reason, reason)?;
    set_name(&k.identity, d.identity.map(|i| i.as_str()))?;
    set_name(&k.control, d.control().map(|c| c.as_str()))?;
    set_name(&k.key_event, d.key_event.map(|e| e.as_str()))?;
    set_name(&k.error, d.error.as_ref().map(|e| e.as_str()))?;
    Ok(out)
}
