//! The kernels' ChaCha20 and Poly1305 against RFC 8439's vectors, their
//! structures against layout.rs, and BIP324's packet vectors through the
//! engine on the host-built kernels.

use super::host_engine;
use crate::host;
use crate::jobs::{Outgoing, SealJob};
use crate::layout::{Args, KEY_DESC, PACKET_DESC, RUN_COUNT, RUN_DESC, RUN_LENS, TASK_DESC};
use crate::Config;
use wireseal::bip324::batch::{OpenJob, OpenedRange};
use wireseal::bip324::{PacketReceiver, PacketSender, PacketType};
use wireseal::secret::Secret;

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.replace([' ', '\n'], "")).expect("hex")
}

fn words<const N: usize>(b: &[u8]) -> [u32; N] {
    core::array::from_fn(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
}

/// RFC 8439 2.3.2: the block function.
#[test]
fn chacha20_block_rfc8439() {
    let key: Vec<u8> = (0u8..32).collect();
    let nonce = unhex("000000090000004a00000000");
    let out = host::chacha_block(&words(&key), 1, &words(&nonce));
    let bytes: Vec<u8> = out.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(
        hex::encode(bytes),
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e\
         d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"
    );
}

/// RFC 8439 2.5.2 and the appendix A.3 vectors that exercise the
/// reduction's corners (#4–#11).
#[test]
fn poly1305_rfc8439() {
    let r1 = "01000000000000000000000000000000";
    let r2 = "02000000000000000000000000000000";
    let r4 = "01000000000000000400000000000000";
    let zero = "00000000000000000000000000000000";
    let ff = "ffffffffffffffffffffffffffffffff";
    let cases: [(String, Vec<u8>, &str); 10] = [
        (
            "85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b".into(),
            b"Cryptographic Forum Research Group".to_vec(),
            "a8061dc1305136c6c22b8baf0c0127a9",
        ),
        (
            "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0".into(),
            b"'Twas brillig, and the slithy toves\nDid gyre and gimble in the wabe:\nAll mimsy \
              were the borogoves,\nAnd the mome raths outgrabe."
                .to_vec(),
            "4541669a7eaaee61e708dc7cbcc5eb62",
        ),
        (
            format!("{r2}{zero}"),
            unhex(ff),
            "03000000000000000000000000000000",
        ),
        (
            format!("{r2}{ff}"),
            unhex(r2),
            "03000000000000000000000000000000",
        ),
        (
            format!("{r1}{zero}"),
            unhex(&format!("{ff}f0{}11{}", "ff".repeat(15), "00".repeat(15))),
            "05000000000000000000000000000000",
        ),
        (
            format!("{r1}{zero}"),
            unhex(&format!("{ff}fb{}{}", "fe".repeat(15), "01".repeat(16))),
            "00000000000000000000000000000000",
        ),
        (
            format!("{r2}{zero}"),
            unhex(&format!("fd{}", "ff".repeat(15))),
            "faffffffffffffffffffffffffffffff",
        ),
        (
            format!("{r4}{zero}"),
            unhex(
                "e33594d7505e43b900000000000000003394d7505e4379cd0100000000000000\
                 0000000000000000000000000000000001000000000000000000000000000000",
            ),
            "14000000000000005500000000000000",
        ),
        (
            format!("{r4}{zero}"),
            unhex(
                "e33594d7505e43b900000000000000003394d7505e4379cd0100000000000000\
                 00000000000000000000000000000000",
            ),
            "13000000000000000000000000000000",
        ),
        (format!("{zero}{zero}"), vec![0u8; 64], zero),
    ];
    for (i, (key, msg, tag)) in cases.iter().enumerate() {
        let key: [u8; 32] = unhex(key).try_into().unwrap();
        assert_eq!(hex::encode(host::poly1305(&key, msg)), *tag, "case {i}");
    }
}

/// Every size and offset the kernels read is the one layout.rs writes.
#[test]
fn the_c_structures_match_the_layout() {
    let args = Args::default();
    let base = &args as *const Args as usize;
    let want = [
        KEY_DESC as u64,
        32,
        64,
        72,
        PACKET_DESC as u64,
        8,
        12,
        16,
        20,
        24,
        28,
        TASK_DESC as u64,
        core::mem::size_of::<Args>() as u64,
        (&args.ntasks as *const u32 as usize - base) as u64,
        (&args.task_bytes as *const u32 as usize - base) as u64,
        (&args.runs as *const u64 as usize - base) as u64,
        (&args.nruns as *const u32 as usize - base) as u64,
        RUN_DESC as u64,
        8,
        12,
        24,
        32,
        RUN_LENS as u64,
        RUN_COUNT as u64,
    ];
    for (i, w) in want.into_iter().enumerate() {
        assert_eq!(host::layout(i as u32), w, "item {i} of ws_host_layout");
    }
}

/// BIP324's packet vectors with empty AAD (6 of 7; the other is a
/// session's first packet, which carries the garbage as AAD and is sealed
/// by the handshake): sealed by the engine after the listed number of
/// earlier packets, then opened by it.
#[test]
fn bip324_packet_vectors_through_the_engine() {
    // Compiled in, so that the test program runs wherever it is carried.
    let text = include_str!("../../../../vectors/bip324/packet_encoding_test_vectors.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col =
        |row: &[&str], name: &str| row[header.iter().position(|h| *h == name).unwrap()].to_string();
    let mut checked = 0;
    for line in lines.filter(|l| !l.is_empty()) {
        let row: Vec<&str> = line.split(',').collect();
        if !col(&row, "in_aad").is_empty() {
            continue;
        }
        let (l, p) = if col(&row, "in_initiating") == "1" {
            ("mid_initiator_l", "mid_initiator_p")
        } else {
            ("mid_responder_l", "mid_responder_p")
        };
        let key = |n: &str| Secret::<32>::from_slice(&unhex(&col(&row, n))).unwrap();
        let mut tx = PacketSender::new(&key(l), &key(p));
        let mut rx = PacketReceiver::new(&key(l), &key(p))
            .with_max_contents(wireseal::bip324::MAX_CONTENTS_LEN);
        let idx: u64 = col(&row, "in_idx").parse().unwrap();
        tx.advance(idx).unwrap();
        rx.advance(idx).unwrap();
        let contents =
            unhex(&col(&row, "in_contents")).repeat(col(&row, "in_multiply").parse().unwrap());
        let kind = if col(&row, "in_ignore") == "1" {
            PacketType::Decoy
        } else {
            PacketType::Genuine
        };
        let packets = [Outgoing {
            len: contents.len() as u32,
            kind,
        }];
        let mut engine = host_engine(Config::default(), 1, 16, 16);
        let mut out = Vec::new();
        let mut jobs = [SealJob {
            sender: &mut tx,
            contents: &contents,
            packets: &packets,
            out: &mut out,
            result: Ok(0),
        }];
        let report = engine.seal(&mut jobs);
        assert_eq!((jobs[0].result, report.gpu_packets), (Ok(1), 1));
        let full = col(&row, "out_ciphertext");
        let tail = col(&row, "out_ciphertext_endswith");
        if !full.is_empty() {
            assert_eq!(hex::encode(&out), full);
        } else {
            assert!(hex::encode(&out).ends_with(&tail), "in_idx {idx}");
        }
        let mut opened: Vec<OpenedRange> = Vec::new();
        let mut jobs = [OpenJob {
            receiver: &mut rx,
            wire: &mut out,
            opened: &mut opened,
            result: Ok(0),
        }];
        let report = engine.open(&mut jobs);
        assert_eq!((jobs[0].result, report.gpu_packets), (Ok(1), 1));
        assert_eq!(opened[0].kind, kind);
        assert!(out[opened[0].offset..opened[0].offset + opened[0].len] == contents[..]);
        checked += 1;
    }
    assert_eq!(checked, 6);
}
