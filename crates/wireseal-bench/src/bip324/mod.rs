//! BIP324 v2 transport: mixed-profile round trips (one core, all cores),
//! handshakes with and without the key pool, a per-size table, and a node
//! with 125 peers, each next to the `bip324` crate (rust-bitcoin) measured
//! in the same run. Built without the `rust-peers` feature, every row still
//! prints our figure and says `skipped:` where the crate's would be.
//!
//! This module holds what the rows share (the in-memory handshake, a
//! lane of sessions, the crate's name); the rows are one core's round
//! trips ([`one_core`]), lanes across cores ([`lanes`]), handshakes
//! ([`handshake`]), a node with 125 peers ([`node`]) and the report's
//! curves ([`curve`]).

/// The crate's figure when the bench was built with it (before the
/// modules, which use it).
macro_rules! theirs {
    ($f:expr) => {{
        #[cfg(feature = "rust-peers")]
        let f = Some($f);
        #[cfg(not(feature = "rust-peers"))]
        let f: Option<fn() -> usize> = None;
        f
    }};
}

mod curve;
mod handshake;
mod lanes;
mod node;
mod one_core;
#[cfg(feature = "rust-peers")]
mod peer;

use crate::{Ctx, Row};
use wireseal::batch::Batch;
use wireseal::bip324::batch::{open_job, seal_job, OpenJob, OpenedRange, SealJob};
use wireseal::bip324::handshake::{GarbageRead, Handshake, KeyRead, VersionRead};
use wireseal::bip324::{Network, Session};
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
    let sizes = mixed_sizes(324, 8192);
    let mut one = one_core::OneCore::new();
    let mut rows = one.mixed_rows(ctx, &sizes);
    rows.extend(lanes::rows(ctx, &sizes, &one.data));
    rows.extend(handshake::rows(ctx));
    rows.extend(one.size_rows(ctx));
    rows.extend(node::rows(ctx, &sizes));
    rows.extend(curve::rows(ctx));
    crate::peers::rust_peers::mark_skipped(rows, CRATE)
}
