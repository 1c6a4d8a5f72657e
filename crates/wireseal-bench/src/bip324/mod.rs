//! BIP324 v2 transport: mixed-profile round trips (one core, all cores),
//! handshakes with and without the key pool, and a per-size table, each
//! next to the `bip324` crate (rust-bitcoin) measured in the same run.

use super::{Better, Ctx, Row};
use crate::traffic::mixed_sizes;
use ::bip324 as peer;
use std::hint::black_box;
use std::time::Instant;
use wireseal::batch::Batch;
use wireseal::bip324::batch::{open_job, seal_job, OpenJob, SealJob};
use wireseal::bip324::{
    EllSwiftKeypair, GarbageRead, Handshake, KeyRead, Network, Next, Session, VersionRead,
};

const S: &str = "bip324";
const CRATE: &str = "bip324 crate 0.11";
const MAGIC: [u8; 4] = [0xf9, 0xbe, 0xb4, 0xd9];

/// One full in-memory handshake, both sides, with the given keys; returns
/// (initiator, responder) sessions.
fn our_handshake(ka: EllSwiftKeypair, kb: EllSwiftKeypair) -> (Session, Session) {
    let net = Network::MAINNET;
    let (mut a_out, mut b_out) = (Vec::with_capacity(256), Vec::with_capacity(256));
    let a = Handshake::initiator(net, ka, b"")
        .expect("no garbage")
        .write_key(&mut a_out);
    let b = Handshake::responder(net, kb, b"")
        .expect("no garbage")
        .write_key(&mut b_out);
    let KeyRead::Derived { handshake: a, .. } = a.read_key(&b_out) else {
        unreachable!("whole key given")
    };
    let KeyRead::Derived { handshake: b, .. } = b.read_key(&a_out) else {
        unreachable!("whole key given")
    };
    let a = a.write_version(&[], &mut a_out).expect("version");
    let b = b.write_version(&[], &mut b_out).expect("version");
    (finish(a, &mut b_out[64..]), finish(b, &mut a_out[64..]))
}

fn finish(h: Handshake<wireseal::bip324::VersionSent>, input: &mut [u8]) -> Session {
    let Ok(GarbageRead::Found {
        handshake: mut h,
        consumed: mut at,
    }) = h.read_garbage(input)
    else {
        unreachable!("terminator present")
    };
    loop {
        match h.read_version(&mut input[at..]).expect("valid version") {
            VersionRead::Decoy(n, c) => {
                h = n;
                at += c;
            }
            VersionRead::Done { session, .. } => return session,
            VersionRead::NeedMore(..) => unreachable!("whole message given"),
        }
    }
}

/// The crate's full handshake, both sides, in memory.
fn crate_handshake() -> (peer::CipherSession, peer::CipherSession) {
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
    (crate_finish(a, &vb), crate_finish(b, &va))
}

fn crate_finish(h: peer::Handshake<peer::SentVersion>, msg: &[u8]) -> peer::CipherSession {
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

/// Our round trip of every packet in `sizes` (seal then open).
fn our_rt(a: &mut Session, b: &mut Session, sizes: &[u32], data: &[u8], buf: &mut [u8]) -> usize {
    let mut got = 0;
    for &s in sizes {
        let s = s as usize;
        let n = a.seal_into(&data[..s], false, buf).expect("seal");
        let Ok(Next::Packet { packet, .. }) = b.open_next(&mut buf[..n]) else {
            panic!("our round trip failed");
        };
        got += packet.contents.len();
    }
    got
}

/// The crate's round trip, zero-allocation API.
fn crate_rt(
    a: &mut peer::CipherSession,
    b: &mut peer::CipherSession,
    sizes: &[u32],
    data: &[u8],
    buf: &mut [u8],
) -> usize {
    let mut got = 0;
    for &s in sizes {
        let s = s as usize;
        let n = peer::OutboundCipher::encryption_buffer_len(s);
        a.outbound()
            .encrypt(&data[..s], &mut buf[..n], peer::PacketType::Genuine, None)
            .expect("encrypt");
        let len = b
            .inbound()
            .decrypt_packet_len(buf[..3].try_into().expect("3"));
        let (_, pt) = b
            .inbound()
            .decrypt_in_place(&mut buf[3..3 + len], None)
            .expect("the crate's round trip");
        got += pt.len();
    }
    got
}

/// The crate's side of one lane: seal every packet into `wire`, then open
/// them all (the same shape as our batch jobs).
fn crate_lane(
    a: &mut peer::CipherSession,
    b: &mut peer::CipherSession,
    sizes: &[u32],
    data: &[u8],
    wire: &mut Vec<u8>,
) -> usize {
    wire.clear();
    for &s in sizes {
        let s = s as usize;
        let at = wire.len();
        let n = peer::OutboundCipher::encryption_buffer_len(s);
        wire.resize(at + n, 0);
        a.outbound()
            .encrypt(&data[..s], &mut wire[at..], peer::PacketType::Genuine, None)
            .expect("encrypt");
    }
    let mut at = 0;
    let mut got = 0;
    while at < wire.len() {
        let len = b
            .inbound()
            .decrypt_packet_len(wire[at..at + 3].try_into().expect("3"));
        let (_, pt) = b
            .inbound()
            .decrypt_in_place(&mut wire[at + 3..at + 3 + len], None)
            .expect("the crate's round trip");
        got += pt.len();
        at += 3 + len;
    }
    got
}

/// The crate's round trip through its allocating convenience API
/// (`encrypt_to_vec` / `decrypt_to_vec`, what its `io` layer uses).
fn crate_rt_vec(
    a: &mut peer::CipherSession,
    b: &mut peer::CipherSession,
    sizes: &[u32],
    data: &[u8],
) -> usize {
    let mut got = 0;
    for &s in sizes {
        let wire =
            a.outbound()
                .encrypt_to_vec(&data[..s as usize], peer::PacketType::Genuine, None);
        let len = b
            .inbound()
            .decrypt_packet_len(wire[..3].try_into().expect("3"));
        let (_, pt) = b
            .inbound()
            .decrypt_to_vec(&wire[3..3 + len], None)
            .expect("the crate's round trip");
        got += pt.len();
    }
    got
}

/// Packets per second of `a` and of `b`, each handling `n` packets per call,
/// sampled alternately.
fn rates(ctx: &Ctx, n: usize, a: impl FnMut() -> usize, b: impl FnMut() -> usize) -> (f64, f64) {
    let (ta, tb) = ctx.time_pair_per_op(a, b);
    (n as f64 / ta, n as f64 / tb)
}

/// Handshake figures, both sides, in µs: (ours with the key pool, ours with
/// fresh keys, the crate, the floor). Sampled in rounds that measure all four
/// in turn, so load drift hits each alike. The floor is the elliptic-curve
/// work no handshake can skip: one BIP324 ECDH per side.
fn handshake_times(ctx: &Ctx) -> (f64, f64, f64, f64) {
    let per = if ctx.full { 400 } else { 120 };
    let per_f = per as f64;
    let (mut pooled, mut fresh, mut theirs, mut floor) = (vec![], vec![], vec![], vec![]);
    let pool = wireseal::bip324::KeyPool::new(2 * per);
    let (ka, kb) = (EllSwiftKeypair::generate(), EllSwiftKeypair::generate());
    for _ in 0..ctx.samples().min(5) {
        // Keys made outside the timed part, as a driver's background task does.
        pool.fill();
        let t = Instant::now();
        for _ in 0..per {
            black_box(our_handshake(pool.take(), pool.take()));
        }
        pooled.push(t.elapsed().as_secs_f64() / per_f);
        let t = Instant::now();
        for _ in 0..per {
            black_box(our_handshake(
                EllSwiftKeypair::generate(),
                EllSwiftKeypair::generate(),
            ));
        }
        fresh.push(t.elapsed().as_secs_f64() / per_f);
        let t = Instant::now();
        for _ in 0..per {
            black_box(crate_handshake());
        }
        theirs.push(t.elapsed().as_secs_f64() / per_f);
        let t = Instant::now();
        for _ in 0..per {
            black_box(ka.bip324_ecdh(ka.encoding(), kb.encoding(), true));
            black_box(kb.bip324_ecdh(ka.encoding(), kb.encoding(), false));
        }
        floor.push(t.elapsed().as_secs_f64() / per_f);
    }
    let m = |v: &mut Vec<f64>| super::timing::median(v) * 1e6;
    (m(&mut pooled), m(&mut fresh), m(&mut theirs), m(&mut floor))
}

/// All-cores mixed round trips: `jobs` independent session pairs, each
/// sealing then opening its share, jobs spread by `batch`.
struct Lane {
    a: Session,
    b: Session,
    out: Vec<u8>,
    opened: Vec<(usize, usize, bool)>,
}

fn lanes_rt(lanes: &mut [Lane], batch: Option<&Batch>, sizes: &[u32], data: &[u8]) -> usize {
    let job = |l: &mut Lane| {
        l.out.clear();
        let mut sj = SealJob {
            sender: &mut l.a.sender,
            contents: data,
            sizes,
            out: &mut l.out,
            result: Ok(0),
        };
        seal_job(&mut sj);
        assert_eq!(sj.result, Ok(sizes.len()), "batch seal failed");
        let mut oj = OpenJob {
            receiver: &mut l.b.receiver,
            wire: &mut l.out,
            opened: &mut l.opened,
            result: Ok(0),
        };
        open_job(&mut oj);
        assert_eq!(oj.result, Ok(sizes.len()), "batch round trip failed");
    };
    match batch {
        Some(b) => b.for_each_mut_coarse(lanes, job),
        None => lanes.iter_mut().for_each(job),
    }
    lanes.len() * sizes.len()
}

/// Runs the section.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    let mut rows = Vec::new();
    let sizes = mixed_sizes(324, 8192);
    let mean = sizes.iter().map(|&s| s as f64).sum::<f64>() / sizes.len() as f64;
    let data: Vec<u8> = (0..65536usize).map(|i| i as u8).collect();
    let mut buf = vec![0u8; 65536 + 64];

    // One core, mixed profile.
    let (mut a, mut b) = our_handshake(EllSwiftKeypair::generate(), EllSwiftKeypair::generate());
    let (mut pa, mut pb) = crate_handshake();
    let mut buf2 = buf.clone();
    let (ours1, theirs1) = rates(
        ctx,
        sizes.len(),
        || our_rt(&mut a, &mut b, &sizes, &data, &mut buf),
        || crate_rt(&mut pa, &mut pb, &sizes, &data, &mut buf2),
    );
    rows.push(
        Row::new(
            S,
            "mixed round trip, 1 core",
            "pkt/s",
            Better::Higher,
            ours1,
            CRATE,
            Some(theirs1),
        )
        .seed("715,000 pkt/s (CPU seed)"),
    );
    let (ours1_vec, theirs_vec) = rates(
        ctx,
        sizes.len(),
        || our_rt(&mut a, &mut b, &sizes, &data, &mut buf),
        || crate_rt_vec(&mut pa, &mut pb, &sizes, &data),
    );
    rows.push(Row::new(
        S,
        "mixed round trip, 1 core",
        "pkt/s",
        Better::Higher,
        ours1_vec,
        format!("{CRATE} (Vec API)"),
        Some(theirs_vec),
    ));
    rows.push(Row::new(
        S,
        format!("mixed goodput, 1 core ({mean:.0} B avg)"),
        "MB/s",
        Better::Higher,
        ours1 * mean / 1e6,
        CRATE,
        Some(theirs1 * mean / 1e6),
    ));

    // All cores: independent sessions, one lane per chunk of work.
    let batch = Batch::all_cores();
    let threads = batch.threads();
    let per_lane = &sizes[..512];
    // Our seal jobs take every packet's contents back to back.
    let lane_data: Vec<u8> = (0..per_lane.iter().map(|&x| x as usize).sum::<usize>())
        .map(|i| i as u8)
        .collect();
    // Enough lanes that the batch splits them over every thread (rayon
    // hands out at least 16 items per task).
    let n_lanes = threads * 32;
    let make_lanes = || -> Vec<Lane> {
        (0..n_lanes)
            .map(|_| {
                let (a, b) =
                    our_handshake(EllSwiftKeypair::generate(), EllSwiftKeypair::generate());
                Lane {
                    a,
                    b,
                    out: Vec::with_capacity(seal_len_sum(per_lane)),
                    opened: Vec::with_capacity(per_lane.len()),
                }
            })
            .collect()
    };
    let mut lanes = make_lanes();
    let mut lanes1 = make_lanes();
    let n_all = lanes.len() * per_lane.len();
    let (ours_all, ours_lanes1) = rates(
        ctx,
        n_all,
        || lanes_rt(&mut lanes, Some(&batch), per_lane, &lane_data),
        || lanes_rt(&mut lanes1, None, per_lane, &lane_data),
    );
    let make_crate_lanes = || -> Vec<(peer::CipherSession, peer::CipherSession, Vec<u8>)> {
        (0..n_lanes)
            .map(|_| {
                let (a, b) = crate_handshake();
                (a, b, Vec::with_capacity(seal_len_sum(per_lane)))
            })
            .collect()
    };
    let mut crate_lanes = make_crate_lanes();
    let mut crate_lanes1 = make_crate_lanes();
    let (theirs_all, theirs_lanes1) = rates(
        ctx,
        n_all,
        || {
            batch.for_each_mut_coarse(&mut crate_lanes, |(a, b, w)| {
                black_box(crate_lane(a, b, per_lane, &data, w));
            });
            n_all
        },
        || {
            for (a, b, w) in crate_lanes1.iter_mut() {
                black_box(crate_lane(a, b, per_lane, &data, w));
            }
            n_all
        },
    );
    rows.push(
        Row::new(
            S,
            "mixed batch (seal 512, open 512), 1 core",
            "pkt/s",
            Better::Higher,
            ours_lanes1,
            CRATE,
            Some(theirs_lanes1),
        )
        .seed("715,000 pkt/s (CPU seed)"),
    );
    rows.push(
        Row::new(
            S,
            format!("mixed batch, all cores ({threads} thr)"),
            "pkt/s",
            Better::Higher,
            ours_all,
            format!("{CRATE}, all cores"),
            Some(theirs_all),
        )
        .seed("21M pkt/s (GPU seed)"),
    );
    rows.push(Row::new(
        S,
        "mixed batch, all cores vs 1 core",
        "pkt/s",
        Better::Higher,
        ours_all,
        "wireseal batch, 1 core",
        Some(ours_lanes1),
    ));

    // Handshakes, both sides.
    let (pooled, fresh, crate_hs, hs_floor) = handshake_times(ctx);
    rows.push(
        Row::new(
            S,
            "handshake both sides, key pool",
            "µs",
            Better::Lower,
            pooled,
            CRATE,
            Some(crate_hs),
        )
        .seed("172 µs (seed)"),
    );
    rows.push(
        Row::new(
            S,
            "handshake both sides, fresh keys",
            "µs",
            Better::Lower,
            fresh,
            CRATE,
            Some(crate_hs),
        )
        .seed("172 µs (seed)"),
    );

    rows.push(Row::new(
        S,
        "handshake both sides, key pool, vs its floor",
        "µs",
        Better::Lower,
        pooled,
        "floor: 2 x BIP324 ECDH, same run",
        Some(hs_floor),
    ));

    // Per-size round trips.
    let quick = Ctx { full: false };
    let size_ctx = if ctx.full { ctx } else { &quick };
    for size in [0u32, 32, 64, 256, 1024, 4096, 65536] {
        let reps = if size >= 4096 { 16 } else { 256 };
        let sz = vec![size; reps];
        let (o, t) = rates(
            size_ctx,
            reps,
            || our_rt(&mut a, &mut b, &sz, &data, &mut buf),
            || crate_rt(&mut pa, &mut pb, &sz, &data, &mut buf2),
        );
        rows.push(Row::new(
            S,
            format!("round trip, {size} B contents"),
            "pkt/s",
            Better::Higher,
            o,
            CRATE,
            Some(t),
        ));
    }
    rows
}

fn seal_len_sum(sizes: &[u32]) -> usize {
    wireseal::bip324::batch::seal_job_len(sizes)
}
