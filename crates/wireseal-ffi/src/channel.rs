//! Meshtastic channel packets and the over-the-air header.

use crate::memory::{bytes, bytes_mut, disjoint, opaque, put, Region};
use crate::status::first_error;
use crate::status::status;
use crate::WsStatus;
use wireseal::meshtastic::{ChannelKey, PacketHeader, HEADER_LEN};

/// 64-bit words after the magic word in a `ws_channel_key`.
pub const WS_CHANNEL_KEY_WORDS: usize = WS_CHANNEL_KEY_BYTES / 8 - 1;
/// Bytes of a `ws_channel_key` (the same on every target: the key is kept
/// as its bytes and expanded per packet).
pub const WS_CHANNEL_KEY_BYTES: usize = 48;
/// Bytes of the over-the-air header.
pub const WS_HEADER_LEN: usize = 16;

const _: () = assert!(WS_HEADER_LEN == HEADER_LEN);

/// An expanded channel key (AES-128 or AES-256 CTR, or none).
#[repr(C)]
pub struct WsChannelKey {
    pub(crate) magic: u64,
    pub(crate) body: [u64; WS_CHANNEL_KEY_WORDS],
}

opaque!(
    WsChannelKey,
    ChannelKey,
    WS_CHANNEL_KEY_BYTES,
    0x7773_6368_616e_6b79
);

/// Expands a channel PSK as the firmware does: 0 bytes or `{0}` no
/// encryption, 1 byte a default-key index, 16 or 32 bytes AES-128/256,
/// other lengths up to 32 padded with zeros.
///
/// # Errors
/// `NULL_POINTER`, `INVALID_KEY` (longer than 32 bytes).
///
/// # Safety
/// `key` points to a writable `ws_channel_key`; `psk` to `psk_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn ws_channel_key_init(
    key: *mut WsChannelKey,
    psk: *const u8,
    psk_len: usize,
) -> WsStatus {
    if key.is_null() {
        return WsStatus::NullPointer;
    }
    if let Err(e) = disjoint(&[Region::of(key)], &[Region(psk, psk_len)]) {
        return e;
    }
    // SAFETY: per the contract above.
    let psk = match unsafe { bytes(psk, psk_len) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    match ChannelKey::from_psk(psk) {
        Ok(k) => {
            // SAFETY: non-NULL, aligned, writable.
            unsafe { WsChannelKey::init(key, k) };
            WsStatus::Ok
        }
        Err(e) => e.into(),
    }
}

/// Wipes `key`. NULL is ignored.
///
/// # Safety
/// `key` is NULL or set up by `ws_channel_key_init` (or zeroed).
#[no_mangle]
pub unsafe extern "C" fn ws_channel_key_deinit(key: *mut WsChannelKey) {
    // SAFETY: forwarded contract.
    unsafe { WsChannelKey::deinit(key) };
}

/// Encrypts or decrypts (the same keystream) the `len`-byte channel
/// payload `buf` of packet (`from`, `id`) in place. Channel packets carry
/// no tag: nothing is verified.
///
/// # Errors
/// `NULL_POINTER`, `STATE`, `TOO_LONG` (above 240 bytes; `buf` unchanged).
///
/// # Safety
/// `key` as in `ws_channel_key_deinit`; `buf` points to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ws_channel_crypt(
    key: *const WsChannelKey,
    from: u32,
    id: u32,
    buf: *mut u8,
    len: usize,
) -> WsStatus {
    if let Err(e) = disjoint(&[Region(buf, len)], &[Region::of(key)]) {
        return e;
    }
    // SAFETY: per the contract above (the key is only read).
    match unsafe { (WsChannelKey::get_ref(key), bytes_mut(buf, len)) } {
        (Ok(k), Ok(b)) => status(k.open_in_place(from, id, b).map(|_| ())),
        (k, b) => first_error([k.err(), b.err(), None, None]),
    }
}

/// The 16-byte Meshtastic header, field by field.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WsHeader {
    /// Destination node number.
    pub to: u32,
    /// Sender node number.
    pub from: u32,
    /// Packet id.
    pub id: u32,
    /// Hops left (0-7).
    pub hop_limit: u8,
    /// Sender wants an acknowledgement.
    pub want_ack: bool,
    /// Came through an MQTT gateway.
    pub via_mqtt: bool,
    /// Hop limit the packet started with (0-7).
    pub hop_start: u8,
    /// Channel hash (0 for PKC direct messages).
    pub channel: u8,
    /// Next hop (last byte of its node number), 0 if unknown.
    pub next_hop: u8,
    /// Relaying node (last byte of its node number).
    pub relay_node: u8,
}

impl From<PacketHeader> for WsHeader {
    fn from(h: PacketHeader) -> Self {
        Self {
            to: h.to,
            from: h.from,
            id: h.id,
            hop_limit: h.hop_limit,
            want_ack: h.want_ack,
            via_mqtt: h.via_mqtt,
            hop_start: h.hop_start,
            channel: h.channel,
            next_hop: h.next_hop,
            relay_node: h.relay_node,
        }
    }
}

impl From<WsHeader> for PacketHeader {
    fn from(h: WsHeader) -> Self {
        Self {
            to: h.to,
            from: h.from,
            id: h.id,
            hop_limit: h.hop_limit,
            want_ack: h.want_ack,
            via_mqtt: h.via_mqtt,
            hop_start: h.hop_start,
            channel: h.channel,
            next_hop: h.next_hop,
            relay_node: h.relay_node,
        }
    }
}

/// Parses the header at the start of the `len`-byte `frame` into `out`;
/// the payload follows at byte `WS_HEADER_LEN`.
///
/// # Errors
/// `NULL_POINTER`, `TRUNCATED` (below 16 bytes), `TOO_LONG` (above 256).
///
/// # Safety
/// `frame` points to `len` bytes; `out` to a writable `ws_header`.
#[no_mangle]
pub unsafe extern "C" fn ws_header_parse(
    frame: *const u8,
    len: usize,
    out: *mut WsHeader,
) -> WsStatus {
    if out.is_null() {
        return WsStatus::NullPointer;
    }
    if let Err(e) = disjoint(&[Region::of(out)], &[Region(frame, len)]) {
        return e;
    }
    // SAFETY: per the contract above.
    let frame = match unsafe { bytes(frame, len) } {
        Ok(f) => f,
        Err(e) => return e,
    };
    match PacketHeader::parse(frame) {
        Ok((h, _)) => {
            // SAFETY: non-NULL, writable.
            unsafe { put(out, h.into()) };
            WsStatus::Ok
        }
        Err(e) => e.into(),
    }
}

/// Writes `header` as its 16 bytes to `out`.
///
/// # Errors
/// `NULL_POINTER`, `INVALID_INPUT` (a hop count above 7).
///
/// # Safety
/// `header` points to a `ws_header`; `out` to 16 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ws_header_write(header: *const WsHeader, out: *mut u8) -> WsStatus {
    if header.is_null() || out.is_null() {
        return WsStatus::NullPointer;
    }
    if let Err(e) = disjoint(&[Region(out, WS_HEADER_LEN)], &[Region::of(header)]) {
        return e;
    }
    // SAFETY: non-NULL; the caller vouches for a readable `ws_header`.
    let h = PacketHeader::from(unsafe { *header });
    match h.to_bytes() {
        Ok(b) => {
            // SAFETY: non-NULL; the caller vouches for 16 writable bytes.
            unsafe { out.cast::<[u8; WS_HEADER_LEN]>().write(b) };
            WsStatus::Ok
        }
        Err(e) => e.into(),
    }
}
