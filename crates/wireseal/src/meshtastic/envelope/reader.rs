//! A direct reader for the messages on every envelope's path
//! (`ServiceEnvelope`, `MeshPacket`, `Data`, and the `User` of a NodeInfo,
//! which it can also lend without copying): each `bytes` and `string`
//! field is copied once, straight from the input into the message, where
//! `prost`'s generated code copies a `bytes` field twice (through a `Bytes`
//! buffer that it then frees).
//!
//! It reads only the plain form of a message: every field it models at
//! most once and with its own wire type, every other field skipped as
//! `prost` skips it (groups excepted). On anything else (a field repeated,
//! a wrong wire type, a group, a malformed key, varint or length, a string
//! that is not UTF-8) it answers [`Unusual`] and the caller decodes with
//! `prost`, whose answer then stands. So it accepts nothing that `prost`
//! refuses, and what it accepts it reads exactly as `prost` does: the
//! tests below and the `meshtastic_envelope` fuzz target compare the two.

use super::messages::{Data, MeshPacket, PayloadVariant, ServiceEnvelope, User};
#[allow(unused_imports)]
use crate::prelude::*;

/// The input is not in the plain form this reader handles: decode it with
/// `prost`.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Unusual;

/// One field's value, by wire type.
#[derive(Clone, Copy)]
enum Value<'a> {
    Varint(u64),
    Fixed64,
    Fixed32(u32),
    Bytes(&'a [u8]),
}

impl<'a> Value<'a> {
    fn varint(self) -> Result<u64, Unusual> {
        match self {
            Value::Varint(v) => Ok(v),
            _ => Err(Unusual),
        }
    }

    fn fixed32(self) -> Result<u32, Unusual> {
        match self {
            Value::Fixed32(v) => Ok(v),
            _ => Err(Unusual),
        }
    }

    fn bytes(self) -> Result<&'a [u8], Unusual> {
        match self {
            Value::Bytes(b) => Ok(b),
            _ => Err(Unusual),
        }
    }

    /// A `string` field: UTF-8, as `prost` requires.
    fn string(self) -> Result<&'a str, Unusual> {
        core::str::from_utf8(self.bytes()?).map_err(|_| Unusual)
    }

    /// An `int32` (or enum) field: the varint's low 32 bits, as `prost`
    /// reads it.
    fn int32(self) -> Result<i32, Unusual> {
        Ok(self.varint()? as i32)
    }

    /// A `uint32` field: the varint's low 32 bits.
    fn uint32(self) -> Result<u32, Unusual> {
        Ok(self.varint()? as u32)
    }

    fn bool(self) -> Result<bool, Unusual> {
        Ok(self.varint()? != 0)
    }
}

/// The rest of one message's bytes.
struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    /// A base-128 varint of at most ten bytes whose value fits in 64 bits
    /// (a tenth byte of 0 or 1), the ones `prost` reads.
    fn varint(&mut self) -> Result<u64, Unusual> {
        let mut value = 0u64;
        for (i, &b) in self.rest.iter().enumerate().take(10) {
            if i == 9 && b > 1 {
                return Err(Unusual);
            }
            value |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                self.rest = &self.rest[i + 1..];
                return Ok(value);
            }
        }
        Err(Unusual)
    }

    fn take(&mut self, n: u64) -> Result<&'a [u8], Unusual> {
        let n = usize::try_from(n).map_err(|_| Unusual)?;
        if n > self.rest.len() {
            return Err(Unusual);
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    /// The next field's tag and value; `None` at the end.
    fn next(&mut self) -> Result<Option<(u32, Value<'a>)>, Unusual> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        let key = u32::try_from(self.varint()?).map_err(|_| Unusual)?;
        let tag = key >> 3;
        if tag == 0 {
            return Err(Unusual);
        }
        let value = match key & 7 {
            0 => Value::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Value::Fixed64
            }
            2 => {
                let n = self.varint()?;
                Value::Bytes(self.take(n)?)
            }
            5 => {
                let b = self.take(4)?;
                Value::Fixed32(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            // Groups (3, 4) and the wire types that do not exist (6, 7).
            _ => return Err(Unusual),
        };
        Ok(Some((tag, value)))
    }
}

/// The bit set of a message's field numbers (all below 64).
const fn tags(list: &[u32]) -> u64 {
    let mut set = 0u64;
    let mut i = 0;
    while i < list.len() {
        set |= 1 << list[i];
        i += 1;
    }
    set
}

/// Reads one message: `field` is called once for each field numbered in
/// `modelled`, in order; every other field is skipped. A modelled field
/// seen twice is [`Unusual`] (`prost` would merge or replace it).
fn read<'a>(
    bytes: &'a [u8],
    modelled: u64,
    mut field: impl FnMut(u32, Value<'a>) -> Result<(), Unusual>,
) -> Result<(), Unusual> {
    let mut fields = Fields { rest: bytes };
    let mut seen = 0u64;
    while let Some((tag, value)) = fields.next()? {
        let bit = 1u64.checked_shl(tag).unwrap_or(0);
        if modelled & bit == 0 {
            continue;
        }
        if seen & bit != 0 {
            return Err(Unusual);
        }
        seen |= bit;
        field(tag, value)?;
    }
    Ok(())
}

/// A `ServiceEnvelope`.
pub(super) fn envelope(bytes: &[u8]) -> Result<ServiceEnvelope, Unusual> {
    let e = envelope_in_place(bytes)?;
    let mut packet = e.packet;
    if let (Some(p), Some(ct)) = (&mut packet, e.encrypted) {
        p.payload_variant = Some(PayloadVariant::Encrypted(ct.to_vec()));
    }
    Ok(ServiceEnvelope {
        packet,
        channel_id: e.channel_id.into(),
        gateway_id: e.gateway_id.into(),
    })
}

/// A `ServiceEnvelope` read in place: its ids and its packet's ciphertext,
/// if it has one, borrowed from the envelope's bytes.
#[derive(Debug, Default)]
pub(super) struct InPlace<'a> {
    /// The packet; its `payload_variant` is `None` when `encrypted` holds
    /// its ciphertext.
    pub packet: Option<MeshPacket>,
    /// `ServiceEnvelope.channel_id`.
    pub channel_id: &'a str,
    /// `ServiceEnvelope.gateway_id`.
    pub gateway_id: &'a str,
    /// The packet's ciphertext.
    pub encrypted: Option<&'a [u8]>,
}

/// A `ServiceEnvelope` whose ids and ciphertext stay in `bytes`.
pub(super) fn envelope_in_place(bytes: &[u8]) -> Result<InPlace<'_>, Unusual> {
    let mut env = InPlace::default();
    read(bytes, tags(&[1, 2, 3]), |tag, v| {
        match tag {
            1 => {
                let (p, ct) = packet_in_place(v.bytes()?)?;
                env.packet = Some(p);
                env.encrypted = ct;
            }
            2 => env.channel_id = v.string()?,
            _ => env.gateway_id = v.string()?,
        }
        Ok(())
    })?;
    Ok(env)
}

/// The field numbers of [`MeshPacket`].
const PACKET: u64 = tags(&[
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 15, 16, 17, 18, 19, 21, 22,
]);

/// A `MeshPacket`.
pub(super) fn packet(bytes: &[u8]) -> Result<MeshPacket, Unusual> {
    let (mut p, encrypted) = packet_in_place(bytes)?;
    if let Some(ct) = encrypted {
        p.payload_variant = Some(PayloadVariant::Encrypted(ct.to_vec()));
    }
    Ok(p)
}

/// A `MeshPacket` whose ciphertext, if it has one, is left in `bytes` (its
/// `payload_variant` then `None`).
fn packet_in_place(bytes: &[u8]) -> Result<(MeshPacket, Option<&[u8]>), Unusual> {
    let mut p = MeshPacket::default();
    let mut encrypted = None;
    read(bytes, PACKET, |tag, v| {
        match tag {
            1 => p.from = v.fixed32()?,
            2 => p.to = v.fixed32()?,
            3 => p.channel = v.uint32()?,
            4 | 5 => {
                // One of the two, once (`prost` merges a second).
                if p.payload_variant.is_some() || encrypted.is_some() {
                    return Err(Unusual);
                }
                if tag == 4 {
                    p.payload_variant = Some(PayloadVariant::Decoded(data(v.bytes()?)?));
                } else {
                    encrypted = Some(v.bytes()?);
                }
            }
            6 => p.id = v.fixed32()?,
            7 => p.rx_time = v.fixed32()?,
            8 => p.rx_snr_bits = v.fixed32()?,
            9 => p.hop_limit = v.uint32()?,
            10 => p.want_ack = v.bool()?,
            12 => p.rx_rssi = v.int32()?,
            14 => p.via_mqtt = v.bool()?,
            15 => p.hop_start = v.uint32()?,
            16 => p.public_key = v.bytes()?.to_vec(),
            17 => p.pki_encrypted = v.bool()?,
            18 => p.next_hop = v.uint32()?,
            19 => p.relay_node = v.uint32()?,
            21 => p.transport_mechanism = v.int32()?,
            _ => p.xeddsa_signed = v.bool()?,
        }
        Ok(())
    })?;
    Ok((p, encrypted))
}

/// A `Data`.
pub(super) fn data(bytes: &[u8]) -> Result<Data, Unusual> {
    let mut d = Data::default();
    read(bytes, tags(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), |tag, v| {
        match tag {
            1 => d.portnum = v.int32()?,
            2 => d.payload = v.bytes()?.to_vec(),
            3 => d.want_response = v.bool()?,
            4 => d.dest = v.fixed32()?,
            5 => d.source = v.fixed32()?,
            6 => d.request_id = v.fixed32()?,
            7 => d.reply_id = v.fixed32()?,
            8 => d.emoji = v.fixed32()?,
            9 => d.bitfield = Some(v.uint32()?),
            _ => d.xeddsa_signature = v.bytes()?.to_vec(),
        }
        Ok(())
    })?;
    Ok(d)
}

/// A `User`'s fields, borrowed from the input.
pub(super) struct UserFields<'a> {
    id: &'a str,
    long_name: &'a str,
    short_name: &'a str,
    hw_model: i32,
    is_licensed: bool,
    role: i32,
    /// Empty when absent.
    pub(super) public_key: &'a [u8],
}

impl UserFields<'_> {
    /// The `User`, its fields copied.
    pub(super) fn to_user(&self) -> User {
        User {
            id: self.id.into(),
            long_name: self.long_name.into(),
            short_name: self.short_name.into(),
            hw_model: self.hw_model,
            is_licensed: self.is_licensed,
            role: self.role,
            public_key: self.public_key.to_vec(),
        }
    }
}

/// A `User`, borrowed.
pub(super) fn user(bytes: &[u8]) -> Result<UserFields<'_>, Unusual> {
    let mut u = UserFields {
        id: "",
        long_name: "",
        short_name: "",
        hw_model: 0,
        is_licensed: false,
        role: 0,
        public_key: &[],
    };
    read(bytes, tags(&[1, 2, 3, 5, 6, 7, 8]), |tag, v| {
        match tag {
            1 => u.id = v.string()?,
            2 => u.long_name = v.string()?,
            3 => u.short_name = v.string()?,
            5 => u.hw_model = v.int32()?,
            6 => u.is_licensed = v.bool()?,
            7 => u.role = v.int32()?,
            _ => u.public_key = v.bytes()?,
        }
        Ok(())
    })?;
    Ok(u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// The four messages the reader reads.
    #[derive(Clone, Copy)]
    enum Kind {
        Envelope,
        Packet,
        Data,
        User,
    }

    /// Each modelled field's number and wire type (the schema the
    /// generator writes to).
    fn schema(kind: Kind) -> &'static [(u32, u8)] {
        match kind {
            Kind::Envelope => &[(1, 2), (2, 2), (3, 2)],
            Kind::Packet => &[
                (1, 5),
                (2, 5),
                (3, 0),
                (4, 2),
                (5, 2),
                (6, 5),
                (7, 5),
                (8, 5),
                (9, 0),
                (10, 0),
                (12, 0),
                (14, 0),
                (15, 0),
                (16, 2),
                (17, 0),
                (18, 0),
                (19, 0),
                (21, 0),
                (22, 0),
            ],
            Kind::Data => &[
                (1, 0),
                (2, 2),
                (3, 0),
                (4, 5),
                (5, 5),
                (6, 5),
                (7, 5),
                (8, 5),
                (9, 0),
                (10, 2),
            ],
            Kind::User => &[(1, 2), (2, 2), (3, 2), (5, 0), (6, 0), (7, 0), (8, 2)],
        }
    }

    /// A seeded generator, and the two draws the generator makes most.
    trait Draw {
        fn below(&mut self, n: u64) -> u64;
        fn chance(&mut self, percent: u32) -> bool;
    }

    impl Draw for StdRng {
        fn below(&mut self, n: u64) -> u64 {
            self.gen_range(0..n)
        }

        fn chance(&mut self, percent: u32) -> bool {
            self.gen_ratio(percent, 100)
        }
    }

    fn varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    /// A varint value: small, 32-bit, negative `int32`, or any 64 bits.
    fn number(rng: &mut StdRng) -> u64 {
        match rng.below(5) {
            0 => rng.below(3),
            1 => rng.below(200),
            2 => rng.gen::<u64>() & 0xffff_ffff,
            3 => -(rng.below(1000) as i64) as u64,
            _ => rng.gen::<u64>(),
        }
    }

    /// Length-delimited contents for field `tag` of `kind`.
    fn contents(rng: &mut StdRng, kind: Kind, tag: u32, depth: u32) -> Vec<u8> {
        let nested = match (kind, tag) {
            (Kind::Envelope, 1) => Some(Kind::Packet),
            (Kind::Packet, 4) => Some(Kind::Data),
            _ if depth < 2 && rng.chance(10) => Some(Kind::User),
            _ => None,
        };
        match nested {
            Some(k) if depth < 3 && !rng.chance(5) => message(rng, k, depth + 1),
            _ => {
                let n = [0, 1, 4, 32, 64, 200][rng.below(6) as usize];
                let mut b: Vec<u8> = (0..n).map(|_| b'a' + rng.below(26) as u8).collect();
                if n > 0 && rng.chance(15) {
                    b[rng.below(n as u64) as usize] = 0xff; // not UTF-8
                }
                b
            }
        }
    }

    /// One field: a modelled one with its own wire type mostly, sometimes
    /// with another, and unknown fields (groups among them).
    fn field(rng: &mut StdRng, kind: Kind, out: &mut Vec<u8>, depth: u32) {
        let modelled = schema(kind);
        let (tag, wire) = match rng.below(10) {
            0..=6 => modelled[rng.below(modelled.len() as u64) as usize],
            7 => {
                let (tag, _) = modelled[rng.below(modelled.len() as u64) as usize];
                (tag, rng.below(8) as u8)
            }
            _ => {
                let tags = [11, 13, 20, 23, 30, 63, 64, 1000, 536_870_911];
                (
                    tags[rng.below(tags.len() as u64) as usize],
                    rng.below(6) as u8,
                )
            }
        };
        varint(out, u64::from(tag) << 3 | u64::from(wire));
        match wire {
            0 => varint(out, number(rng)),
            1 => out.extend(rng.gen::<u64>().to_le_bytes()),
            2 => {
                let body = contents(rng, kind, tag, depth);
                varint(out, body.len() as u64);
                out.extend(body);
            }
            // A group, mostly closed.
            3 if rng.chance(80) => {
                varint(out, 8 << 3);
                varint(out, number(rng));
                varint(out, u64::from(tag) << 3 | 4);
            }
            5 => out.extend((rng.gen::<u64>() as u32).to_le_bytes()),
            _ => {}
        }
    }

    fn message(rng: &mut StdRng, kind: Kind, depth: u32) -> Vec<u8> {
        let mut out = Vec::new();
        for _ in 0..rng.below(12) {
            field(rng, kind, &mut out, depth);
        }
        out
    }

    /// A byte changed, a range cut or repeated, or the end cut off.
    fn mutate(rng: &mut StdRng, mut b: Vec<u8>) -> Vec<u8> {
        if b.is_empty() {
            return b;
        }
        let i = rng.below(b.len() as u64) as usize;
        match rng.below(4) {
            0 => b[i] = rng.gen::<u64>() as u8,
            1 => {
                let j = (i + 1 + rng.below(8) as usize).min(b.len());
                b.drain(i..j);
            }
            2 => {
                let j = (i + 1 + rng.below(16) as usize).min(b.len());
                let copy = b[i..j].to_vec();
                b.splice(i..i, copy);
            }
            _ => b.truncate(i),
        }
        b
    }

    /// Runs `check` on `n` generated `kind` messages (a third of them
    /// mutated); returns how many the reader read.
    fn differential(kind: Kind, seed: u64, n: usize, check: impl Fn(&[u8]) -> bool) -> usize {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..n)
            .filter(|_| {
                let mut b = message(&mut rng, kind, 0);
                if rng.chance(33) {
                    b = mutate(&mut rng, b);
                }
                check(&b)
            })
            .count()
    }

    /// What the reader reads, `prost` reads the same; returns whether the
    /// reader read it.
    fn same<M: Message + Default + PartialEq + core::fmt::Debug>(
        bytes: &[u8],
        ours: Result<M, Unusual>,
    ) -> bool {
        match ours {
            Ok(m) => {
                assert_eq!(M::decode(bytes).as_ref(), Ok(&m), "{}", hex::encode(bytes));
                true
            }
            Err(Unusual) => false,
        }
    }

    const N: usize = 40_000;

    #[test]
    fn envelopes_read_as_prost_reads_them() {
        let read = differential(Kind::Envelope, 1, N, |b| same(b, envelope(b)));
        assert!(read > N / 10, "only {read} of {N} read");
    }

    #[test]
    fn packets_read_as_prost_reads_them() {
        let read = differential(Kind::Packet, 2, N, |b| same(b, packet(b)));
        assert!(read > N / 20, "only {read} of {N} read");
    }

    #[test]
    fn data_read_as_prost_reads_it() {
        let read = differential(Kind::Data, 3, N, |b| same(b, data(b)));
        assert!(read > N / 10, "only {read} of {N} read");
    }

    #[test]
    fn users_read_as_prost_reads_them() {
        let read = differential(Kind::User, 4, N, |b| same(b, user(b).map(|u| u.to_user())));
        assert!(read > N / 10, "only {read} of {N} read");
    }

    /// What gateways publish, every field set, is read without `prost`.
    #[test]
    fn plain_envelopes_take_the_direct_path() {
        let data = Data {
            portnum: -3,
            payload: b"hi".to_vec(),
            want_response: true,
            dest: 1,
            source: 2,
            request_id: 3,
            reply_id: 4,
            emoji: 5,
            bitfield: Some(0),
            xeddsa_signature: vec![9; 64],
        };
        let mut packet = MeshPacket {
            from: 0x929,
            to: u32::MAX,
            channel: 8,
            payload_variant: Some(PayloadVariant::Decoded(data.clone())),
            id: 7,
            rx_time: 1_700_000_000,
            rx_snr_bits: (-7.25f32).to_bits(),
            hop_limit: 3,
            want_ack: true,
            rx_rssi: -120,
            via_mqtt: true,
            hop_start: 7,
            public_key: vec![4; 32],
            pki_encrypted: true,
            next_hop: 0x12,
            relay_node: 0x34,
            transport_mechanism: 5,
            xeddsa_signed: true,
        };
        for payload in [
            PayloadVariant::Decoded(data.clone()),
            PayloadVariant::Encrypted(vec![1; 200]),
        ] {
            packet.payload_variant = Some(payload);
            let env = ServiceEnvelope {
                packet: Some(packet.clone()),
                channel_id: "LongFast".into(),
                gateway_id: "!00000929".into(),
            };
            assert_eq!(envelope(&env.encode_to_vec()), Ok(env));
            assert_eq!(super::packet(&packet.encode_to_vec()), Ok(packet.clone()));
        }
        assert_eq!(super::data(&data.encode_to_vec()), Ok(data));
        let user = User {
            id: "!00000929".into(),
            long_name: "Node ü".into(),
            short_name: "N".into(),
            hw_model: 43,
            is_licensed: false,
            role: 2,
            public_key: vec![5; 32],
        };
        let bytes = user.encode_to_vec();
        assert_eq!(super::user(&bytes).map(|u| u.to_user()), Ok(user));
    }
}
