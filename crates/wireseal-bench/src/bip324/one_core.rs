//! Round trips on one session pair, one core, next to the crate on its
//! own pair: the mixed profile (packets per second through the buffer API
//! and the crate's Vec API, and goodput), and a table by contents size.

use super::{our_handshake, CRATE, S};
use crate::{Better, Ctx, Row};
use wireseal::bip324::{Next, PacketType, Session};
use wireseal::keys::EllSwiftKeypair;

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

/// One session pair of ours and one of the crate's, with their buffers,
/// used by the mixed-profile rows and then the per-size rows.
pub(super) struct OneCore {
    a: Session,
    b: Session,
    #[cfg(feature = "rust-peers")]
    pp: super::peer::Pair,
    /// Contents every packet takes its bytes from (64 KiB).
    pub(super) data: Vec<u8>,
    buf: Vec<u8>,
    #[cfg(feature = "rust-peers")]
    buf2: Vec<u8>,
}

impl OneCore {
    pub(super) fn new() -> Self {
        let (a, b) = our_handshake(EllSwiftKeypair::generate(), EllSwiftKeypair::generate());
        let buf = vec![0u8; 65536 + 64];
        Self {
            a,
            b,
            #[cfg(feature = "rust-peers")]
            pp: super::peer::Pair::new(),
            data: (0..65536usize).map(|i| i as u8).collect(),
            #[cfg(feature = "rust-peers")]
            buf2: buf.clone(),
            buf,
        }
    }

    /// The mixed profile `sizes`: round trips through each API, and goodput.
    pub(super) fn mixed_rows(&mut self, ctx: &Ctx, sizes: &[u32]) -> Vec<Row> {
        let mean = sizes.iter().map(|&s| s as f64).sum::<f64>() / sizes.len() as f64;
        let (ours1, theirs1) = rates(
            ctx,
            sizes.len(),
            || our_rt(&mut self.a, &mut self.b, sizes, &self.data, &mut self.buf),
            theirs!(|| self.pp.rt(sizes, &self.data, &mut self.buf2)),
        );
        let (ours1_vec, theirs_vec) = rates(
            ctx,
            sizes.len(),
            || our_rt(&mut self.a, &mut self.b, sizes, &self.data, &mut self.buf),
            theirs!(|| self.pp.rt_vec(sizes, &self.data)),
        );
        vec![
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
            Row::new(
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
            ),
            Row::new(
                S,
                format!("mixed goodput, 1 core ({mean:.0} B avg)"),
                "MB/s",
                Better::Higher,
                ours1 * mean / 1e6,
                CRATE,
                theirs1.map(|t| t * mean / 1e6),
            ),
        ]
    }

    /// Round trips by contents size.
    pub(super) fn size_rows(&mut self, ctx: &Ctx) -> Vec<Row> {
        let mut rows = Vec::new();
        for size in [0u32, 32, 64, 256, 1024, 4096, 65536] {
            let reps = if size >= 4096 { 16 } else { 256 };
            let sz = vec![size; reps];
            let (o, t) = rates(
                ctx,
                reps,
                || our_rt(&mut self.a, &mut self.b, &sz, &self.data, &mut self.buf),
                theirs!(|| self.pp.rt(&sz, &self.data, &mut self.buf2)),
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
        rows
    }
}
