//! The handshake both BIP324 session test files drive: our initiator and our
//! responder in memory, through garbage, decoys and the version packet.

use wireseal::bip324::handshake::{GarbageRead, Handshake, KeyRead, VersionRead};
use wireseal::bip324::{EllSwiftKeypair, Error, Network, Session};

/// Our initiator and our responder, with the given garbage; returns both
/// sessions (or the first error seen by the responder reading the version).
pub fn pair(
    net_a: Network,
    net_b: Network,
    garbage: &[u8],
    tamper_garbage: bool,
) -> Result<(Session, Session), Error> {
    let mut a_out = Vec::new();
    let mut b_out = Vec::new();
    let a =
        Handshake::initiator(net_a, EllSwiftKeypair::generate(), garbage)?.write_key(&mut a_out);
    let b = Handshake::responder(net_b, EllSwiftKeypair::generate(), b"")?.write_key(&mut b_out);
    let KeyRead::Derived { handshake: a, .. } = a.read_key(&b_out) else {
        panic!()
    };
    let KeyRead::Derived { handshake: b, .. } = b.read_key(&a_out) else {
        panic!()
    };
    let a = a.write_version(&[b"d"], &mut a_out)?;
    let b = b.write_version(&[], &mut b_out)?;
    if tamper_garbage && !garbage.is_empty() {
        a_out[64] ^= 1;
    }
    let sa = finish(a, &mut b_out[64..])?;
    let sb = finish(b, &mut a_out[64..])?;
    Ok((sa, sb))
}

/// Reads the peer's garbage, decoys and version packet (all of it already in
/// `input`) into a session.
pub fn finish(
    h: Handshake<wireseal::bip324::handshake::VersionSent>,
    input: &mut [u8],
) -> Result<Session, Error> {
    let GarbageRead::Found {
        handshake: mut h,
        consumed: mut at,
    } = h.read_garbage(input)?
    else {
        // The whole message is here: a missing terminator will never come.
        return Err(Error::NoGarbageTerminator);
    };
    loop {
        match h.read_version(&mut input[at..])? {
            VersionRead::Decoy(n, c) => {
                h = n;
                at += c;
            }
            VersionRead::Done { session, .. } => return Ok(session),
            VersionRead::NeedMore(..) => panic!("need more"),
        }
    }
}
