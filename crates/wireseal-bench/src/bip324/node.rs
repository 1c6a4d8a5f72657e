//! A BIP324 node with 125 peers (Bitcoin Core's default number of
//! connections) exchanging the mixed test-traffic profile, batched across
//! peers.
//!
//! Each round every peer has sealed a run of [`PER_ROUND`] packets for the
//! node (not timed: the peers are other machines). The node then opens all
//! 125 runs in one batch across its cores and seals a reply of the same
//! sizes to every peer in a second batch (timed), and the peers open the
//! replies (not timed), so every session stays in step. The figure is the
//! packets the node handles, received plus sent, per second on all cores.
//!
//! Beside it, on the same packets and cores, in the same rounds: the
//! `bip324` crate doing the node's half for each peer, and the lower
//! bound: the same packets through ChaCha20-Poly1305 alone (one AEAD open
//! or seal per packet; no length cipher, no rekeying, no framing), the
//! work no BIP324 node can skip.

use super::{our_handshake, CRATE, S};
use crate::timing::median;
use crate::{Better, Ctx, Row};
use std::time::{Duration, Instant};
use wireseal::batch::Batch;
use wireseal::bip324::batch::{open_batch_into, seal_batch_into, OpenJob, OpenedRange, SealJob};
use wireseal::bip324::Session;
use wireseal::hazmat::chacha20poly1305::{ChaChaKey, TAG_LEN};
use wireseal::keys::EllSwiftKeypair;

/// Peers of the node.
const PEERS: usize = 125;
/// Packets each peer sends per round (and gets back).
const PER_ROUND: usize = 8;

/// One peer's sizes and contents for a round, the same every round.
struct Traffic {
    sizes: Vec<u32>,
    data: Vec<u8>,
}

impl Traffic {
    fn all(sizes: &[u32]) -> Vec<Traffic> {
        sizes
            .chunks(PER_ROUND)
            .take(PEERS)
            .map(|s| Traffic {
                sizes: s.to_vec(),
                data: (0..s.iter().sum::<u32>()).map(|i| i as u8).collect(),
            })
            .collect()
    }
}

/// One of our sessions seen from both ends, with its buffers.
struct OurLink {
    peer: Session,
    node: Session,
    to_node: Vec<u8>,
    to_peer: Vec<u8>,
    opened: Vec<OpenedRange>,
}

fn seal_all(batch: &Batch, jobs: &mut [SealJob<'_>]) {
    seal_batch_into(batch, jobs);
    assert!(
        jobs.iter().all(|j| j.result == Ok(PER_ROUND)),
        "seal failed"
    );
}

fn open_all(batch: &Batch, jobs: &mut [OpenJob<'_>]) {
    open_batch_into(batch, jobs);
    assert!(
        jobs.iter().all(|j| j.result == Ok(PER_ROUND)),
        "open failed"
    );
}

/// One round of ours; the node's time.
fn our_round(batch: &Batch, links: &mut [OurLink], traffic: &[Traffic]) -> Duration {
    let mut jobs: Vec<SealJob> = links
        .iter_mut()
        .zip(traffic)
        .map(|(l, t)| {
            l.to_node.clear();
            SealJob {
                sender: &mut l.peer.sender,
                contents: &t.data,
                sizes: &t.sizes,
                out: &mut l.to_node,
                result: Ok(0),
            }
        })
        .collect();
    seal_all(batch, &mut jobs);
    let t0 = Instant::now();
    let mut jobs: Vec<OpenJob> = links
        .iter_mut()
        .map(|l| OpenJob {
            receiver: &mut l.node.receiver,
            wire: &mut l.to_node,
            opened: &mut l.opened,
            result: Ok(0),
        })
        .collect();
    open_all(batch, &mut jobs);
    let mut jobs: Vec<SealJob> = links
        .iter_mut()
        .zip(traffic)
        .map(|(l, t)| {
            l.to_peer.clear();
            SealJob {
                sender: &mut l.node.sender,
                contents: &t.data,
                sizes: &t.sizes,
                out: &mut l.to_peer,
                result: Ok(0),
            }
        })
        .collect();
    seal_all(batch, &mut jobs);
    let node = t0.elapsed();
    let mut jobs: Vec<OpenJob> = links
        .iter_mut()
        .map(|l| OpenJob {
            receiver: &mut l.peer.receiver,
            wire: &mut l.to_peer,
            opened: &mut l.opened,
            result: Ok(0),
        })
        .collect();
    open_all(batch, &mut jobs);
    node
}

/// One direction of the lower bound: a ChaCha20-Poly1305 key and a
/// counter nonce.
struct Aead {
    key: ChaChaKey,
    n: u64,
}

impl Aead {
    fn new(k: u8) -> Self {
        Self {
            key: ChaChaKey::new(&[k; 32]),
            n: 0,
        }
    }

    fn nonce(&mut self) -> [u8; 12] {
        let mut nonce = [0u8; 12];
        nonce[4..].copy_from_slice(&self.n.to_le_bytes());
        self.n += 1;
        nonce
    }

    /// Appends `contents || tag` for every size.
    fn seal(&mut self, t: &Traffic, wire: &mut Vec<u8>) {
        let mut from = 0;
        for &s in &t.sizes {
            let s = s as usize;
            let at = wire.len();
            wire.extend_from_slice(&t.data[from..from + s]);
            let nonce = self.nonce();
            let tag = self.key.seal_in_place(&nonce, b"", &mut wire[at..]);
            wire.extend_from_slice(&tag);
            from += s;
        }
    }

    /// Opens every `contents || tag` of `wire` in place.
    fn open(&mut self, t: &Traffic, wire: &mut [u8]) {
        let mut at = 0;
        for &s in &t.sizes {
            let end = at + s as usize + TAG_LEN;
            let nonce = self.nonce();
            self.key
                .open_in_place(&nonce, b"", &mut wire[at..end])
                .expect("the floor's own packets open");
            at = end;
        }
    }
}

/// One peer of the lower bound.
struct FloorLink {
    up: (Aead, Aead),
    down: (Aead, Aead),
    to_node: Vec<u8>,
    to_peer: Vec<u8>,
}

/// One round of the lower bound; the node's time.
fn floor_round(batch: &Batch, links: &mut [(FloorLink, &Traffic)]) -> Duration {
    batch.for_each_mut_coarse(links, |(l, t)| {
        l.to_node.clear();
        l.up.0.seal(t, &mut l.to_node);
    });
    let t0 = Instant::now();
    batch.for_each_mut_coarse(links, |(l, t)| l.up.1.open(t, &mut l.to_node));
    batch.for_each_mut_coarse(links, |(l, t)| {
        l.to_peer.clear();
        l.down.0.seal(t, &mut l.to_peer);
    });
    let node = t0.elapsed();
    batch.for_each_mut_coarse(links, |(l, t)| l.down.1.open(t, &mut l.to_peer));
    node
}

#[cfg(feature = "rust-peers")]
mod theirs {
    use super::super::peer::{open_run, seal_run, Pair};
    use super::Traffic;
    use std::time::{Duration, Instant};
    use wireseal::batch::Batch;

    /// One of the crate's sessions (initiator = the peer, responder = the
    /// node) with its buffers.
    pub(super) struct Link {
        pair: Pair,
        to_node: Vec<u8>,
        to_peer: Vec<u8>,
    }

    impl Link {
        pub(super) fn new() -> Self {
            Self {
                pair: Pair::new(),
                to_node: Vec::new(),
                to_peer: Vec::new(),
            }
        }
    }

    /// One round of the crate's; the node's time.
    pub(super) fn round(batch: &Batch, links: &mut [(Link, &Traffic)]) -> Duration {
        batch.for_each_mut_coarse(links, |(l, t)| {
            l.to_node.clear();
            seal_run(&mut l.pair.0, &t.sizes, &t.data, &mut l.to_node);
        });
        let t0 = Instant::now();
        batch.for_each_mut_coarse(links, |(l, _)| {
            open_run(&mut l.pair.1, &mut l.to_node);
        });
        batch.for_each_mut_coarse(links, |(l, t)| {
            l.to_peer.clear();
            seal_run(&mut l.pair.1, &t.sizes, &t.data, &mut l.to_peer);
        });
        let node = t0.elapsed();
        batch.for_each_mut_coarse(links, |(l, t)| {
            let got = open_run(&mut l.pair.0, &mut l.to_peer);
            assert_eq!(
                got,
                t.data.len() + t.sizes.len(),
                "the crate's replies open"
            );
        });
        node
    }
}

/// The node's rows on the mixed profile `sizes`: ours against the lower
/// bound, and against the crate.
pub(super) fn rows(ctx: &Ctx, sizes: &[u32]) -> Vec<Row> {
    let (node_ours, node_crate, node_floor) = rates(ctx.full, ctx.samples(), sizes);
    let workload = format!(
        "node, {PEERS} peers x {PER_ROUND} mixed pkts/round, batched across peers, all cores"
    );
    vec![
        Row::new(
            S,
            workload.clone(),
            "pkt/s",
            Better::Higher,
            node_ours,
            "lower bound: ChaCha20-Poly1305 alone, same packets",
            Some(node_floor),
        ),
        Row::new(
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
        ),
    ]
}

/// The node's packets per second on all cores: (ours, the crate's when
/// built with it, the lower bound), sampled in rounds that run all three
/// in turn so load drift hits each alike.
fn rates(full: bool, samples: usize, sizes: &[u32]) -> (f64, Option<f64>, f64) {
    let batch = Batch::all_cores();
    let traffic = Traffic::all(sizes);
    assert_eq!(traffic.len(), PEERS, "enough sizes for every peer");
    let mut ours: Vec<OurLink> = (0..PEERS)
        .map(|_| {
            let (peer, node) =
                our_handshake(EllSwiftKeypair::generate(), EllSwiftKeypair::generate());
            OurLink {
                peer,
                node,
                to_node: Vec::new(),
                to_peer: Vec::new(),
                opened: Vec::with_capacity(PER_ROUND),
            }
        })
        .collect();
    let mut floor: Vec<(FloorLink, &Traffic)> = traffic
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let link = FloorLink {
                up: (Aead::new(i as u8), Aead::new(i as u8)),
                down: (Aead::new(!(i as u8)), Aead::new(!(i as u8))),
                to_node: Vec::new(),
                to_peer: Vec::new(),
            };
            (link, t)
        })
        .collect();
    #[cfg(feature = "rust-peers")]
    let mut crate_links: Vec<(theirs::Link, &Traffic)> =
        traffic.iter().map(|t| (theirs::Link::new(), t)).collect();
    let rounds = if full { 60 } else { 15 };
    let per_round = (2 * PEERS * PER_ROUND) as f64;
    let (mut o, mut c, mut f) = (Vec::new(), Vec::new(), Vec::new());
    // One warm-up round each: buffers reach their size, pages are touched;
    // ours is checked end to end (the replies the peers opened are what
    // was sent).
    our_round(&batch, &mut ours, &traffic);
    for (l, t) in ours.iter().zip(&traffic) {
        let got: Vec<u8> = l
            .opened
            .iter()
            .flat_map(|r| &l.to_peer[r.offset..r.offset + r.len])
            .copied()
            .collect();
        assert_eq!(got, t.data, "a reply differs from what was sealed");
    }
    floor_round(&batch, &mut floor);
    #[cfg(feature = "rust-peers")]
    theirs::round(&batch, &mut crate_links);
    for _ in 0..samples {
        let mut t = Duration::ZERO;
        for _ in 0..rounds {
            t += our_round(&batch, &mut ours, &traffic);
        }
        o.push(per_round * rounds as f64 / t.as_secs_f64());
        #[cfg(feature = "rust-peers")]
        {
            let mut t = Duration::ZERO;
            for _ in 0..rounds {
                t += theirs::round(&batch, &mut crate_links);
            }
            c.push(per_round * rounds as f64 / t.as_secs_f64());
        }
        let mut t = Duration::ZERO;
        for _ in 0..rounds {
            t += floor_round(&batch, &mut floor);
        }
        f.push(per_round * rounds as f64 / t.as_secs_f64());
    }
    let theirs = (!c.is_empty()).then(|| median(&mut c));
    (median(&mut o), theirs, median(&mut f))
}
