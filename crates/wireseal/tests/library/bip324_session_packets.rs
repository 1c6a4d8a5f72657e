//! BIP324 session packets: a bad tag poisons the receiver, truncation asks
//! for more, skipped packets and wrong lengths fail, decoys, and the batch
//! API against one packet at a time. (The other header bits are checked in
//! the packet module's own tests, which can build packets with any header.)

use crate::bip324_session_support;

use ::bip324 as peer;
use bip324_session_support::pair;
use wireseal::batch::Batch;
use wireseal::bip324::batch::{
    open_batch_into, seal_batch_into, wire_len, OpenJob, OpenedRange, SealJob,
};
use wireseal::bip324::{sealed_len, Error, Network, Next, PacketType, Role, Session, SessionKeys};
use wireseal::secret::Secret;

#[test]
fn bad_tag_poisons_and_truncation_needs_more() {
    let (mut a, mut b) = pair(Network::MAINNET, Network::MAINNET, b"", false).unwrap();
    let mut w = vec![0u8; sealed_len(100)];
    a.seal_into(&[3u8; 100], PacketType::Genuine, &mut w)
        .unwrap();
    // Truncated: need-more values, not errors, and state stays usable.
    let mut part = w[..2].to_vec();
    assert_eq!(b.open_next(&mut part), Ok(Next::NeedMore(3)));
    let mut part = w[..50].to_vec();
    assert_eq!(b.open_next(&mut part), Ok(Next::NeedMore(w.len())));
    let mut good = w.clone();
    assert!(matches!(b.open_next(&mut good), Ok(Next::Packet { .. })));
    // Tampered tag: Decrypt, then every later call is Poisoned.
    let mut w2 = vec![0u8; sealed_len(10)];
    a.seal_into(&[4u8; 10], PacketType::Genuine, &mut w2)
        .unwrap();
    let mut w3 = vec![0u8; sealed_len(10)];
    a.seal_into(&[5u8; 10], PacketType::Genuine, &mut w3)
        .unwrap();
    let mut bad = w2.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0x80;
    assert_eq!(b.open_next(&mut bad), Err(Error::Auth));
    assert!(bad[4..].iter().all(|&x| x == 0), "no plaintext released");
    assert_eq!(b.open_next(&mut w2), Err(Error::Poisoned));
    assert_eq!(b.open_next(&mut w3), Err(Error::Poisoned));
}

#[test]
fn reordered_or_wrong_length_packets_fail() {
    let (mut a, mut b) = pair(Network::MAINNET, Network::MAINNET, b"", false).unwrap();
    let p1 = a
        .sender
        .seal_to_vec(b"one", PacketType::Genuine, b"")
        .unwrap();
    let mut p2 = a
        .sender
        .seal_to_vec(b"two", PacketType::Genuine, b"")
        .unwrap();
    let _ = p1;
    // Skipping p1 decrypts p2's length field with p1's keystream: a random
    // 24-bit length. Over Core's limit it is rejected at once; otherwise the
    // receiver asks for that many bytes, and once they arrive the tag (made
    // under p2's nonce, checked under p1's) must fail. Either way no packet.
    match b.open_next(&mut p2) {
        // A length of 3 or less fits the buffer: the tag check fails at once.
        Err(Error::TooLong { .. }) | Err(Error::Auth) => {}
        Ok(Next::NeedMore(total)) => {
            assert!(total > p2.len(), "a short buffer is not a whole packet");
            p2.resize(total, 0);
            assert_eq!(b.open_next(&mut p2), Err(Error::Auth));
        }
        other => panic!("skipping a packet must fail, got {other:?}"),
    }
    assert_eq!(b.open_next(&mut p2), Err(Error::Poisoned));
    let (mut a, mut b) = pair(Network::MAINNET, Network::MAINNET, b"", false).unwrap();
    let mut p = a
        .sender
        .seal_to_vec(b"abc", PacketType::Genuine, b"")
        .unwrap();
    let rest = b
        .receiver
        .decrypt_length(p[..3].try_into().unwrap())
        .unwrap();
    assert_eq!(rest, 1 + 3 + 16);
    assert_eq!(
        b.receiver.open_body(b"", &mut p[3..10]).unwrap_err(),
        Error::Truncated { len: 7, min: 20 }
    );
    assert_eq!(b.receiver.decrypt_length([0; 3]), Err(Error::Poisoned));
}

#[test]
fn decoy_flag_is_bit_0x80_other_bits_ignored() {
    // The crate writes 0x80 for decoys; we set 0x80 and read only that bit.
    let (mut a, mut b) = pair(Network::MAINNET, Network::MAINNET, b"", false).unwrap();
    let mut d = a
        .sender
        .seal_to_vec(b"noise", PacketType::Decoy, b"")
        .unwrap();
    match b.open_next(&mut d).unwrap() {
        Next::Packet { packet, .. } => {
            assert!(packet.kind == PacketType::Decoy && packet.contents == b"noise")
        }
        n => panic!("{n:?}"),
    }
    assert_eq!(
        peer::PacketType::Decoy.to_byte(),
        wireseal::bip324::DECOY_FLAG
    );
}

/// Deterministic sessions (fixed shared secrets), so a batch run can be
/// compared byte for byte with one at a time.
fn fixed_pair(i: u8) -> (Session, Session) {
    let keys = SessionKeys::from_shared_secret(&Secret::new([i; 32]), Network::MAINNET);
    (
        Session::from_keys(&keys, Role::Initiator),
        Session::from_keys(&keys, Role::Responder),
    )
}

#[test]
fn batch_matches_one_by_one() {
    let mut pairs: Vec<(Session, Session)> = (0..40).map(fixed_pair).collect();
    let sizes: Vec<u32> = (0..300).map(|i| (i * 13 % 600) as u32).collect();
    let contents: Vec<u8> = (0..sizes.iter().sum::<u32>()).map(|i| i as u8).collect();
    let mut outs: Vec<Vec<u8>> = vec![Vec::new(); pairs.len()];
    let mut opened: Vec<Vec<OpenedRange>> = vec![Vec::new(); pairs.len()];
    let batch = Batch::with_threads(2);
    {
        let mut jobs: Vec<SealJob> = pairs
            .iter_mut()
            .zip(outs.iter_mut())
            .map(|((a, _), out)| SealJob {
                sender: &mut a.sender,
                contents: &contents,
                sizes: &sizes,
                out,
                result: Ok(0),
            })
            .collect();
        seal_batch_into(&batch, &mut jobs);
        assert!(jobs.iter().all(|j| j.result == Ok(300)));
    }
    // One at a time, on fresh copies of the same sessions: the same bytes.
    for (i, out) in outs.iter().enumerate() {
        let (mut a, _) = fixed_pair(i as u8);
        let mut serial = Vec::new();
        let mut from = 0usize;
        for &s in &sizes {
            let c = &contents[from..from + s as usize];
            serial.extend(a.seal_to_vec(c, PacketType::Genuine).unwrap());
            from += s as usize;
        }
        assert_eq!(&serial, out, "lane {i}");
        assert_eq!(out.len(), wire_len(&sizes));
    }
    let mut wires = outs.clone();
    {
        let mut jobs: Vec<OpenJob> = pairs
            .iter_mut()
            .zip(wires.iter_mut())
            .zip(opened.iter_mut())
            .map(|(((_, b), wire), opened)| OpenJob {
                receiver: &mut b.receiver,
                wire,
                opened,
                result: Ok(0),
            })
            .collect();
        open_batch_into(&batch, &mut jobs);
        assert!(jobs.iter().all(|j| j.result == Ok(300)));
    }
    for (wire, op) in wires.iter().zip(&opened) {
        let mut from = 0usize;
        for (r, &s) in op.iter().zip(&sizes) {
            assert_eq!(r.kind, PacketType::Genuine);
            assert_eq!(
                &wire[r.offset..r.offset + r.len],
                &contents[from..from + s as usize]
            );
            from += s as usize;
        }
    }
    // Different sessions produce different bytes for the same contents.
    assert_ne!(outs[0], outs[1]);

    // A wire cut inside a packet: the packets before it open, then Truncated.
    let (mut a, mut b) = fixed_pair(99);
    let mut out = Vec::new();
    let mut job = SealJob {
        sender: &mut a.sender,
        contents: &contents,
        sizes: &sizes[..3],
        out: &mut out,
        result: Ok(0),
    };
    wireseal::bip324::batch::seal_job(&mut job);
    let sealed = out.clone();
    let cut = out.len() - 5;
    let mut opened = Vec::new();
    let mut job = OpenJob {
        receiver: &mut b.receiver,
        wire: &mut out[..cut],
        opened: &mut opened,
        result: Ok(0),
    };
    wireseal::bip324::batch::open_job(&mut job);
    assert!(matches!(job.result, Err(Error::Truncated { .. })));
    assert_eq!(opened.len(), 2);

    // The same as the batch's only job (run on the calling thread), with
    // stale ranges in `opened` beforehand: the same result and ranges.
    let (_, mut b) = fixed_pair(99);
    let mut wire = sealed.clone();
    let mut alone = vec![OpenedRange {
        offset: 9,
        len: 9,
        kind: PacketType::Decoy,
    }];
    let mut jobs = [OpenJob {
        receiver: &mut b.receiver,
        wire: &mut wire[..cut],
        opened: &mut alone,
        result: Ok(0),
    }];
    open_batch_into(&Batch::calling_thread(), &mut jobs);
    assert!(matches!(jobs[0].result, Err(Error::Truncated { .. })));
    assert_eq!(alone, opened);
    // A flipped tag byte in the second packet: the first opens, then the
    // tag error, and the receiver is poisoned.
    let (_, mut b) = fixed_pair(99);
    let mut wire = sealed;
    let second_end = 3 + 1 + sizes[0] as usize + 16 + 3 + 1 + sizes[1] as usize + 16;
    wire[second_end - 1] ^= 1;
    let mut jobs = [OpenJob {
        receiver: &mut b.receiver,
        wire: &mut wire,
        opened: &mut alone,
        result: Ok(0),
    }];
    open_batch_into(&Batch::calling_thread(), &mut jobs);
    assert_eq!(jobs[0].result, Err(Error::Auth));
    assert_eq!(alone.len(), 1);
    assert_eq!(alone[0], opened[0]);
    assert!(b.receiver.is_poisoned());
}

/// Typed packets (decoys among them) through the library's batch equal
/// sealing them one at a time; a job finished from its middle equals the
/// whole job; the valid prefix stops where the batch stops.
#[test]
fn outgoing_batch_with_decoys_matches_one_by_one() {
    use wireseal::bip324::batch::{
        seal_outgoing_from, seal_outgoing_into, valid_prefix, Outgoing, OutgoingJob,
    };
    let packets: Vec<Outgoing> = (0..240u32)
        .map(|i| {
            let len = i * 29 % 700;
            if i % 5 == 4 {
                Outgoing::decoy(len)
            } else {
                Outgoing::genuine(len)
            }
        })
        .collect();
    let total: usize = packets.iter().map(|p| p.len as usize).sum();
    let contents: Vec<u8> = (0..total).map(|i| (i * 7) as u8).collect();
    let mut pairs: Vec<(Session, Session)> = (0..8).map(|i| fixed_pair(100 + i)).collect();
    let mut outs: Vec<Vec<u8>> = vec![Vec::new(); pairs.len()];
    {
        let mut jobs: Vec<OutgoingJob> = pairs
            .iter_mut()
            .zip(outs.iter_mut())
            .map(|((a, _), out)| OutgoingJob {
                sender: &mut a.sender,
                contents: &contents,
                packets: &packets,
                out,
                result: Ok(0),
            })
            .collect();
        assert_eq!(valid_prefix(&jobs[0]), (packets.len(), total));
        seal_outgoing_into(&Batch::with_threads(2), &mut jobs);
        assert!(jobs.iter().all(|j| j.result == Ok(packets.len())));
    }
    let one_by_one = |i: u8, first: usize| {
        let (mut a, _) = fixed_pair(100 + i);
        let mut wire = Vec::new();
        let mut from = 0usize;
        for p in &packets[..first] {
            let c = &contents[from..from + p.len as usize];
            wire.extend(a.seal_to_vec(c, p.kind).unwrap());
            from += p.len as usize;
        }
        (a, wire, from)
    };
    for (i, out) in outs.iter().enumerate() {
        let (_, whole, _) = one_by_one(i as u8, packets.len());
        assert_eq!(&whole, out, "session {i}");
    }
    // Finished from packet 100 on: the same bytes as the whole job.
    let (mut a, mut wire, from) = one_by_one(0, 100);
    let mut job = OutgoingJob {
        sender: &mut a.sender,
        contents: &contents,
        packets: &packets,
        out: &mut wire,
        result: Ok(0),
    };
    assert_eq!(seal_outgoing_from(&mut job, 100, from), Ok(140));
    assert_eq!(wire, outs[0]);
    // Contents that end inside packet 7: the prefix and the batch stop there.
    let cut: usize = packets[..7].iter().map(|p| p.len as usize).sum::<usize>() + 1;
    let (mut a, _) = fixed_pair(100);
    let mut out = Vec::new();
    let mut jobs = [OutgoingJob {
        sender: &mut a.sender,
        contents: &contents[..cut],
        packets: &packets,
        out: &mut out,
        result: Ok(0),
    }];
    assert_eq!(valid_prefix(&jobs[0]).0, 7);
    seal_outgoing_into(&Batch::calling_thread(), &mut jobs);
    assert!(matches!(jobs[0].result, Err(Error::Truncated { .. })));
    // The packets before the cut stay in `out`, byte for byte.
    assert_eq!(out, one_by_one(0, 7).1);
}
