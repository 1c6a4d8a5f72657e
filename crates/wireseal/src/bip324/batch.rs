//! Many independent sessions' packets across cores. Each job is one
//! session's direction and a run of packets; jobs run in parallel, packets
//! within a job in order (the ciphers are sequential by design). Results
//! equal doing the jobs one by one.

use super::packet::{packet_len, Next, PacketReceiver, PacketSender};
use super::Bip324Error;
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
    pub result: Result<usize, Bip324Error>,
}

/// Inbound work for one session: open every whole packet in `wire`, in
/// place.
#[derive(Debug)]
pub struct OpenJob<'a> {
    /// The session's receiver.
    pub receiver: &'a mut PacketReceiver,
    /// Wire bytes of whole packets, decrypted in place.
    pub wire: &'a mut [u8],
    /// For each opened packet: (offset of its contents in `wire`, contents
    /// length, decoy flag). Cleared first.
    pub opened: &'a mut Vec<(usize, usize, bool)>,
    /// Packets opened, or the first error.
    pub result: Result<usize, Bip324Error>,
}

/// Wire bytes a [`SealJob`] with these sizes appends.
pub fn seal_job_len(sizes: &[u32]) -> usize {
    sizes.iter().map(|&s| packet_len(s as usize)).sum()
}

/// Runs one seal job on the calling thread.
pub fn seal_job(job: &mut SealJob<'_>) {
    let start = job.out.len();
    job.out.resize(start + seal_job_len(job.sizes), 0);
    let mut at = start;
    let mut from = 0usize;
    for &s in job.sizes {
        let s = s as usize;
        let Some(c) = job.contents.get(from..from + s) else {
            job.out.truncate(at);
            job.result = Err(Bip324Error::BufferTooSmall { required: from + s });
            return;
        };
        match job.sender.seal_into(c, false, b"", &mut job.out[at..]) {
            Ok(n) => at += n,
            Err(e) => {
                job.out.truncate(at);
                job.result = Err(e);
                return;
            }
        }
        from += s;
    }
    job.result = Ok(job.sizes.len());
}

/// Runs one open job on the calling thread.
pub fn open_job(job: &mut OpenJob<'_>) {
    job.opened.clear();
    let mut at = 0usize;
    while at < job.wire.len() {
        match job.receiver.open_next(b"", &mut job.wire[at..]) {
            Ok(Next::Packet { packet, consumed }) => {
                job.opened
                    .push((at + 3 + 1, packet.contents.len(), packet.decoy));
                at += consumed;
            }
            Ok(Next::NeedMore(n)) => {
                job.result = Err(Bip324Error::WrongPacketLength {
                    expected: n,
                    got: job.wire.len() - at,
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

/// Seals every job, jobs in parallel on `batch` (each job may get its own
/// thread: a job is a whole run of packets).
pub fn seal_many(batch: &Batch, jobs: &mut [SealJob<'_>]) {
    batch.for_each_mut_coarse(jobs, seal_job);
}

/// Opens every job, jobs in parallel on `batch` (each job may get its own
/// thread).
pub fn open_many(batch: &Batch, jobs: &mut [OpenJob<'_>]) {
    batch.for_each_mut_coarse(jobs, open_job);
}
