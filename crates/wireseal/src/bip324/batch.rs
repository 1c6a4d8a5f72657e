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

/// One packet of an [`OutgoingJob`]: its contents length and its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outgoing {
    /// Contents bytes (taken in turn from the job's `contents`).
    pub len: u32,
    /// Genuine, or a decoy (header byte 0x80) the receiver drops.
    pub kind: PacketType,
}

impl Outgoing {
    /// A genuine packet of `len` contents bytes.
    pub const fn genuine(len: u32) -> Self {
        Self {
            len,
            kind: PacketType::Genuine,
        }
    }

    /// A decoy of `len` contents bytes.
    pub const fn decoy(len: u32) -> Self {
        Self {
            len,
            kind: PacketType::Decoy,
        }
    }
}

/// Outbound work for one session with a type per packet: seal `packets`
/// (their contents back to back in `contents`), appending the wire bytes to
/// `out`. [`SealJob`] with decoys.
#[derive(Debug)]
pub struct OutgoingJob<'a> {
    /// The session's sender.
    pub sender: &'a mut PacketSender,
    /// Every packet's contents, back to back.
    pub contents: &'a [u8],
    /// The packets, in order.
    pub packets: &'a [Outgoing],
    /// Wire bytes are appended here (keep it between batches to reuse it).
    pub out: &'a mut Vec<u8>,
    /// Packets sealed, or the first error: [`Error::Truncated`] when
    /// `contents` ends before a packet's, [`Error::TooLong`] for contents
    /// over [`MAX_CONTENTS_LEN`], [`Error::Exhausted`] when the key schedule
    /// is spent. `out` then keeps the packets sealed before that one.
    pub result: Result<usize, Error>,
}

/// Seals packets of `sizes` and `kinds` (from `contents` at `from` on)
/// with `sender`, appending to `out`; writes how many, or the first error
/// (`out` keeping the packets before it), to `result`.
///
/// `out` is moved into a local and written back once: the jobs of a batch
/// usually keep their output `Vec`s side by side in one array, whose
/// headers then share cache lines, and neighbouring jobs run on different
/// threads; a push per packet to the caller's header would move those
/// lines between the cores on every packet.
///
/// The result is written to `result` (the job's own field) rather than
/// returned, here and in [`open_run`]: a returned `Result` comes back
/// through the stack, and copying it into the job reloads it as one 16-byte
/// value from the callee's narrower stores, which misses store forwarding:
/// about 5 ns a call, a few percent of a batch of one small packet.
#[inline]
fn seal_run(
    sender: &mut PacketSender,
    contents: &[u8],
    from: usize,
    packets: impl ExactSizeIterator<Item = (u32, PacketType)> + Clone,
    out: &mut Vec<u8>,
    result: &mut Result<usize, Error>,
) {
    let mut local = core::mem::take(out);
    seal_run_local(sender, contents, from, packets, &mut local, result);
    *out = local;
}

/// [`seal_run`] on its local output.
fn seal_run_local(
    sender: &mut PacketSender,
    contents: &[u8],
    mut from: usize,
    packets: impl ExactSizeIterator<Item = (u32, PacketType)> + Clone,
    out: &mut Vec<u8>,
    result: &mut Result<usize, Error>,
) {
    out.reserve(
        packets
            .clone()
            .map(|(s, _)| packet_sealed_len(s as usize))
            .fold(0usize, usize::saturating_add)
            .min(1 << 30),
    );
    let n = packets.len();
    for (s, kind) in packets {
        let s = s as usize;
        let Some(c) = contents.get(from..from.saturating_add(s)) else {
            *result = Err(Error::Truncated {
                len: contents.len(),
                min: from + s,
            });
            return;
        };
        if s > MAX_CONTENTS_LEN {
            *result = Err(Error::TooLong {
                len: s,
                max: MAX_CONTENTS_LEN,
            });
            return;
        }
        // Length field and header, contents, tag: each byte written once.
        let at = out.len();
        out.extend_from_slice(&[0u8; LENGTH_LEN + HEADER_LEN]);
        out.extend_from_slice(c);
        out.extend_from_slice(&[0u8; TAG_LEN]);
        if let Err(e) = sender.seal_in_place(s, kind, b"", &mut out[at..]) {
            out.truncate(at);
            *result = Err(e);
            return;
        }
        from += s;
    }
    *result = Ok(n);
}

crate::visibility::pub_if_hazmat! {
    /// Runs one seal job on the calling thread (what [`seal_batch_into`] runs
    /// per job). On error, `out` keeps the packets sealed before the failing
    /// one.
    fn seal_job(job: &mut SealJob<'_>) {
        let packets = job.sizes.iter().map(|&s| (s, PacketType::Genuine));
        seal_run(job.sender, job.contents, 0, packets, job.out, &mut job.result);
    }
}

/// Seals `job.packets[first..]`, whose contents start at
/// `job.contents[from]`, appending to `job.out`; returns how many were
/// sealed, or the first error. What an engine that sealed the first
/// `first` packets elsewhere (from [`PacketSender::export_state`], moving
/// the sender by [`PacketSender::advance`]) runs to finish the job exactly
/// as [`seal_outgoing_into`] would have.
///
/// # Errors
///
/// As [`OutgoingJob::result`].
pub fn seal_outgoing_from(
    job: &mut OutgoingJob<'_>,
    first: usize,
    from: usize,
) -> Result<usize, Error> {
    let rest = &job.packets[first.min(job.packets.len())..];
    let packets = rest.iter().map(|p| (p.len, p.kind));
    let mut result = Ok(0);
    seal_run(
        job.sender,
        job.contents,
        from,
        packets,
        job.out,
        &mut result,
    );
    result
}

/// How many of `job`'s packets, from the start, have their contents in
/// `job.contents` and a length the format allows, and the contents bytes
/// they take: where [`seal_outgoing_into`] would stop with
/// [`Error::Truncated`] or [`Error::TooLong`] (the key schedule aside).
pub fn valid_prefix(job: &OutgoingJob<'_>) -> (usize, usize) {
    let mut from = 0usize;
    for (i, p) in job.packets.iter().enumerate() {
        let s = p.len as usize;
        if s > MAX_CONTENTS_LEN || job.contents.len() - from < s {
            return (i, from);
        }
        from += s;
    }
    (job.packets.len(), from)
}

crate::visibility::pub_if_hazmat! {
    /// Runs one open job on the calling thread (what [`open_batch_into`] runs
    /// per job).
    fn open_job(job: &mut OpenJob<'_>) {
        // The ranges go to a local and are written back once (as in
        // `seal_run`: neighbouring jobs' `Vec` headers share cache lines).
        let mut opened = core::mem::take(&mut *job.opened);
        opened.clear();
        open_run(job.receiver, job.wire, &mut opened, &mut job.result);
        *job.opened = opened;
    }
}

/// Opens the packets of `wire` in place with `receiver`, a range each into
/// `opened`; writes how many, or the first error, to `result` (see
/// [`seal_run`]).
fn open_run(
    receiver: &mut PacketReceiver,
    wire: &mut [u8],
    opened: &mut Vec<OpenedRange>,
    result: &mut Result<usize, Error>,
) {
    let mut at = 0usize;
    while at < wire.len() {
        match receiver.open_next(b"", &mut wire[at..]) {
            Ok(Next::Packet { packet, consumed }) => {
                opened.push(OpenedRange {
                    offset: at + LENGTH_LEN + HEADER_LEN,
                    len: packet.contents.len(),
                    kind: packet.kind,
                });
                at += consumed;
            }
            Ok(Next::NeedMore(n)) => {
                *result = Err(Error::Truncated {
                    len: wire.len() - at,
                    min: n,
                });
                return;
            }
            Err(e) => {
                *result = Err(e);
                return;
            }
        }
    }
    *result = Ok(opened.len());
}

/// Seals every job's packets, appending them to the job's `out`; jobs run
/// in parallel on `batch` (each job may get its own thread: a job is a
/// whole run of packets), each job's result in its `result`.
pub fn seal_batch_into(batch: &Batch, jobs: &mut [SealJob<'_>]) {
    batch.for_each_mut_coarse(jobs, seal_job);
}

/// Seals every job's packets, each with its own type, appending them to the
/// job's `out`; jobs run in parallel on `batch` (a single job on the
/// calling thread), each job's result in its `result`.
#[inline]
pub fn seal_outgoing_into(batch: &Batch, jobs: &mut [OutgoingJob<'_>]) {
    match jobs {
        [job] => seal_outgoing_job(job, true),
        _ => batch.for_each_mut_coarse(jobs, |job| seal_outgoing_job(job, false)),
    }
}

/// Seals all of `job`'s packets; `alone` when it is the batch's only job,
/// on the calling thread: no other job's `out` shares its cache line then,
/// so it is sealed straight into its `out` (see [`seal_run`]).
#[inline]
fn seal_outgoing_job(job: &mut OutgoingJob<'_>, alone: bool) {
    let packets = job.packets.iter().map(|p| (p.len, p.kind));
    let (sender, contents, out) = (&mut *job.sender, job.contents, &mut *job.out);
    if alone {
        seal_run_local(sender, contents, 0, packets, out, &mut job.result);
    } else {
        seal_run(sender, contents, 0, packets, out, &mut job.result);
    }
}

/// Opens every job's packets in place in the job's `wire`, the contents
/// ranges into its `opened`; jobs run in parallel on `batch` (each job may
/// get its own thread), each job's result in its `result`. A single job
/// runs on the calling thread without the batch's hand-out of work.
#[inline]
pub fn open_batch_into(batch: &Batch, jobs: &mut [OpenJob<'_>]) {
    match jobs {
        // Alone on the calling thread: its ranges go straight to `opened`.
        [job] => {
            job.opened.clear();
            open_run(job.receiver, job.wire, job.opened, &mut job.result);
        }
        _ => batch.for_each_mut_coarse(jobs, open_job),
    }
}
