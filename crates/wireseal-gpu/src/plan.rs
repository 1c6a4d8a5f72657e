//! Planning, in three passes that touch each packet as little as they can:
//!
//! 1. every job's [`Shape`] on every core: its share for the GPU, the state
//!    it starts from, and what its packets take of each region (counted from
//!    their lengths alone);
//! 2. chunks cut from the shapes in job order ([`Chunk::cut`]), as
//!    [`Piece`]s with their places in the chunk's regions; only a job that a
//!    chunk's limit splits is walked packet by packet;
//! 3. every piece written straight into the staging buffer on its own core
//!    ([`Chunk::write`]): each packet's descriptor, computed as it goes (its
//!    key entry, nonce index and length-keystream position from the state),
//!    its parts, its key entries and its input.
//!
//! After this, every packet is independent on the device.
//!
//! An open's packets are found on the device: its chunks are whole runs
//! cut by bytes ([`Chunk::cut_runs`]), one per session, which the host
//! copies in with the session's keys and positions (`crate::work`).

use crate::layout::{
    place, wire_len, write_parts, Counts, KeyDesc, PacketDesc, Regions, BODY_ALIGN, KEY_DESC,
    PACKET_DESC, TASK_DESC,
};
use core::ops::Range;
use wireseal::batch::Batch;
use wireseal::bip324::state::{DirectionState, Position};
use wireseal::bip324::REKEY_INTERVAL;

/// Most packets in one piece (the unit the host writes in parallel).
const PIECE_PACKETS: usize = 512;

/// What bounds a chunk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub packets: usize,
    pub bytes: usize,
    pub task_bytes: u32,
}

/// Wire bytes an open chunk takes for each packet of [`Limits::packets`]:
/// its runs are cut by bytes, before their packets are known (the device
/// finds them).
const RUN_BYTES_PER_PACKET: usize = 512;

impl Limits {
    /// The most bytes of runs in an open chunk (the first run always fits).
    pub(crate) fn run_bytes(&self) -> usize {
        self.bytes
            .min(self.packets.saturating_mul(RUN_BYTES_PER_PACKET))
    }
}

/// Bytes a packet of `len` contents bytes takes in a seal's data region:
/// its wire bytes, up to the next packet's place (every body starts on a
/// [`BODY_ALIGN`] boundary, so the kernels move its whole blocks with wide
/// accesses).
pub(crate) fn slot(len: u32) -> usize {
    wire_len(len).next_multiple_of(BODY_ALIGN)
}

/// Parts of a packet of `len` contents bytes (its body is `len + 1`).
pub(crate) fn parts(len: u32, task_bytes: u32) -> u32 {
    (len + 1).div_ceil(task_bytes)
}

/// The packets of a batch as planning reads them: packet `k` of job `job`
/// (counted from the job's first packet for the GPU).
pub(crate) trait Source: Sync {
    /// Its contents bytes.
    fn len(&self, job: usize, k: usize) -> u32;
    /// The header byte to seal.
    fn header(&self, job: usize, k: usize) -> u8;
    /// Input bytes a packet of `len` contents bytes takes in its job (its
    /// contents).
    fn input_len(&self, len: u32) -> usize;
    /// Copies the packet whose input starts at `src` in job `job` into its
    /// place in the data region (`slot` starts at its length field), unless
    /// the source put its input there already.
    fn copy_in(&self, job: usize, src: usize, len: u32, slot: &mut [u8]);
}

/// One job's share for the GPU, as planning sees it.
#[derive(Default)]
pub(crate) struct Shape {
    /// Packets for the GPU.
    pub count: usize,
    /// Where the first one's input starts in the job.
    pub src: usize,
    /// The session's state before the first one.
    pub state: Option<DirectionState>,
    /// What the packets take of each region, laid out alone.
    pub totals: Counts,
    /// Their input bytes in the job.
    pub input: usize,
}

impl Shape {
    /// The shape of `count` packets from `state` on, their input from
    /// `src`, packet `k` of `len(k)` contents bytes.
    pub(crate) fn new(
        state: DirectionState,
        (count, src): (usize, usize),
        task_bytes: u32,
        len: impl Fn(usize) -> u32,
        input_len: impl Fn(u32) -> usize,
    ) -> Self {
        let mut totals = Counts {
            packets: count,
            keys: segments(&state, 0, count),
            ..Counts::default()
        };
        let mut input = 0usize;
        for k in 0..count {
            let l = len(k);
            add(&mut totals, l, task_bytes);
            input += input_len(l);
        }
        Self {
            count,
            src,
            state: Some(state),
            totals,
            input,
        }
    }
}

/// Adds one packet's entries (not the packet count) to `c`.
pub(crate) fn add(c: &mut Counts, len: u32, task_bytes: u32) {
    let p = parts(len, task_bytes) as usize;
    c.tasks += p;
    if p > 1 {
        c.multi += 1;
        c.mtasks += p;
    }
    c.data += slot(len);
}

/// How many key epochs `count` packets span from `skip` packets past
/// `state`: one key entry each.
pub(crate) fn segments(state: &DirectionState, skip: usize, count: usize) -> usize {
    let at = |p: Position| ((p.index as usize + skip) % REKEY_INTERVAL as usize) as u32;
    let (mut a, mut b) = (at(state.packet_position()), at(state.length_position()));
    let (mut left, mut n) = (count, 0);
    while left > 0 {
        let step = left
            .min((REKEY_INTERVAL - a) as usize)
            .min((REKEY_INTERVAL - b) as usize);
        left -= step;
        a = ((a as usize + step) % REKEY_INTERVAL as usize) as u32;
        b = ((b as usize + step) % REKEY_INTERVAL as usize) as u32;
        n += 1;
    }
    n
}

/// Packets `first..first + count` of job `job`'s share, and where their
/// entries go in the chunk: the first index of each kind, and the data
/// offset of the first packet's length field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Piece {
    pub job: usize,
    pub first: usize,
    pub count: usize,
    /// Where the first packet's input starts in the job.
    pub src: usize,
    /// Its first entry of each kind in the chunk (`data`: the first
    /// packet's offset in the data region).
    pub at: Counts,
    /// What it takes of each region.
    pub takes: Counts,
}

impl Piece {
    /// Where the piece's packets are in the data region.
    pub(crate) fn data(&self) -> Range<usize> {
        self.at.data..self.at.data + self.takes.data
    }
}

/// One chunk: the pieces it holds, in job order, and its counts.
#[derive(Default)]
pub(crate) struct Chunk {
    pub pieces: Vec<Piece>,
    pub counts: Counts,
}

/// Where the next chunk starts: a job, a packet of its share, and that
/// packet's input offset.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Cursor {
    job: usize,
    at: usize,
    src: usize,
}

impl Chunk {
    pub(crate) fn clear(&mut self) {
        self.pieces.clear();
        self.counts = Counts::default();
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Whether another packet fits (the first always does).
    fn has_room(&self, lim: &Limits) -> bool {
        self.is_empty() || (self.counts.packets < lim.packets && self.counts.data < lim.bytes)
    }

    /// Cuts the next chunk from `shapes` at `cur` (cleared first); false
    /// when every packet is placed.
    pub(crate) fn cut<S: Source + ?Sized>(
        &mut self,
        shapes: &[Shape],
        src: &S,
        cur: &mut Cursor,
        lim: &Limits,
    ) -> bool {
        self.clear();
        while cur.job < shapes.len() {
            let s = &shapes[cur.job];
            if cur.at == 0 {
                cur.src = s.src;
            }
            while cur.at < s.count {
                if !self.has_room(lim) {
                    return true;
                }
                let piece = self.fit(cur, s, src, lim);
                cur.at += piece.count;
                cur.src += if piece.count == s.count {
                    s.input
                } else {
                    (0..piece.count)
                        .map(|i| src.input_len(src.len(cur.job, piece.first + i)))
                        .sum::<usize>()
                };
                self.push(piece);
            }
            cur.job += 1;
            cur.at = 0;
        }
        !self.is_empty()
    }

    /// The next piece of the job at `cur` that fits: the rest of the job
    /// at once when it does, else packet by packet (at least one).
    fn fit<S: Source + ?Sized>(&self, cur: &Cursor, s: &Shape, src: &S, lim: &Limits) -> Piece {
        let room = lim.packets.saturating_sub(self.counts.packets).max(1);
        let most = (s.count - cur.at).min(room).min(PIECE_PACKETS);
        let start = if self.is_empty() {
            place(0)
        } else {
            self.counts.data
        };
        let state = s.state.as_ref().expect("a share has its state");
        let mut takes = Counts::default();
        if cur.at == 0 && most == s.count && start + s.totals.data <= lim.bytes {
            takes = s.totals;
        } else {
            // Packet by packet while the data before each stays under the
            // limit.
            while takes.packets < most && (takes.packets == 0 || start + takes.data < lim.bytes) {
                let len = src.len(cur.job, cur.at + takes.packets);
                add(&mut takes, len, lim.task_bytes);
                takes.packets += 1;
            }
            takes.keys = segments(state, cur.at, takes.packets);
        }
        let mut at = self.counts;
        at.data = start;
        Piece {
            job: cur.job,
            first: cur.at,
            count: takes.packets,
            src: cur.src,
            at,
            takes,
        }
    }

    fn push(&mut self, p: Piece) {
        let end = p.data().end;
        self.counts.add(&p.takes);
        self.counts.data = end;
        self.pieces.push(p);
    }

    /// Writes the chunk into `buf` (laid out as `r`): every piece's
    /// descriptors, parts, key entries and input, each piece on a core of
    /// `batch`.
    pub(crate) fn write<S: Source + ?Sized>(
        &self,
        batch: &Batch,
        shapes: &[Shape],
        src: &S,
        task_bytes: u32,
        r: &Regions,
        buf: &mut [u8],
    ) {
        let mut bufs = Vec::with_capacity(self.pieces.len());
        {
            let [mut packets, mut tasks, mut multi, mut mtasks, mut keys, mut data] = r.split(buf);
            let mut at = 0usize;
            for p in &self.pieces {
                let range = p.data();
                let _ = take(&mut data, range.start - at);
                at = range.end;
                bufs.push(PieceBufs {
                    packets: take(&mut packets, p.takes.packets * PACKET_DESC),
                    tasks: take(&mut tasks, p.takes.tasks * TASK_DESC),
                    multi: take(&mut multi, p.takes.multi * 4),
                    mtasks: take(&mut mtasks, p.takes.mtasks * 4),
                    keys: take(&mut keys, p.takes.keys * KEY_DESC),
                    data: take(&mut data, range.len()),
                });
            }
        }
        let one = |p: &Piece, b: PieceBufs<'_>| write_piece(p, &shapes[p.job], src, task_bytes, b);
        if self.pieces.len() < 2 {
            self.pieces.iter().zip(bufs).for_each(|(p, b)| one(p, b));
        } else {
            let mut items: Vec<(&Piece, Option<PieceBufs<'_>>)> =
                self.pieces.iter().zip(bufs.into_iter().map(Some)).collect();
            batch.for_each_mut_coarse(&mut items, |(p, b)| {
                if let Some(b) = b.take() {
                    one(p, b);
                }
            });
        }
    }

    /// Cuts the next chunk of whole runs (cleared first) from the jobs at
    /// `cur` on, `run(job)` giving a job's run (where its input starts and
    /// its bytes; `None` for a job with nothing for the GPU), the runs laid
    /// back to back in the data region until [`Limits::run_bytes`]; false
    /// when every run is placed. A run's packets are found on the device.
    pub(crate) fn cut_runs(
        &mut self,
        jobs: usize,
        run: impl Fn(usize) -> Option<(usize, usize)>,
        cur: &mut Cursor,
        lim: &Limits,
    ) -> bool {
        self.clear();
        while cur.job < jobs {
            let Some((src, len)) = run(cur.job) else {
                cur.job += 1;
                continue;
            };
            if !self.is_empty() && self.counts.data + len > lim.run_bytes() {
                return true;
            }
            let piece = Piece {
                job: cur.job,
                src,
                at: Counts {
                    data: self.counts.data,
                    ..Counts::default()
                },
                takes: Counts {
                    data: len,
                    ..Counts::default()
                },
                ..Piece::default()
            };
            self.counts.data += len;
            self.pieces.push(piece);
            cur.job += 1;
        }
        !self.is_empty()
    }

    /// The pieces of each job from `jobs.start` on, as ranges of
    /// `self.pieces` (empty for a job with no packet here).
    pub(crate) fn pieces_by_job(&self, jobs: Range<usize>) -> Vec<Range<usize>> {
        let mut out = vec![0..0; jobs.len()];
        for (i, p) in self.pieces.iter().enumerate() {
            let slot = &mut out[p.job - jobs.start];
            if slot.start == slot.end {
                *slot = i..i + 1;
            } else {
                slot.end = i + 1;
            }
        }
        out
    }

    /// The jobs this chunk touches (first to last).
    pub(crate) fn jobs(&self) -> Range<usize> {
        match (self.pieces.first(), self.pieces.last()) {
            (Some(a), Some(b)) => a.job..b.job + 1,
            _ => 0..0,
        }
    }
}

/// The first `n` bytes of `s`, which moves past them.
pub(crate) fn take<'b>(s: &mut &'b mut [u8], n: usize) -> &'b mut [u8] {
    let (a, b) = core::mem::take(s).split_at_mut(n);
    *s = b;
    a
}

/// A piece's slices of the staging buffer's regions.
struct PieceBufs<'b> {
    packets: &'b mut [u8],
    tasks: &'b mut [u8],
    multi: &'b mut [u8],
    mtasks: &'b mut [u8],
    keys: &'b mut [u8],
    data: &'b mut [u8],
}

/// Writes one piece: walks its packets from the job's state, one key
/// entry per epoch, each packet's descriptor, parts and input.
fn write_piece<S: Source + ?Sized>(
    p: &Piece,
    s: &Shape,
    src: &S,
    task_bytes: u32,
    b: PieceBufs<'_>,
) {
    let base = s.state.as_ref().expect("a share has its state");
    let mut state = DirectionState::from_bytes(base.to_bytes().expose())
        .expect("a state's own bytes read back");
    state
        .advance(p.first as u64)
        .expect("planned within the key schedule");
    let mut packets = b.packets.chunks_exact_mut(PACKET_DESC);
    let mut tasks = b.tasks.chunks_exact_mut(TASK_DESC);
    let mut multi = b.multi.chunks_exact_mut(4);
    let mut mtasks = b.mtasks.chunks_exact_mut(4);
    let mut keys = b.keys.chunks_exact_mut(KEY_DESC);
    let (mut k, mut key, mut task) = (0usize, p.at.keys as u32, p.at.tasks as u32);
    let (mut off, mut from) = (0usize, p.src);
    while k < p.count {
        let n = before_rekey(&state, p.count - k);
        let (pp, lp) = (state.packet_position(), state.length_position());
        keys.next()
            .expect("a key entry per epoch")
            .copy_from_slice(KeyDesc::of(&state).bytes());
        for j in 0..n {
            let (job_k, index) = (p.first + k + j, (p.at.packets + k + j) as u32);
            let len = src.len(p.job, job_k);
            let np = parts(len, task_bytes);
            PacketDesc {
                offset: (p.at.data + off) as u64,
                len,
                key,
                index: pp.index + j as u32,
                chunk: lp.index + j as u32,
                header: u32::from(src.header(p.job, job_k)),
                first_task: task,
            }
            .write(packets.next().expect("a descriptor per packet"));
            write_parts(index, task, np, &mut tasks, &mut multi, &mut mtasks);
            let size = slot(len);
            let end = (off + size).min(b.data.len());
            src.copy_in(p.job, from, len, &mut b.data[off..end]);
            off += size;
            from += src.input_len(len);
            task += np;
        }
        state
            .advance(n as u64)
            .expect("planned within the key schedule");
        k += n;
        key += 1;
    }
}

/// How many of `left` packets fit before either cipher's next rekey.
pub(crate) fn before_rekey(state: &DirectionState, left: usize) -> usize {
    let room = |i: u32| (REKEY_INTERVAL - i) as usize;
    left.min(room(state.packet_position().index))
        .min(room(state.length_position().index))
}
