//! The `bip324` crate (rust-bitcoin) as the bench's peer: in-memory
//! handshakes and the same round-trip shapes as ours.

use ::bip324 as peer;

/// The peer's name in the table.
pub(super) const NAME: &str = "bip324 crate 0.11";
const MAGIC: [u8; 4] = [0xf9, 0xbe, 0xb4, 0xd9];

/// Both ends of one of the crate's sessions: (initiator, responder).
pub(super) struct Pair(
    pub(super) peer::CipherSession,
    pub(super) peer::CipherSession,
);

impl Pair {
    /// A full in-memory handshake, both sides.
    pub(super) fn new() -> Self {
        let a = peer::Handshake::<peer::Initialized>::new(MAGIC, peer::Role::Initiator).expect("a");
        let b = peer::Handshake::<peer::Initialized>::new(MAGIC, peer::Role::Responder).expect("b");
        let (mut ka, mut kb) = ([0u8; 64], [0u8; 64]);
        let a = a.send_key(None, &mut ka).expect("a key");
        let b = b.send_key(None, &mut kb).expect("b key");
        let a = a.receive_key(kb).expect("a recv");
        let b = b.receive_key(ka).expect("b recv");
        let n = peer::Handshake::<peer::ReceivedKey>::send_version_len(None);
        let (mut va, mut vb) = (vec![0u8; n], vec![0u8; n]);
        let a = a.send_version(&mut va, None).expect("a ver");
        let b = b.send_version(&mut vb, None).expect("b ver");
        Pair(finish(a, &vb), finish(b, &va))
    }

    /// Round trip of every packet in `sizes`, zero-allocation API.
    pub(super) fn rt(&mut self, sizes: &[u32], data: &[u8], buf: &mut [u8]) -> usize {
        let mut got = 0;
        for &s in sizes {
            let s = s as usize;
            let n = peer::OutboundCipher::encryption_buffer_len(s);
            self.0
                .outbound()
                .encrypt(&data[..s], &mut buf[..n], peer::PacketType::Genuine, None)
                .expect("encrypt");
            got += self.open_at(buf, 0).0;
        }
        got
    }

    /// Round trip through the allocating API (`encrypt_to_vec` /
    /// `decrypt_to_vec`, what its `io` layer uses).
    pub(super) fn rt_vec(&mut self, sizes: &[u32], data: &[u8]) -> usize {
        let mut got = 0;
        for &s in sizes {
            let wire = self.0.outbound().encrypt_to_vec(
                &data[..s as usize],
                peer::PacketType::Genuine,
                None,
            );
            let len = self
                .1
                .inbound()
                .decrypt_packet_len(wire[..3].try_into().expect("3"));
            let (_, pt) = self
                .1
                .inbound()
                .decrypt_to_vec(&wire[3..3 + len], None)
                .expect("the crate's round trip");
            got += pt.len();
        }
        got
    }

    /// One lane in the shape of ours: seal a run of packets into `wire`,
    /// then open them all.
    pub(super) fn lane(&mut self, sizes: &[u32], data: &[u8], wire: &mut Vec<u8>) -> usize {
        wire.clear();
        for &s in sizes {
            let s = s as usize;
            let at = wire.len();
            let n = peer::OutboundCipher::encryption_buffer_len(s);
            wire.resize(at + n, 0);
            self.0
                .outbound()
                .encrypt(&data[..s], &mut wire[at..], peer::PacketType::Genuine, None)
                .expect("encrypt");
        }
        let (mut at, mut got) = (0, 0);
        while at < wire.len() {
            let (n, used) = self.open_at(wire, at);
            got += n;
            at += used;
        }
        got
    }

    /// Opens the packet at `buf[at..]` on the responder: (contents length,
    /// wire bytes used).
    fn open_at(&mut self, buf: &mut [u8], at: usize) -> (usize, usize) {
        let len = self
            .1
            .inbound()
            .decrypt_packet_len(buf[at..at + 3].try_into().expect("3"));
        let (_, pt) = self
            .1
            .inbound()
            .decrypt_in_place(&mut buf[at + 3..at + 3 + len], None)
            .expect("the crate's round trip");
        (pt.len(), 3 + len)
    }
}

/// Seals `sizes` (contents from `data`) as genuine packets from `side`,
/// appended to `wire`.
pub(super) fn seal_run(
    side: &mut peer::CipherSession,
    sizes: &[u32],
    data: &[u8],
    wire: &mut Vec<u8>,
) {
    let mut from = 0;
    for &s in sizes {
        let s = s as usize;
        let at = wire.len();
        let n = peer::OutboundCipher::encryption_buffer_len(s);
        wire.resize(at + n, 0);
        side.outbound()
            .encrypt(
                &data[from..from + s],
                &mut wire[at..],
                peer::PacketType::Genuine,
                None,
            )
            .expect("encrypt");
        from += s;
    }
}

/// Opens every packet of `wire` in place on `side`; returns the bytes it
/// hands back (each packet's header byte and contents).
pub(super) fn open_run(side: &mut peer::CipherSession, wire: &mut [u8]) -> usize {
    let (mut at, mut got) = (0, 0);
    while at < wire.len() {
        let len = side
            .inbound()
            .decrypt_packet_len(wire[at..at + 3].try_into().expect("3"));
        let (_, pt) = side
            .inbound()
            .decrypt_in_place(&mut wire[at + 3..at + 3 + len], None)
            .expect("the crate's round trip");
        got += pt.len();
        at += 3 + len;
    }
    got
}

fn finish(h: peer::Handshake<peer::SentVersion>, msg: &[u8]) -> peer::CipherSession {
    let peer::GarbageResult::FoundGarbage {
        handshake: mut h,
        consumed_bytes,
    } = h.receive_garbage(msg).expect("garbage")
    else {
        unreachable!("terminator present")
    };
    let rem = &msg[consumed_bytes..];
    let len = h
        .decrypt_packet_len(rem[..3].try_into().expect("3"))
        .expect("len");
    let mut pkt = rem[3..3 + len].to_vec();
    match h.receive_version(&mut pkt).expect("version") {
        peer::VersionResult::Complete { cipher } => cipher,
        peer::VersionResult::Decoy(_) => unreachable!("no decoys sent"),
    }
}
