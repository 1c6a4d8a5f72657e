//! Planning. Each job's share for the GPU is laid out on its own first, a
//! [`Fragment`]: every packet's place in a data region of its own, its parts,
//! its key entry, nonce index and length-keystream position, from the
//! session's exported state. Fragments are built for every job at once, on
//! every core. Chunks are then cut from the fragments in job order
//! ([`Chunk::cut`]) as [`Piece`]s, each with its place in the chunk's
//! regions, and every piece is written into the staging buffer on its own
//! core. After this, every packet is independent on the device.

use crate::layout::{
    place, wire_len, Counts, Descriptors, KeyDesc, PacketDesc, Regions, KEY_DESC, PACKET_DESC,
    TASK_DESC,
};
use core::ops::Range;
use wireseal::batch::Batch;
use wireseal::bip324::state::DirectionState;
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

/// One job's share for the GPU laid out as if its chunk held nothing else:
/// data offsets from `place(0)`, keys, tasks and packet indices from 0.
#[derive(Default)]
pub(crate) struct Fragment {
    pub desc: Descriptors,
    /// Each packet's input offset in its job (contents for a seal, wire for
    /// an open).
    pub src: Vec<usize>,
}

/// A job's next packets for [`Fragment::place`]: packet `first + k` has
/// `len(k)` contents bytes and header `header(k)`, and its input starts at
/// byte `src` of the job (each packet's input is `input_len(len)` bytes).
pub(crate) struct Segment<'a> {
    pub first: usize,
    pub count: usize,
    pub src: usize,
    pub state: &'a DirectionState,
    pub len: &'a dyn Fn(usize) -> u32,
    pub header: &'a dyn Fn(usize) -> u8,
    pub input_len: fn(u32) -> usize,
}

impl Fragment {
    /// An empty fragment with room for `packets`.
    pub(crate) fn with_capacity(packets: usize) -> Self {
        let mut f = Self::default();
        f.desc.packets.reserve(packets);
        f.desc.tasks.reserve(packets);
        f.src.reserve(packets);
        f
    }

    /// Packets in the fragment.
    pub(crate) fn len(&self) -> usize {
        self.desc.packets.len()
    }

    /// Places `seg.count` packets of one epoch of each cipher (the caller
    /// cuts segments at rekeys); returns the input bytes they take.
    pub(crate) fn place(&mut self, seg: &Segment<'_>, task_bytes: u32) -> usize {
        let lp = seg.state.length_position();
        let pp = seg.state.packet_position();
        debug_assert!(pp.index as usize + seg.count <= REKEY_INTERVAL as usize);
        debug_assert!(lp.index as usize + seg.count <= REKEY_INTERVAL as usize);
        debug_assert_eq!(seg.first, self.len());
        if seg.count == 0 {
            return 0;
        }
        let d = &mut self.desc;
        let key = d.keys.len() as u32;
        d.keys.push(KeyDesc::of(seg.state));
        let mut src = seg.src;
        for k in 0..seg.count {
            let len = (seg.len)(k);
            let offset = place(d.data_len);
            d.data_len = offset + wire_len(len);
            let index = d.packets.len() as u32;
            let parts = (len + 1).div_ceil(task_bytes);
            let first_task = d.tasks.len() as u32;
            d.tasks.extend((0..parts).map(|part| [index, part]));
            if parts > 1 {
                d.multi.push(index);
                d.mtasks.extend(first_task..first_task + parts);
            }
            d.packets.push(PacketDesc {
                offset: offset as u64,
                len,
                key,
                index: pp.index + k as u32,
                chunk: lp.index + k as u32,
                header: u32::from((seg.header)(k)),
                first_task,
            });
            self.src.push(src);
            src += (seg.input_len)(len);
        }
        src - seg.src
    }

    /// The first task of packet `k` (all tasks when `k` is the length).
    fn task(&self, k: usize) -> usize {
        self.desc
            .packets
            .get(k)
            .map_or(self.desc.tasks.len(), |p| p.first_task as usize)
    }

    /// Where packet `k` ends in the fragment's data.
    fn end(&self, k: usize) -> usize {
        let p = &self.desc.packets[k];
        p.offset as usize + wire_len(p.len)
    }
}

/// Packets `first..first + count` of job `job`'s fragment, and where their
/// entries go in the chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    pub job: usize,
    pub first: usize,
    pub count: usize,
    /// Its first packet's index in the chunk.
    pub packet: usize,
    /// Its first task's index in the chunk, and its tasks in the fragment.
    pub task: usize,
    pub tasks: Range<usize>,
    /// Its first entry of the multi-part list in the chunk, and its entries
    /// in the fragment's.
    pub multi: usize,
    pub multis: Range<usize>,
    /// The same for the multi-part tasks.
    pub mtask: usize,
    pub mtasks: Range<usize>,
    /// Its first key entry in the chunk, and its keys in the fragment.
    pub key: usize,
    pub keys: Range<usize>,
    /// Where its first packet's length field is in the chunk's data region,
    /// and where its last packet ends.
    pub data: Range<usize>,
}

impl Piece {
    /// Where fragment packet `k` (of this piece) is in the chunk's data.
    pub(crate) fn offset(&self, f: &Fragment, k: usize) -> usize {
        f.desc.packets[k].offset as usize - f.desc.packets[self.first].offset as usize
            + self.data.start
    }

    /// The chunk's descriptor for fragment packet `k` (of this piece).
    pub(crate) fn desc(&self, f: &Fragment, k: usize) -> PacketDesc {
        let d = f.desc.packets[k];
        PacketDesc {
            offset: self.offset(f, k) as u64,
            key: d.key - self.keys.start as u32 + self.key as u32,
            first_task: d.first_task - self.tasks.start as u32 + self.task as u32,
            ..d
        }
    }
}

/// The first `n` bytes of `s`, which moves past them.
fn take<'b>(s: &mut &'b mut [u8], n: usize) -> &'b mut [u8] {
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

/// One chunk: the pieces of fragments it holds, in job order.
#[derive(Default)]
pub(crate) struct Chunk {
    pub pieces: Vec<Piece>,
    pub counts: Counts,
}

/// Where the next chunk starts: a job and a packet of its fragment.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Cursor {
    job: usize,
    at: usize,
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

    /// Cuts the next chunk from `frags` at `cur` (cleared first); false when
    /// every packet is placed.
    pub(crate) fn cut(&mut self, frags: &[Fragment], cur: &mut Cursor, lim: &Limits) -> bool {
        self.clear();
        while cur.job < frags.len() {
            let f = &frags[cur.job];
            while cur.at < f.len() {
                if !self.has_room(lim) {
                    return true;
                }
                let n = self.fit(f, cur.at, lim);
                self.push(cur.job, f, cur.at, n);
                cur.at += n;
            }
            cur.job += 1;
            cur.at = 0;
        }
        !self.is_empty()
    }

    /// How many of `f`'s packets from `at` fit (at least one).
    fn fit(&self, f: &Fragment, at: usize, lim: &Limits) -> usize {
        let most = (f.len() - at)
            .min(lim.packets.saturating_sub(self.counts.packets).max(1))
            .min(PIECE_PACKETS);
        let base = place(self.counts.data);
        let off0 = f.desc.packets[at].offset as usize;
        // Packet `at + j` (j >= 1) goes in while the data before it is
        // under the limit: the packets before it end in increasing order.
        1 + f.desc.packets[at..at + most - 1]
            .partition_point(|p| base + p.offset as usize + wire_len(p.len) - off0 < lim.bytes)
    }

    fn push(&mut self, job: usize, f: &Fragment, first: usize, count: usize) {
        let c = &mut self.counts;
        let last = first + count;
        let tasks = f.task(first)..f.task(last);
        let m = &f.desc.multi;
        let multis = m.partition_point(|&i| (i as usize) < first)
            ..m.partition_point(|&i| (i as usize) < last);
        let mt = &f.desc.mtasks;
        let mtasks = mt.partition_point(|&t| (t as usize) < tasks.start)
            ..mt.partition_point(|&t| (t as usize) < tasks.end);
        let keys = f.desc.packets[first].key as usize..f.desc.packets[last - 1].key as usize + 1;
        let start = place(c.data);
        let end = start + f.end(last - 1) - f.desc.packets[first].offset as usize;
        self.pieces.push(Piece {
            job,
            first,
            count,
            packet: c.packets,
            task: c.tasks,
            multi: c.multi,
            mtask: c.mtasks,
            key: c.keys,
            data: start..end,
            tasks: tasks.clone(),
            multis: multis.clone(),
            mtasks: mtasks.clone(),
            keys: keys.clone(),
        });
        c.packets += count;
        c.tasks += tasks.len();
        c.multi += multis.len();
        c.mtasks += mtasks.len();
        c.keys += keys.len();
        c.data = end;
    }

    /// Writes the chunk into `buf` (laid out as `r`): every piece's
    /// descriptors, keys and (through `data`, given the piece and its slice
    /// of the data region, from its first length field to its last packet's
    /// end) input, the pieces on every core; the status bytes cleared.
    pub(crate) fn write(
        &self,
        batch: &Batch,
        frags: &[Fragment],
        r: &Regions,
        buf: &mut [u8],
        data: impl Fn(&Piece, &Fragment, &mut [u8]) + Sync + Send,
    ) {
        let mut slices = Vec::with_capacity(self.pieces.len());
        {
            let [mut packets, mut tasks, mut multi, mut mtasks, mut keys, status, mut rest] =
                r.split(buf);
            status.fill(0);
            let mut at = r.data.start;
            for p in &self.pieces {
                let gap = r.data.start + p.data.start - at;
                let _ = take(&mut rest, gap);
                at += gap + p.data.len();
                slices.push(PieceBufs {
                    packets: take(&mut packets, p.count * PACKET_DESC),
                    tasks: take(&mut tasks, p.tasks.len() * TASK_DESC),
                    multi: take(&mut multi, p.multis.len() * 4),
                    mtasks: take(&mut mtasks, p.mtasks.len() * 4),
                    keys: take(&mut keys, p.keys.len() * KEY_DESC),
                    data: take(&mut rest, p.data.len()),
                });
            }
        }
        let one = |(p, b): (&Piece, PieceBufs<'_>)| {
            let f = &frags[p.job];
            for (k, out) in
                (p.first..p.first + p.count).zip(b.packets.chunks_exact_mut(PACKET_DESC))
            {
                p.desc(f, k).write(out);
            }
            let task0 = p.tasks.start as u32;
            for (t, out) in f.desc.tasks[p.tasks.clone()]
                .iter()
                .zip(b.tasks.chunks_exact_mut(TASK_DESC))
            {
                let index = t[0] - p.first as u32 + p.packet as u32;
                out[..4].copy_from_slice(&index.to_le_bytes());
                out[4..].copy_from_slice(&t[1].to_le_bytes());
            }
            for (m, out) in f.desc.multi[p.multis.clone()]
                .iter()
                .zip(b.multi.chunks_exact_mut(4))
            {
                out.copy_from_slice(&(m - p.first as u32 + p.packet as u32).to_le_bytes());
            }
            for (t, out) in f.desc.mtasks[p.mtasks.clone()]
                .iter()
                .zip(b.mtasks.chunks_exact_mut(4))
            {
                out.copy_from_slice(&(t - task0 + p.task as u32).to_le_bytes());
            }
            for (k, out) in f.desc.keys[p.keys.clone()]
                .iter()
                .zip(b.keys.chunks_exact_mut(KEY_DESC))
            {
                out.copy_from_slice(k.bytes());
            }
            data(p, f, b.data);
        };
        if self.pieces.len() < 2 {
            self.pieces.iter().zip(slices).for_each(one);
        } else {
            let mut items: Vec<(&Piece, Option<PieceBufs<'_>>)> = self
                .pieces
                .iter()
                .zip(slices.into_iter().map(Some))
                .collect();
            batch.for_each_mut_coarse(&mut items, |(p, b)| {
                if let Some(b) = b.take() {
                    one((p, b));
                }
            });
        }
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

/// How many of `left` packets fit before either cipher's next rekey.
pub(crate) fn before_rekey(state: &DirectionState, left: usize) -> usize {
    let room = |i: u32| (REKEY_INTERVAL - i) as usize;
    left.min(room(state.packet_position().index))
        .min(room(state.length_position().index))
}
