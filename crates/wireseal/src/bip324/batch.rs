//! Many independent sessions' packets across cores. Each job is one
//! session's direction and a run of packets; jobs run in parallel on the
//! caller's [`Batch`], packets within a job in order (the ciphers are
//! sequential by design). Results equal doing the jobs one by one, in input
//! order.
//!
//! Throughput across cores depends on each job's working set: a job touches
//! its contents, its wire buffer and nothing else, and sealing writes
//! every wire byte once (no zero-fill before sealing). Jobs of a few dozen
//! packets (tens of KiB) stay in each core's private cache, so two cores
//! do not compete for memory bandwidth; see docs/bip324.md.

use super::packet::{sealed_len as packet_sealed_len, Next, PacketReceiver, PacketSender};
use super::packet::{PacketType, HEADER_LEN, LENGTH_LEN, MAX_CONTENTS_LEN, TAG_LEN};
use super::Error;
use crate::batch::Batch;

/// Outbound work for one session: seal `contents` (concatenated, split by
/// `sizes`) as genuine packets appended to `out`.
#[derive(Debug)]
pub struct SealJob<'a> {
    /// The session's sender.
    pub sender: &'a mut PacketSender,
    /// Every packet's contents, back to back.
    pub contents: &'a [u8],
    /// Length of each packet's contents.
    pub sizes: &'a [u32],
    /// Wire bytes are appended here (keep it between batches to reuse it).
    pub out: &'a mut Vec<u8>,
    /// Packets sealed, or the first error (later packets are not sealed).
    pub result: Result<usize, Error>,
}

/// Where one opened packet's contents sit in an [`OpenJob`]'s wire buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenedRange {
    /// Offset of the contents in the job's `wire`.
    pub offset: usize,
    /// Contents length.
    pub len: usize,
    /// Genuine or decoy.
    pub kind: PacketType,
}

/// Inbound work for one session: open every whole packet in `wire`, in
/// place.
#[derive(Debug)]
pub struct OpenJob<'a> {
    /// The session's receiver.
    pub receiver: &'a mut PacketReceiver,
    /// Wire bytes of whole packets, decrypted in place.
    pub wire: &'a mut [u8],
    /// One entry per opened packet, in order. Cleared first.
    pub opened: &'a mut Vec<OpenedRange>,
    /// Packets opened, or the first error.
    pub result: Result<usize, Error>,
}

/// Wire bytes a [`SealJob`] with these contents sizes appends.
pub fn wire_len(sizes: &[u32]) -> usize {
    sizes.iter().map(|&s| packet_sealed_len(s as usize)).sum()
}

crate::visibility::pub_if_hazmat! {
    /// Runs one seal job on the calling thread (what [`seal_batch_into`] runs
    /// per job). On error, `out` keeps the packets sealed before the failing
    /// one.
    fn seal_job(job: &mut SealJob<'_>) {
        job.out.reserve(wire_len(job.sizes));
        let mut from = 0usize;
        for &s in job.sizes {
            let s = s as usize;
            let Some(c) = job.contents.get(from..from + s) else {
                job.result = Err(Error::Truncated {
                    len: job.contents.len(),
                    min: from + s,
                });
                return;
            };
            if s > MAX_CONTENTS_LEN {
                job.result = Err(Error::TooLong {
                    len: s,
                    max: MAX_CONTENTS_LEN,
                });
                return;
            }
            // Length field and header, contents, tag: each byte written once.
            let at = job.out.len();
            job.out.extend_from_slice(&[0u8; LENGTH_LEN + HEADER_LEN]);
            job.out.extend_from_slice(c);
            job.out.extend_from_slice(&[0u8; TAG_LEN]);
            if let Err(e) = job
                .sender
                .seal_in_place(s, PacketType::Genuine, b"", &mut job.out[at..])
            {
                job.out.truncate(at);
                job.result = Err(e);
                return;
            }
            from += s;
        }
        job.result = Ok(job.sizes.len());
    }
}

crate::visibility::pub_if_hazmat! {
    /// Runs one open job on the calling thread (what [`open_batch_into`] runs
    /// per job).
    fn open_job(job: &mut OpenJob<'_>) {
        job.opened.clear();
        let mut at = 0usize;
        while at < job.wire.len() {
            match job.receiver.open_next(b"", &mut job.wire[at..]) {
                Ok(Next::Packet { packet, consumed }) => {
                    job.opened.push(OpenedRange {
                        offset: at + LENGTH_LEN + HEADER_LEN,
                        len: packet.contents.len(),
                        kind: packet.kind,
                    });
                    at += consumed;
                }
                Ok(Next::NeedMore(n)) => {
                    job.result = Err(Error::Truncated {
                        len: job.wire.len() - at,
                        min: n,
                    });
                    return;
                }
                Err(e) => {
                    job.result = Err(e);
                    return;
                }
            }
        }
        job.result = Ok(job.opened.len());
    }
}

/// Seals every job's packets, appending them to the job's `out`; jobs run
/// in parallel on `batch` (each job may get its own thread: a job is a
/// whole run of packets), each job's result in its `result`.
pub fn seal_batch_into(batch: &Batch, jobs: &mut [SealJob<'_>]) {
    batch.for_each_mut_coarse(jobs, seal_job);
}

/// Opens every job's packets in place in the job's `wire`, the contents
/// ranges into its `opened`; jobs run in parallel on `batch` (each job may
/// get its own thread), each job's result in its `result`. A single job
/// runs on the calling thread without the batch's hand-out of work.
pub fn open_batch_into(batch: &Batch, jobs: &mut [OpenJob<'_>]) {
    match jobs {
        [job] => open_job(job),
        _ => batch.for_each_mut_coarse(jobs, open_job),
    }
}
