//! Differential: one BIP324 direction decoded by wireseal and by the `bip324`
//! crate (rust-bitcoin) from the same keys.
//!
//! Setup (once): two `bip324` crate handshakes with fixed secrets give its
//! initiator and responder sessions; wireseal derives the same keys on its
//! shared-secret path (`SessionKeys::derive` from the crate's own
//! ElligatorSwift encodings), and both sides get past the version packet.
//!
//! Each input picks a direction and a list of operations: seal a genuine or
//! decoy packet (both senders must produce identical bytes), seal a run of
//! empty packets (to cross the 224-packet rekey), flip a byte, append raw
//! bytes. Both receivers then decode the stream and must agree packet by
//! packet (type and contents) and on how it ends: waiting for the same total,
//! a tag failure at the same packet, or a length over Bitcoin Core's limit.
//! A stream nobody tampered with opens completely.
#![no_main]
use ::bip324 as peer;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use wireseal::bip324::{
    EllSwiftKeypair, Error, Network, Next, PacketReceiver, PacketSender, PacketType, Role,
    SessionKeys, CORE_MAX_CONTENTS_LEN,
};

const MAGIC: [u8; 4] = [0xf9, 0xbe, 0xb4, 0xd9];

/// The crate's key source, fixed so runs are reproducible.
struct Fixed([u8; 32]);

impl peer::FillBytes for Fixed {
    fn fill_bytes(&mut self, dest: &mut [u8; 32]) {
        *dest = self.0;
    }
}

struct Setup {
    keys: SessionKeys,
    /// The crate's sessions after the handshake (version packets consumed).
    initiator: peer::CipherSession,
    responder: peer::CipherSession,
    /// Each side's version packet (after its garbage terminator), as sent.
    initiator_version: Vec<u8>,
    responder_version: Vec<u8>,
}

/// Reads the other side's terminator and version packet; returns the session.
fn finish(h: peer::Handshake<peer::SentVersion>, msg: &[u8]) -> peer::CipherSession {
    let (mut h, at) = match h.receive_garbage(msg).unwrap() {
        peer::GarbageResult::FoundGarbage {
            handshake,
            consumed_bytes,
        } => (handshake, consumed_bytes),
        peer::GarbageResult::NeedMoreData(_) => panic!("setup: no terminator"),
    };
    let len = h
        .decrypt_packet_len(msg[at..at + 3].try_into().unwrap())
        .unwrap();
    let mut body = msg[at + 3..at + 3 + len].to_vec();
    match h.receive_version(&mut body).unwrap() {
        peer::VersionResult::Complete { cipher } => cipher,
        peer::VersionResult::Decoy(_) => panic!("setup: no decoys were sent"),
    }
}

fn setup() -> &'static Setup {
    static S: OnceLock<Setup> = OnceLock::new();
    S.get_or_init(|| {
        let curve = secp256k1::Secp256k1::signing_only();
        let start = |role, secret| {
            peer::Handshake::new_with_rng(MAGIC, role, &mut Fixed([secret; 32]), &curve).unwrap()
        };
        let (i, r) = (
            start(peer::Role::Initiator, 1),
            start(peer::Role::Responder, 2),
        );
        let (mut ik, mut rk) = ([0u8; 64], [0u8; 64]);
        let i = i.send_key(None, &mut ik).unwrap();
        let r = r.send_key(None, &mut rk).unwrap();
        let i = i.receive_key(rk).unwrap();
        let r = r.receive_key(ik).unwrap();
        let n = peer::Handshake::<peer::ReceivedKey>::send_version_len(None);
        let (mut iv, mut rv) = (vec![0u8; n], vec![0u8; n]);
        let i = i.send_version(&mut iv, None).unwrap();
        let r = r.send_version(&mut rv, None).unwrap();
        let initiator = finish(i, &rv);
        let responder = finish(r, &iv);
        let ours = EllSwiftKeypair::from_secret_and_encoding_test_vectors_only(&[2; 32], &rk)
            .expect("setup: our key from the crate's encoding");
        let keys = SessionKeys::derive(&ours, &ik, Role::Responder, Network::MAINNET);
        assert_eq!(
            &keys.session_id,
            initiator.id(),
            "setup: session ids differ"
        );
        assert_eq!(initiator.id(), responder.id());
        assert_eq!(&iv[..16], &keys.initiator_terminator);
        assert_eq!(&rv[..16], &keys.responder_terminator);
        Setup {
            keys,
            initiator,
            responder,
            initiator_version: iv[16..].to_vec(),
            responder_version: rv[16..].to_vec(),
        }
    })
}

/// How a decoder's pass over the stream ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// Waiting for this many bytes from the start of the unread part.
    NeedMore(usize),
    /// A tag failed.
    Auth,
    /// A length field announced this many contents bytes, over the limit.
    TooLong(usize),
}

type Packets = Vec<(bool, Vec<u8>)>;

fn ours(rx: &mut PacketReceiver, stream: &[u8]) -> (Packets, End) {
    let mut buf = stream.to_vec();
    let (mut at, mut got) = (0, Vec::new());
    loop {
        match rx.open_next(b"", &mut buf[at..]) {
            Ok(Next::Packet { packet, consumed }) => {
                got.push((packet.kind == PacketType::Decoy, packet.contents.to_vec()));
                at += consumed;
            }
            Ok(Next::NeedMore(total)) => return (got, End::NeedMore(total)),
            Err(Error::Auth) => return (got, End::Auth),
            Err(Error::TooLong { len, .. }) => return (got, End::TooLong(len)),
            Err(e) => panic!("unexpected error from wireseal: {e:?}"),
        }
    }
}

fn theirs(rx: &mut peer::InboundCipher, stream: &[u8]) -> (Packets, End) {
    let (mut rest, mut got) = (stream, Vec::new());
    loop {
        let Some(field) = rest.get(..3) else {
            return (got, End::NeedMore(3));
        };
        let len = rx.decrypt_packet_len(field.try_into().unwrap());
        let contents = len - 17;
        if contents > CORE_MAX_CONTENTS_LEN {
            return (got, End::TooLong(contents));
        }
        let Some(body) = rest.get(3..3 + len) else {
            return (got, End::NeedMore(3 + len));
        };
        let mut out = vec![0u8; len - 16];
        match rx.decrypt(body, &mut out, None) {
            Ok(kind) => got.push((kind == peer::PacketType::Decoy, out[1..].to_vec())),
            Err(peer::Error::Decryption(_)) => return (got, End::Auth),
            Err(e) => panic!("unexpected error from bip324: {e:?}"),
        }
        rest = &rest[3 + len..];
    }
}

/// Takes `n` bytes from the front of `input` (fewer when it runs out).
fn take<'a>(input: &mut &'a [u8], n: usize) -> &'a [u8] {
    let (a, b) = input.split_at(n.min(input.len()));
    *input = b;
    a
}

fn byte(input: &mut &[u8]) -> u8 {
    take(input, 1).first().copied().unwrap_or(0)
}

fuzz_target!(|data: &[u8]| {
    let s = setup();
    let mut input = data;
    let from_initiator = byte(&mut input) & 1 == 0;
    let (l, p, their_tx, their_rx, version) = if from_initiator {
        let k = (&s.keys.initiator_l, &s.keys.initiator_p);
        (k.0, k.1, &s.initiator, &s.responder, &s.initiator_version)
    } else {
        let k = (&s.keys.responder_l, &s.keys.responder_p);
        (k.0, k.1, &s.responder, &s.initiator, &s.responder_version)
    };
    let mut our_tx = PacketSender::new(l, p);
    let mut our_rx = PacketReceiver::new(l, p);
    assert_eq!(
        &our_tx.seal_to_vec(b"", PacketType::Genuine, b"").unwrap(),
        version,
        "version packets differ"
    );
    let mut v = version.clone();
    assert!(matches!(
        our_rx.open_next(b"", &mut v),
        Ok(Next::Packet { .. })
    ));
    let (mut their_tx, mut their_rx) = (their_tx.clone(), their_rx.clone());

    let mut stream = Vec::new();
    let mut sent: Packets = Vec::new();
    let mut tampered = false;
    let mut seal = |contents: &[u8], decoy: bool, stream: &mut Vec<u8>| {
        let (ours, theirs) = if decoy {
            (PacketType::Decoy, peer::PacketType::Decoy)
        } else {
            (PacketType::Genuine, peer::PacketType::Genuine)
        };
        let a = our_tx.seal_to_vec(contents, ours, b"").unwrap();
        let b = their_tx.outbound().encrypt_to_vec(contents, theirs, None);
        assert_eq!(a, b, "senders differ");
        stream.extend_from_slice(&a);
        sent.push((decoy, contents.to_vec()));
    };
    while !input.is_empty() && stream.len() < 1 << 16 {
        match byte(&mut input) % 4 {
            0 => {
                let flags = byte(&mut input);
                let n = u16::from_le_bytes([byte(&mut input), byte(&mut input)]) as usize % 2048;
                let contents = take(&mut input, n);
                seal(contents, flags & 1 == 1, &mut stream);
            }
            1 => {
                let n = byte(&mut input) as usize;
                for i in 0..n {
                    seal(b"", i % 3 == 0, &mut stream);
                }
            }
            2 => {
                let at = u16::from_le_bytes([byte(&mut input), byte(&mut input)]) as usize;
                let mask = byte(&mut input);
                if !stream.is_empty() && mask != 0 {
                    let at = at % stream.len();
                    stream[at] ^= mask;
                    tampered = true;
                }
            }
            _ => {
                let n = byte(&mut input) as usize;
                stream.extend_from_slice(take(&mut input, n));
                tampered = true;
            }
        }
    }

    let (a, a_end) = ours(&mut our_rx, &stream);
    let (b, b_end) = theirs(their_rx.inbound(), &stream);
    assert_eq!(a, b, "decoded packets differ");
    assert_eq!(a_end, b_end, "decoders stop differently");
    if !tampered {
        assert_eq!(a, sent);
        assert_eq!(a_end, End::NeedMore(3));
    }
});
