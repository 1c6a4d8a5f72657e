//! The peat report curve: documents per second by document size, encrypted
//! (a mesh-wide seal and open) against plain (the document copied out and
//! back in, peat-btle's "plain" columns), on one core and on all cores.
//! Each row is a point of the `peat-docs` plot.

use super::{doc, S};
use crate::{Better, Ctx, Row};
use std::hint::black_box;
use wireseal::batch::Batch;
use wireseal::peat::{seal_batch_len, MeshSealer};

const PLOT: &str = "peat-docs";

/// Document sizes of the curve: peat-btle's table (0, 1, 5, 10 and 20 chats)
/// and two larger documents.
const SIZES: [usize; 7] = [51, 129, 417, 633, 641, 2048, 8192];

/// The rows of the curve.
pub fn rows(ctx: &Ctx, sealer: &mut MeshSealer) -> Vec<Row> {
    let mut rows = Vec::new();
    let all = Batch::all_cores();
    let total_bytes = if ctx.full { 64 << 20 } else { 8 << 20 };
    for n in SIZES {
        let d = doc(n);
        // One core: seal + open of one document at a time, against copying
        // it out and back in.
        let mut frame = vec![0u8; wireseal::peat::sealed_len(n)];
        let (mut out, mut back) = (vec![0u8; n], vec![0u8; n]);
        let (enc, plain) = ctx.time_pair_per_op(
            || {
                let len = sealer.seal_into(&d, &mut frame).expect("sized frame");
                sealer.open_in_place(&mut frame[..len]).expect("own frame")[0]
            },
            || {
                out.copy_from_slice(black_box(&d));
                back.copy_from_slice(black_box(&out));
                back[0]
            },
        );
        rows.push(
            Row::new(
                S,
                format!("{n} B docs/s encrypt+decrypt, 1 core"),
                "docs/s",
                Better::Higher,
                1.0 / enc,
                "plain (copy out + in), 1 core",
                Some(1.0 / plain),
            )
            .at(PLOT, "encrypted, 1 core", n as f64),
        );
        // All cores: the batch API over many documents, against copying them
        // on all cores.
        let count = (total_bytes / n).max(64);
        let docs: Vec<&[u8]> = (0..count).map(|_| d.as_slice()).collect();
        let mut buf = vec![0u8; seal_batch_len(&docs)];
        let mut copies = vec![vec![0u8; n]; count];
        let key = sealer.key();
        let mut seal_open = || {
            let ranges = sealer
                .seal_batch_into(&all, &docs, &mut buf)
                .expect("buffer sized by seal_batch_len");
            let opened = key.open_batch_ranges_in_place(&all, &mut buf, &ranges);
            assert!(opened.iter().all(|r| r.is_ok()), "a batch frame failed");
            opened.len()
        };
        let mut copy_all = || {
            all.for_each_mut(&mut copies, |c| {
                c.copy_from_slice(black_box(&d));
                black_box(c[0]);
            });
            copies.len()
        };
        seal_open();
        copy_all();
        let (t_enc, t_plain) = ctx.time_pair_job(ctx.samples(), &mut seal_open, &mut copy_all);
        rows.push(
            Row::new(
                S,
                format!("{n} B docs/s encrypt+decrypt, {} cores", all.threads()),
                "docs/s",
                Better::Higher,
                count as f64 / t_enc,
                format!("plain (copy), {} cores", all.threads()),
                Some(count as f64 / t_plain),
            )
            .at(
                PLOT,
                format!("encrypted, {} cores", all.threads()),
                n as f64,
            ),
        );
    }
    rows
}
