//! Any plaintext, sealed from a known peer to our identity (TXT_MSG, REQ,
//! RESPONSE, PATH, ANON_REQ) so its MAC verifies: the decoder never
//! panics, and what it reports opened is the bytes that were sealed, from
//! that peer, to us.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;
use std::sync::OnceLock;
use wireseal::meshcore::{
    ciphertext_len, encode_anon_request, peer_cipher, seal_peer_payload, Body, Decoder,
    LocalIdentity, PacketOut, PayloadType, PeerContent,
};

fn ids() -> &'static (LocalIdentity, LocalIdentity) {
    static IDS: OnceLock<(LocalIdentity, LocalIdentity)> = OnceLock::new();
    IDS.get_or_init(|| {
        let id = |s: u8| {
            (s..=255)
                .find_map(|i| LocalIdentity::from_seed(&[i; 32]).ok())
                .unwrap()
        };
        (id(1), id(100))
    })
}

thread_local! {
    /// One decoder for every run, so its cache is exercised (and the
    /// X25519 of the pair is paid once).
    static DECODER: RefCell<Decoder> = RefCell::new({
        let (peer, us) = ids();
        let mut dec = Decoder::new();
        dec.add_identity(LocalIdentity::from_private_key(us.private_key().expose()).unwrap());
        dec.add_peer(*peer.public());
        dec
    });
}

fn anon(peer: &LocalIdentity, us: &LocalIdentity, data: &[u8]) {
    let Some((ts, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let mut out = [0u8; 255];
    let Ok(n) = encode_anon_request(peer, us.public(), u32::from_le_bytes(*ts), rest, &mut out)
    else {
        return;
    };
    let d = DECODER
        .with(|d| d.borrow_mut().decode(0, &out[..n]))
        .expect("a packet we built parses");
    let Body::AnonReq(a) = d.body else {
        panic!("anonymous request")
    };
    let o = a.opened.expect("a sealed request always opens");
    assert_eq!(o.timestamp.to_le_bytes(), *ts);
    assert!(o.data.starts_with(rest));
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, plaintext)) = data.split_first() else {
        return;
    };
    let (peer, us) = ids();
    if mode & 4 != 0 {
        return anon(peer, us, plaintext);
    }
    let cipher = peer_cipher(peer, us.public()).unwrap();
    let t = [
        PayloadType::TxtMsg,
        PayloadType::Req,
        PayloadType::Response,
        PayloadType::Path,
    ][usize::from(mode & 3)];
    let mut payload = [0u8; 184];
    let Ok(n) = seal_peer_payload(
        &cipher,
        us.public().hash(),
        peer.public().hash(),
        plaintext,
        &mut payload,
    ) else {
        return;
    };
    let Ok(raw) = PacketOut::flood(t, &payload[..n]).to_vec() else {
        return;
    };
    let d = DECODER
        .with(|d| d.borrow_mut().decode(0, &raw))
        .expect("a packet we built parses");
    let Body::Peer(p) = d.body else {
        panic!("peer packet")
    };
    let mut sealed = plaintext.to_vec();
    sealed.resize(ciphertext_len(plaintext.len()), 0);
    if let Some(o) = p.opened {
        assert_eq!(&o.from, peer.public().as_bytes());
        match o.content {
            PeerContent::Text(m) => assert_eq!(&sealed[..4], &m.timestamp.to_le_bytes()),
            PeerContent::Data(d) => assert_eq!(d, sealed),
        }
    }
});
