//! Planning a chunk: every packet's place in the data region, its parts, its
//! key entry, nonce index and length-keystream position, from the session's
//! exported state. After this, every packet is independent on the device.

use crate::layout::{place, wire_len, Descriptors, KeyDesc, PacketDesc};
use core::ops::Range;
use wireseal::bip324::state::DirectionState;
use wireseal::bip324::REKEY_INTERVAL;

/// Most packets in one run (the unit the host copies in parallel).
const RUN_PACKETS: usize = 256;

/// Consecutive packets of one job in a chunk, whose input bytes are
/// consecutive in the job too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Run {
    /// The job's index in the batch.
    pub job: usize,
    /// The first packet's index in the job.
    pub first: usize,
    /// Its descriptors in the chunk.
    pub descs: Range<usize>,
    /// Where its input starts in the job (contents for a seal, wire for an
    /// open).
    pub src: usize,
}

/// What bounds a chunk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub packets: usize,
    pub bytes: usize,
    pub task_bytes: u32,
}

/// One chunk: its descriptors and the runs they came from.
#[derive(Default)]
pub(crate) struct ChunkPlan {
    pub desc: Descriptors,
    pub runs: Vec<Run>,
}

/// A job's next packets for [`ChunkPlan::place`]: packet `first + k` has
/// `len(k)` contents bytes and header `header(k)`, and its input starts at
/// byte `src` of the job (each packet's input is `input_len(len)` bytes).
pub(crate) struct Segment<'a> {
    pub job: usize,
    pub first: usize,
    pub count: usize,
    pub src: usize,
    pub state: &'a DirectionState,
    pub len: &'a dyn Fn(usize) -> u32,
    pub header: &'a dyn Fn(usize) -> u8,
    pub input_len: fn(u32) -> usize,
}

impl ChunkPlan {
    pub(crate) fn clear(&mut self) {
        self.desc.clear();
        self.runs.clear();
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.desc.packets.is_empty()
    }

    /// Whether another packet fits (the first always does).
    pub(crate) fn has_room(&self, lim: &Limits) -> bool {
        self.is_empty() || (self.desc.packets.len() < lim.packets && self.desc.data_len < lim.bytes)
    }

    /// Places up to `seg.count` packets of one epoch of each cipher (the
    /// caller cuts segments at rekeys), as many as fit; returns how many,
    /// and the input bytes they take.
    pub(crate) fn place(&mut self, seg: &Segment<'_>, lim: &Limits) -> (usize, usize) {
        let lp = seg.state.length_position();
        let pp = seg.state.packet_position();
        debug_assert!(pp.index as usize + seg.count <= REKEY_INTERVAL as usize);
        debug_assert!(lp.index as usize + seg.count <= REKEY_INTERVAL as usize);
        if seg.count == 0 || !self.has_room(lim) {
            return (0, 0);
        }
        let key = self.desc.keys.len() as u32;
        self.desc.keys.push(KeyDesc::of(seg.state));
        let mut src = seg.src;
        let mut placed = 0;
        while placed < seg.count && self.has_room(lim) {
            let d = &mut self.desc;
            let k = placed;
            let len = (seg.len)(k);
            let offset = place(d.data_len);
            d.data_len = offset + wire_len(len);
            let index = d.packets.len() as u32;
            let parts = (len + 1).div_ceil(lim.task_bytes);
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
            let i = d.packets.len() - 1;
            match self.runs.last_mut() {
                Some(r)
                    if r.job == seg.job
                        && r.first + r.descs.len() == seg.first + k
                        && r.descs.end == i
                        && r.descs.len() < RUN_PACKETS =>
                {
                    r.descs.end = i + 1;
                }
                _ => self.runs.push(Run {
                    job: seg.job,
                    first: seg.first + k,
                    descs: i..i + 1,
                    src,
                }),
            }
            src += (seg.input_len)(len);
            placed += 1;
        }
        (placed, src - seg.src)
    }

    /// The runs of each job from `jobs.start` on, as ranges of `self.runs`
    /// (empty for a job with no packet here).
    pub(crate) fn runs_by_job(&self, jobs: Range<usize>) -> Vec<Range<usize>> {
        let mut out = vec![0..0; jobs.len()];
        for (i, r) in self.runs.iter().enumerate() {
            let slot = &mut out[r.job - jobs.start];
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
        match (self.runs.first(), self.runs.last()) {
            (Some(a), Some(b)) => a.job..b.job + 1,
            _ => 0..0,
        }
    }

    /// The data region split into one slice per run (runs lie in order).
    pub(crate) fn run_slices<'b>(&self, mut data: &'b mut [u8]) -> Vec<(usize, &'b mut [u8])> {
        let mut out = Vec::with_capacity(self.runs.len());
        let mut at = 0usize;
        for r in &self.runs {
            let first = &self.desc.packets[r.descs.start];
            let last = &self.desc.packets[r.descs.end - 1];
            let start = first.offset as usize;
            let end = last.offset as usize + wire_len(last.len);
            let rest = core::mem::take(&mut data);
            let (_, rest) = rest.split_at_mut(start - at);
            let (mine, rest) = rest.split_at_mut(end - start);
            out.push((start, mine));
            data = rest;
            at = end;
        }
        out
    }
}

/// How many of `left` packets fit before either cipher's next rekey.
pub(crate) fn before_rekey(state: &DirectionState, left: usize) -> usize {
    let room = |i: u32| (REKEY_INTERVAL - i) as usize;
    left.min(room(state.packet_position().index))
        .min(room(state.length_position().index))
}
