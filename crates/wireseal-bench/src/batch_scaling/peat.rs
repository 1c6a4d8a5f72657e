//! peat's batch rows.

use crate::{Ctx, Row};
use wireseal::peat::{seal_batch_len, MeshId, MeshSealer};

/// peat: `seal_batch_into` then `open_batch_ranges_in_place` over one
/// buffer, 633-byte documents.
pub fn rows(ctx: &Ctx) -> Vec<Row> {
    let mesh: MeshId = "BENCH".parse().expect("a valid mesh id");
    let sealer = MeshSealer::new(&mesh, &[0x42; 32]);
    let doc = vec![0x33u8; 633];
    super::rows(
        ctx,
        "peat",
        "633 B docs, seal + open",
        "docs",
        "peat-batch",
        |n| {
            let docs: Vec<&[u8]> = vec![doc.as_slice(); n];
            let buf = vec![0u8; seal_batch_len(&docs)];
            (docs, buf)
        },
        |b, (docs, buf)| {
            let ranges = sealer.seal_batch_into(b, docs, buf).expect("sized");
            let opened = sealer.key().open_batch_ranges_in_place(b, buf, &ranges);
            assert!(opened.iter().all(Result::is_ok), "a frame failed to open");
        },
    )
}
