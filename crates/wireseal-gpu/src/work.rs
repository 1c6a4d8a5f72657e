//! A batch on its way through the GPU: every job's share laid out on every
//! core, chunks cut from those and written into the staging buffer, each
//! finished chunk's packets handed to the jobs (moving each session by what
//! was sealed or verified), and finally whatever the GPU did not finish
//! given to the library.

use crate::cpu::{open_tails, OpenTail};
use crate::exec::Direction;
use crate::jobs::SealJob;
use crate::layout::{wire_len, Counts, Regions};
use crate::plan::{slot, take, Chunk, Cursor, Limits, Packing, Shape, Source};
use wireseal::batch::Batch;
use wireseal::bip324::batch::{seal_outgoing_from, valid_prefix, OpenJob, OpenedRange};
use wireseal::bip324::state::{frame_interleaved, DirectionState, FrameJob, Framed};
use wireseal::bip324::{sealed_len, Error, Next, PacketType, HEADER_LEN, LENGTH_LEN, OVERHEAD};

/// Runs `f` on each job of `jobs` (its index, the job, its plan) through
/// the library's batch: on the calling thread, other cores woken only when
/// the jobs left pay for it.
///
/// False sharing: neighbouring jobs go to different threads, and their
/// output `Vec`s' headers (in the caller's array) and their plans share
/// cache lines. A step that writes per packet to what a job points to (an
/// output `Vec` it pushes to, a plan's counter) therefore works on a local
/// copy and writes it back once: written per packet, the lines moved between
/// the cores on every packet.
fn each_job<J: Send, P: Send>(
    batch: &Batch,
    jobs: &mut [J],
    plans: &mut [P],
    f: impl Fn(usize, &mut J, &mut P) + Sync + Send,
) {
    if jobs.len() < 2 {
        for (i, (j, p)) in jobs.iter_mut().zip(plans.iter_mut()).enumerate() {
            f(i, j, p);
        }
    } else {
        let mut items: Vec<(usize, (&mut J, &mut P))> =
            jobs.iter_mut().zip(plans.iter_mut()).enumerate().collect();
        batch.for_each_mut_coarse(&mut items, |(i, (j, p))| f(*i, j, p));
    }
}

/// One direction's batch, as the pipeline drives it.
pub(crate) trait Work {
    /// Seal or open.
    fn direction(&self) -> Direction;
    /// Cuts the next chunk into `chunk` (cleared first); false when every
    /// packet for the GPU is placed.
    fn plan(&mut self, chunk: &mut Chunk) -> bool;
    /// The most of each region the planned chunk can take: what its
    /// staging buffer is sized for.
    fn bound(&self, chunk: &Chunk) -> Counts;
    /// Writes the chunk (descriptors, keys, packets) into `buf` (sized for
    /// [`Work::bound`]); returns its layout, with `chunk`'s counts final.
    fn fill(&mut self, batch: &Batch, chunk: &mut Chunk, buf: &mut [u8]) -> Regions;
    /// Hands a finished chunk to its jobs (`out` holds the status and data
    /// regions as `r` lays them out).
    fn scatter(&mut self, batch: &Batch, chunk: &Chunk, r: &Regions, out: &[u8]);
    /// Finishes every job through the library from where the GPU stopped;
    /// returns the engine faults found (see [`crate::Report`]).
    fn finish(&mut self, batch: &Batch) -> usize;
    /// Packets the GPU sealed or opened and the jobs took.
    fn committed(&self) -> usize;
}

/// The seal jobs' packets, as planning reads them.
struct Sealing<'s, 'a>(&'s [SealJob<'a>]);

impl Source for Sealing<'_, '_> {
    fn len(&self, job: usize, k: usize) -> u32 {
        self.0[job].packets[k].len
    }

    fn header(&self, job: usize, k: usize) -> u8 {
        self.0[job].packets[k].kind.header()
    }

    fn input_len(&self, len: u32) -> usize {
        len as usize
    }

    fn packing(&self) -> Packing {
        Packing::Slots
    }

    fn copy_in(&self, job: usize, src: usize, len: u32, slot: &mut [u8]) {
        let body = LENGTH_LEN + HEADER_LEN;
        let len = len as usize;
        slot[body..body + len].copy_from_slice(&self.0[job].contents[src..src + len]);
    }
}

/// A seal job's progress.
#[derive(Default)]
pub(crate) struct SealPlan {
    committed: usize,
    /// Where the contents of the first packet not committed start.
    committed_from: usize,
}

pub(crate) struct SealWork<'j, 'a> {
    jobs: &'j mut [SealJob<'a>],
    plans: Vec<SealPlan>,
    shapes: Vec<Shape>,
    cursor: Cursor,
    lim: Limits,
}

impl<'j, 'a> SealWork<'j, 'a> {
    pub(crate) fn new(batch: &Batch, jobs: &'j mut [SealJob<'a>], lim: Limits) -> Self {
        let plans: Vec<SealPlan> = (0..jobs.len()).map(|_| SealPlan::default()).collect();
        let mut shapes: Vec<Shape> = (0..jobs.len()).map(|_| Shape::default()).collect();
        // Each job's share for the GPU (valid contents, within the key
        // schedule), on every core.
        each_job(batch, jobs, &mut shapes, |_, job, s| {
            let state = job.sender.export_state();
            let (valid, _) = valid_prefix(job);
            let gpu = valid.min(usize::try_from(state.messages_left()).unwrap_or(usize::MAX));
            let packets = job.packets;
            *s = Shape::new(
                state,
                (gpu, 0),
                (lim.task_bytes, Packing::Slots),
                |k| packets[k].len,
                |len| len as usize,
            );
            job.out.reserve(s.input + gpu * OVERHEAD);
        });
        Self {
            jobs,
            plans,
            shapes,
            cursor: Cursor::default(),
            lim,
        }
    }
}

impl Work for SealWork<'_, '_> {
    fn direction(&self) -> Direction {
        Direction::Seal
    }

    fn plan(&mut self, chunk: &mut Chunk) -> bool {
        chunk.cut(
            &self.shapes,
            &Sealing(self.jobs),
            &mut self.cursor,
            &self.lim,
        )
    }

    fn bound(&self, chunk: &Chunk) -> Counts {
        chunk.counts
    }

    fn fill(&mut self, batch: &Batch, chunk: &mut Chunk, buf: &mut [u8]) -> Regions {
        let r = Regions::new(&chunk.counts);
        let src = Sealing(self.jobs);
        chunk.write(batch, &self.shapes, &src, self.lim.task_bytes, &r, buf);
        r
    }

    fn scatter(&mut self, batch: &Batch, chunk: &Chunk, r: &Regions, out: &[u8]) {
        let jobs = chunk.jobs();
        let by_job = chunk.pieces_by_job(jobs.clone());
        let data = &out[r.data.clone()];
        each_job(
            batch,
            &mut self.jobs[jobs.clone()],
            &mut self.plans[jobs],
            |i, job, p| {
                let pieces = &chunk.pieces[by_job[i].clone()];
                let n: usize = pieces.iter().map(|piece| piece.count).sum();
                if n == 0 || job.sender.advance(n as u64).is_err() {
                    return;
                }
                // The output and the progress move in locals and are written
                // back once (see [`each_job`]).
                let mut out = core::mem::take(&mut *job.out);
                let mut from = p.committed_from;
                for piece in pieces {
                    let mut at = piece.at.data;
                    for o in &job.packets[piece.first..piece.first + piece.count] {
                        out.extend_from_slice(&data[at..at + wire_len(o.len)]);
                        at += slot(o.len);
                        from += o.len as usize;
                    }
                }
                *job.out = out;
                p.committed_from = from;
                p.committed += n;
            },
        );
    }

    fn finish(&mut self, batch: &Batch) -> usize {
        // Jobs the GPU sealed whole are done here; the others go to the
        // library from where the GPU stopped, on the batch's threads.
        let mut rest: Vec<(&mut SealJob<'_>, &mut SealPlan)> = Vec::new();
        for (job, p) in self.jobs.iter_mut().zip(&mut self.plans) {
            if p.committed == job.packets.len() {
                job.result = Ok(p.committed);
            } else {
                rest.push((job, p));
            }
        }
        batch.for_each_mut_coarse(&mut rest, |(job, p)| {
            job.result =
                seal_outgoing_from(job, p.committed, p.committed_from).map(|n| p.committed + n);
        });
        0
    }

    fn committed(&self) -> usize {
        self.plans.iter().map(|p| p.committed).sum()
    }
}

/// An open job's progress.
#[derive(Default)]
pub(crate) struct OpenPlan {
    /// The result is final (the first packet, opened by the library, failed
    /// or was partial).
    done: bool,
    /// Packets the library opened before the GPU's share (a packet whose
    /// length the receiver had already read).
    head: usize,
    frames: Vec<Framed>,
    state: Option<DirectionState>,
    committed: usize,
    /// Where the library takes over.
    committed_at: usize,
    /// The GPU found a packet whose tag failed (at `committed`).
    failed: bool,
}

pub(crate) struct OpenWork<'j, 'a> {
    jobs: &'j mut [OpenJob<'a>],
    plans: Vec<OpenPlan>,
    shapes: Vec<Shape>,
    cursor: Cursor,
    lim: Limits,
}

impl<'j, 'a> OpenWork<'j, 'a> {
    pub(crate) fn new(batch: &Batch, jobs: &'j mut [OpenJob<'a>], lim: Limits) -> Self {
        // Every job started (a packet whose length the receiver already
        // read opened by the library, the state exported), on every core.
        // Framing waits for the chunk: see [`OpenWork::fill`].
        let mut plans: Vec<OpenPlan> = (0..jobs.len()).map(|_| OpenPlan::default()).collect();
        each_job(batch, jobs, &mut plans, |_, job, p| start_open(job, p));
        let shapes = (0..jobs.len()).map(|_| Shape::default()).collect();
        Self {
            jobs,
            plans,
            shapes,
            cursor: Cursor::default(),
            lim,
        }
    }

    /// Copies each piece's run into its place in `data` and frames it from
    /// the job's wire, which the copy has just brought into the cache, in
    /// groups of [`FRAME_GROUP`] jobs on every core; each job's frames and
    /// [`Shape`] are set.
    fn copy_and_frame(&mut self, batch: &Batch, chunk: &Chunk, data: &mut [u8]) {
        let jobs = chunk.jobs();
        let mut places = (jobs.start..).zip(
            self.plans[jobs.clone()]
                .iter_mut()
                .zip(&mut self.shapes[jobs.clone()])
                .zip(&self.jobs[jobs.clone()]),
        );
        let mut rest = data;
        let mut at = 0usize;
        let mut items: Vec<Run<'_, 'a>> = Vec::with_capacity(chunk.pieces.len());
        for piece in &chunk.pieces {
            let ((p, s), job) = places
                .find(|(i, _)| *i == piece.job)
                .map(|(_, x)| x)
                .expect("a plan per job of the chunk, in order");
            let _ = take(&mut rest, piece.at.data - at);
            at = piece.data().end;
            items.push((job, p, s, take(&mut rest, piece.takes.data)));
        }
        let tb = self.lim.task_bytes;
        let mut groups: Vec<&mut [Run<'_, 'a>]> = items.chunks_mut(FRAME_GROUP).collect();
        let one = |g: &mut &mut [Run<'_, 'a>]| frame_group(g, tb);
        if groups.len() < 2 {
            groups.iter_mut().for_each(one);
        } else {
            batch.for_each_mut_coarse(&mut groups, one);
        }
    }
}

/// One job's run in a chunk: the job, its plan and shape, and its place in
/// the data region.
type Run<'r, 'a> = (
    &'r OpenJob<'a>,
    &'r mut OpenPlan,
    &'r mut Shape,
    &'r mut [u8],
);

/// Jobs framed side by side (see [`frame_interleaved`]).
const FRAME_GROUP: usize = 16;

/// Copies a group of runs into the data region, then frames them side by
/// side from their wires (in the cache now) and shapes them.
fn frame_group(runs: &mut [Run<'_, '_>], task_bytes: u32) {
    for (job, p, _, place) in runs.iter_mut() {
        let at = p.committed_at;
        place.copy_from_slice(&job.wire[at..at + place.len()]);
    }
    let mut framing: Vec<FrameJob<'_>> = runs
        .iter_mut()
        .map(|(job, p, _, _)| {
            // Room for the packets of a mixed profile's mean size (more are
            // pushed as they come).
            let wire = &job.wire[p.committed_at..];
            p.frames.clear();
            p.frames.reserve(wire.len() / FRAME_GUESS + 1);
            FrameJob::new(&*job.receiver, wire, &mut p.frames)
        })
        .collect();
    frame_interleaved(&mut framing);
    drop(framing);
    for (_, p, s, _) in runs.iter_mut() {
        let at = p.committed_at;
        for f in &mut p.frames {
            f.offset += at;
        }
        let (Some(state), Some(first)) = (p.state.take(), p.frames.first()) else {
            continue;
        };
        let frames = &p.frames;
        **s = Shape::new(
            state,
            (frames.len(), first.offset),
            (task_bytes, Packing::Wire),
            |k| frames[k].contents_len as u32,
            wire_len,
        );
    }
}

/// The open jobs' framed packets, as planning reads them.
struct Opening<'s>(&'s [OpenPlan]);

impl Source for Opening<'_> {
    fn len(&self, job: usize, k: usize) -> u32 {
        self.0[job].frames[k].contents_len as u32
    }

    fn header(&self, _: usize, _: usize) -> u8 {
        0
    }

    fn input_len(&self, len: u32) -> usize {
        wire_len(len)
    }

    fn packing(&self) -> Packing {
        Packing::Wire
    }

    /// Nothing per packet: each run was copied whole when it was framed
    /// ([`OpenWork::fill`]).
    fn copy_in(&self, _: usize, _: usize, _: u32, _: &mut [u8]) {}
}

/// Wire bytes per packet assumed when reserving room for an open job's
/// frames.
const FRAME_GUESS: usize = 256;

/// Starts an open job as the library's batch open does: clears its output,
/// opens a packet whose length the receiver already read (through the
/// library), then exports the state (its whole packets are framed from
/// `committed_at` by [`start_group`]).
fn start_open(job: &mut OpenJob<'_>, p: &mut OpenPlan) {
    job.opened.clear();
    job.result = Ok(0);
    let mut at = 0usize;
    if job.receiver.pending_len().is_some() && !job.wire.is_empty() {
        match job.receiver.open_next(b"", job.wire) {
            Ok(Next::Packet { packet, consumed }) => {
                job.opened.push(OpenedRange {
                    offset: LENGTH_LEN + HEADER_LEN,
                    len: packet.contents.len(),
                    kind: packet.kind,
                });
                p.head = 1;
                at = consumed;
            }
            Ok(Next::NeedMore(n)) => {
                job.result = Err(Error::Truncated {
                    len: job.wire.len(),
                    min: n,
                });
                p.done = true;
            }
            Err(e) => {
                job.result = Err(e);
                p.done = true;
            }
        }
    }
    p.committed_at = at;
    if p.done {
        return;
    }
    p.state = job.receiver.export_state().ok();
}

impl Work for OpenWork<'_, '_> {
    fn direction(&self) -> Direction {
        Direction::Open
    }

    fn plan(&mut self, chunk: &mut Chunk) -> bool {
        let (jobs, plans) = (&*self.jobs, &self.plans);
        let run = |j: usize| {
            let p = &plans[j];
            let at = p.committed_at;
            (p.state.is_some() && at < jobs[j].wire.len()).then(|| (at, jobs[j].wire.len() - at))
        };
        chunk.cut_runs(jobs.len(), run, &mut self.cursor, &self.lim)
    }

    fn bound(&self, chunk: &Chunk) -> Counts {
        chunk.run_bound(self.lim.task_bytes)
    }

    /// Each run copied whole into the data region and framed from the job's
    /// wire right after (the copy has brought it into the cache, so the
    /// walk, a chain of dependent reads, runs from the cache rather than
    /// from memory), then the chunk settled and every descriptor written.
    fn fill(&mut self, batch: &Batch, chunk: &mut Chunk, buf: &mut [u8]) -> Regions {
        let data_end = chunk.counts.data;
        self.copy_and_frame(batch, chunk, &mut buf[..data_end]);
        chunk.settle(&self.shapes);
        let r = Regions::new(&chunk.counts);
        let src = Opening(&self.plans);
        chunk.write(batch, &self.shapes, &src, self.lim.task_bytes, &r, buf);
        r
    }

    fn scatter(&mut self, batch: &Batch, chunk: &Chunk, r: &Regions, out: &[u8]) {
        let jobs = chunk.jobs();
        let by_job = chunk.pieces_by_job(jobs.clone());
        let status = &out[r.status.clone()];
        let data = &out[r.data.clone()];
        each_job(
            batch,
            &mut self.jobs[jobs.clone()],
            &mut self.plans[jobs],
            |i, job, p| {
                if p.failed {
                    return;
                }
                let pieces = &chunk.pieces[by_job[i].clone()];
                let all: usize = pieces.iter().map(|piece| piece.count).sum();
                // The packets that verified, in order, up to the first that
                // did not.
                let ok = pieces
                    .iter()
                    .flat_map(|piece| piece.at.packets..piece.at.packets + piece.count)
                    .take_while(|&d| status[d] == 1)
                    .count();
                if ok > 0 && job.receiver.advance(ok as u64).is_err() {
                    p.failed = true;
                    return;
                }
                let mut left = ok;
                // Written back once (see [`each_job`]).
                let mut opened = core::mem::take(&mut *job.opened);
                opened.reserve(ok);
                for piece in pieces {
                    let n = piece.count.min(left);
                    let frames = &p.frames[piece.first..piece.first + n];
                    if let (Some(first), Some(last)) = (frames.first(), frames.last()) {
                        // The verified packets of the run, back whole as the
                        // device left them: bodies opened; length fields and
                        // tags as they came.
                        let (from, to) =
                            (first.offset, last.offset + sealed_len(last.contents_len));
                        let at = piece.at.data;
                        job.wire[from..to].copy_from_slice(&data[at..at + (to - from)]);
                    }
                    for fr in frames {
                        let body = fr.offset + LENGTH_LEN;
                        opened.push(OpenedRange {
                            offset: body + HEADER_LEN,
                            len: fr.contents_len,
                            kind: PacketType::from_header(job.wire[body]),
                        });
                    }
                    left -= n;
                }
                *job.opened = opened;
                if ok > 0 {
                    let last = p.frames[p.committed + ok - 1];
                    p.committed_at = last.offset + sealed_len(last.contents_len);
                    p.committed += ok;
                }
                if ok < all {
                    p.failed = true;
                }
            },
        );
    }

    fn finish(&mut self, batch: &Batch) -> usize {
        let tails: Vec<Option<OpenTail>> = self
            .jobs
            .iter_mut()
            .zip(&mut self.plans)
            .map(|(job, p)| {
                if p.done {
                    return None;
                }
                let opened = p.head + p.committed;
                if !p.failed && p.committed_at == job.wire.len() {
                    job.result = Ok(opened);
                    return None;
                }
                Some(OpenTail {
                    at: p.committed_at,
                    opened,
                    gpu_failed: p.failed,
                })
            })
            .collect();
        open_tails(batch, self.jobs, &tails)
    }

    fn committed(&self) -> usize {
        self.plans.iter().map(|p| p.committed).sum()
    }
}
