//! BIP324 v2 transport: mixed-profile round trips (one core, all cores),
//! handshakes with and without the key pool, a per-size table, and a node
//! with 125 peers, each next to the `bip324` crate (rust-bitcoin) measured
//! in the same run. Built without the `rust-peers` feature, every row still
//! prints our figure and says `skipped:` where the crate's would be.

mod curve;
mod node;
#[cfg(feature = "rust-peers")]
mod peer;

use super::{Better, Ctx, Row};
use std::hint::black_box;
use std::time::Instant;
use wireseal::batch::Batch;
use wireseal::bip324::batch::{open_job, seal_job, OpenJob, OpenedRange, SealJob};
use wireseal::bip324::handshake::{GarbageRead, Handshake, KeyRead, VersionRead};
use wireseal::bip324::{Network, Next, PacketType, Session};
use wireseal::keys::EllSwiftKeypair;
use wireseal_io::traffic::mixed_sizes;

const S: &str = "bip324";

/// The peer's name, or why it is missing.
#[cfg(feature = "rust-peers")]
const CRATE: &str = peer::NAME;
#[cfg(not(feature = "rust-peers"))]
const CRATE: &str = "skipped: built without rust-peers";
/// Packets a lane seals and then opens at a time: about 22 KB of wire at
/// the mixed profile's mean, so a lane's buffer stays in its core's cache.
const RUN: usize = 64;
/// Packets per lane per pass.
const LANE: usize = 512;

/// The crate's figure when the bench was built with it.
macro_rules! theirs {
    ($f:expr) => {{
        #[cfg(feature = "rust-peers")]
        let f = Some($f);
        #[cfg(not(feature = "rust-peers"))]
        let f: Option<fn() -> usize> = None;
        f
    }};
}

/// One full in-memory handshake, both sides, with the given keys; returns
/// (initiator, responder) sessions.
pub(crate) fn our_handshake(ka: EllSwiftKeypair, kb: EllSwiftKeypair) -> (Session, Session) {
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

fn finish(h: Handshake<wireseal::bip324::handshake::VersionSent>, input: &mut [u8]) -> Session {
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

/// Our round trip of every packet in `sizes` (seal then open).
fn our_rt(a: &mut Session, b: &mut Session, sizes: &[u32], data: &[u8], buf: &mut [u8]) -> usize {
    let mut got = 0;
    for &s in sizes {
        let s = s as usize;
        let n = a
            .seal_into(&data[..s], PacketType::Genuine, buf)
            .expect("seal");
        let Ok(Next::Packet { packet, .. }) = b.open_next(&mut buf[..n]) else {
            panic!("our round trip failed");
        };
        got += packet.contents.len();
    }
    got
}

/// Packets per second of ours and (when present) of the crate, each
/// handling `n` packets per call, sampled alternately.
fn rates(
    ctx: &Ctx,
    n: usize,
    ours: impl FnMut() -> usize,
    theirs: Option<impl FnMut() -> usize>,
) -> (f64, Option<f64>) {
    match theirs {
        Some(t) => {
            let (ta, tb) = ctx.time_pair_per_op(ours, t);
            (n as f64 / ta, Some(n as f64 / tb))
        }
        None => (n as f64 / ctx.time_per_op(ours), None),
    }
}

/// Handshake figures, both sides, in µs: (ours with the key pool, ours with
/// fresh keys, the crate, the floor). Sampled in rounds that measure all four
/// in turn, so load drift hits each alike. The floor is the elliptic-curve
/// work no handshake can skip: one BIP324 ECDH per side.
fn handshake_times(ctx: &Ctx) -> (f64, f64, Option<f64>, f64) {
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
        #[cfg(feature = "rust-peers")]
        {
            let t = Instant::now();
            for _ in 0..per {
                black_box(peer::Pair::new());
            }
            theirs.push(t.elapsed().as_secs_f64() / per_f);
        }
        let t = Instant::now();
        for _ in 0..per {
            black_box(ka.bip324_ecdh(ka.encoding(), kb.encoding(), true));
            black_box(kb.bip324_ecdh(ka.encoding(), kb.encoding(), false));
        }
        floor.push(t.elapsed().as_secs_f64() / per_f);
    }
    let m = |v: &mut Vec<f64>| super::timing::median(v) * 1e6;
    let theirs = (!theirs.is_empty()).then(|| m(&mut theirs));
    (m(&mut pooled), m(&mut fresh), theirs, m(&mut floor))
}

/// One independent session pair with its buffers, reused across passes.
pub(super) struct Lane {
    a: Session,
    b: Session,
    wire: Vec<u8>,
    opened: Vec<OpenedRange>,
}

impl Lane {
    pub(super) fn new() -> Self {
        let (a, b) = our_handshake(EllSwiftKeypair::generate(), EllSwiftKeypair::generate());
        Self {
            a,
            b,
            wire: Vec::new(),
            opened: Vec::with_capacity(RUN),
        }
    }

    /// Seals then opens `sizes` in runs of [`RUN`] packets.
    fn round_trip(&mut self, sizes: &[u32], data: &[u8]) {
        let mut from = 0usize;
        for run in sizes.chunks(RUN) {
            let len: usize = run.iter().map(|&s| s as usize).sum();
            self.wire.clear();
            let mut sj = SealJob {
                sender: &mut self.a.sender,
                contents: &data[from..from + len],
                sizes: run,
                out: &mut self.wire,
                result: Ok(0),
            };
            seal_job(&mut sj);
            assert_eq!(sj.result, Ok(run.len()), "batch seal failed");
            let mut oj = OpenJob {
                receiver: &mut self.b.receiver,
                wire: &mut self.wire,
                opened: &mut self.opened,
                result: Ok(0),
            };
            open_job(&mut oj);
            assert_eq!(oj.result, Ok(run.len()), "batch round trip failed");
            from += len;
        }
    }
}

/// Every lane's round trip, lanes spread by the caller's `batch`.
pub(super) fn lanes_rt(batch: &Batch, lanes: &mut [Lane], sizes: &[u32], data: &[u8]) -> usize {
    batch.for_each_mut_coarse(lanes, |l| l.round_trip(sizes, data));
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
    #[cfg(feature = "rust-peers")]
    let mut pp = peer::Pair::new();
    #[cfg(feature = "rust-peers")]
    let mut buf2 = buf.clone();
    let (ours1, theirs1) = rates(
        ctx,
        sizes.len(),
        || our_rt(&mut a, &mut b, &sizes, &data, &mut buf),
        theirs!(|| pp.rt(&sizes, &data, &mut buf2)),
    );
    rows.push(
        Row::new(
            S,
            "mixed round trip, 1 core",
            "pkt/s",
            Better::Higher,
            ours1,
            CRATE,
            theirs1,
        )
        .seed("715,000 pkt/s (CPU seed)"),
    );
    let (ours1_vec, theirs_vec) = rates(
        ctx,
        sizes.len(),
        || our_rt(&mut a, &mut b, &sizes, &data, &mut buf),
        theirs!(|| pp.rt_vec(&sizes, &data)),
    );
    rows.push(Row::new(
        S,
        "mixed round trip, 1 core",
        "pkt/s",
        Better::Higher,
        ours1_vec,
        if theirs_vec.is_some() {
            format!("{CRATE} (Vec API)")
        } else {
            CRATE.to_string()
        },
        theirs_vec,
    ));
    rows.push(Row::new(
        S,
        format!("mixed goodput, 1 core ({mean:.0} B avg)"),
        "MB/s",
        Better::Higher,
        ours1 * mean / 1e6,
        CRATE,
        theirs1.map(|t| t * mean / 1e6),
    ));

    // Independent sessions across cores, each lane sealing then opening its
    // packets in runs of RUN; one core and all cores on the same lanes'
    // shape, both through a Batch.
    let all = Batch::all_cores();
    let one = Batch::with_threads(1);
    let threads = all.threads();
    let per_lane = &sizes[..LANE];
    // Our seal jobs take every packet's contents back to back.
    let lane_data: Vec<u8> = (0..per_lane.iter().map(|&x| x as usize).sum::<usize>())
        .map(|i| i as u8)
        .collect();
    let n_lanes = threads * 32;
    let mut lanes: Vec<Lane> = (0..n_lanes).map(|_| Lane::new()).collect();
    let mut lanes1: Vec<Lane> = (0..n_lanes).map(|_| Lane::new()).collect();
    let n_all = n_lanes * per_lane.len();
    let (ours_all, ours_lanes1) = ctx.time_pair_per_op(
        || lanes_rt(&all, &mut lanes, per_lane, &lane_data),
        || lanes_rt(&one, &mut lanes1, per_lane, &lane_data),
    );
    let (ours_all, ours_lanes1) = (n_all as f64 / ours_all, n_all as f64 / ours_lanes1);
    #[cfg(feature = "rust-peers")]
    let (theirs_all, theirs_lanes1) = {
        let lane_cap = wireseal::bip324::batch::wire_len(&per_lane[..RUN]);
        let mut crate_lanes: Vec<(peer::Pair, Vec<u8>)> = (0..n_lanes)
            .map(|_| (peer::Pair::new(), Vec::with_capacity(lane_cap)))
            .collect();
        let mut crate_lanes1: Vec<(peer::Pair, Vec<u8>)> = (0..n_lanes)
            .map(|_| (peer::Pair::new(), Vec::with_capacity(lane_cap)))
            .collect();
        let crate_pass = |b: &Batch, lanes: &mut [(peer::Pair, Vec<u8>)]| {
            b.for_each_mut_coarse(lanes, |(p, w)| {
                for run in per_lane.chunks(RUN) {
                    black_box(p.lane(run, &data, w));
                }
            });
            n_all
        };
        let (t_all, t1) = ctx.time_pair_per_op(
            || crate_pass(&all, &mut crate_lanes),
            || crate_pass(&one, &mut crate_lanes1),
        );
        (Some(n_all as f64 / t_all), Some(n_all as f64 / t1))
    };
    #[cfg(not(feature = "rust-peers"))]
    let (theirs_all, theirs_lanes1): (Option<f64>, Option<f64>) = (None, None);
    rows.push(
        Row::new(
            S,
            format!("mixed batch ({LANE}/lane, seal+open runs of {RUN}), 1 core"),
            "pkt/s",
            Better::Higher,
            ours_lanes1,
            CRATE,
            theirs_lanes1,
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
            if theirs_all.is_some() {
                format!("{CRATE}, all cores")
            } else {
                CRATE.to_string()
            },
            theirs_all,
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
            crate_hs,
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
            crate_hs,
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
            theirs!(|| pp.rt(&sz, &data, &mut buf2)),
        );
        rows.push(Row::new(
            S,
            format!("round trip, {size} B contents"),
            "pkt/s",
            Better::Higher,
            o,
            CRATE,
            t,
        ));
    }
    // A node with 125 peers, batched across them.
    let (node_ours, node_crate, node_floor) = node::rates(ctx.full, ctx.samples(), &sizes);
    let workload = format!(
        "node, {} peers x {} mixed pkts/round, batched across peers, all cores",
        node::PEERS,
        node::PER_ROUND
    );
    rows.push(Row::new(
        S,
        workload.clone(),
        "pkt/s",
        Better::Higher,
        node_ours,
        "lower bound: ChaCha20-Poly1305 alone, same packets",
        Some(node_floor),
    ));
    rows.push(Row::new(
        S,
        workload,
        "pkt/s",
        Better::Higher,
        node_ours,
        if node_crate.is_some() {
            format!("{CRATE}, all cores")
        } else {
            CRATE.to_string()
        },
        node_crate,
    ));
    rows.extend(curve::rows(ctx));
    crate::peers::rust_peers::mark_skipped(rows, CRATE)
}
