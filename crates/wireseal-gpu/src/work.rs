//! A batch on its way through the GPU: every job's share laid out on every
//! core, chunks cut from those and written into the staging buffer, each
//! finished chunk's packets handed to the jobs (moving each session by what
//! was sealed or verified), and finally whatever the GPU did not finish
//! given to the library.

use crate::cpu::{open_tails, OpenTail};
use crate::exec::Direction;
use crate::framing::{self, Place, MAX_RUN};
use crate::jobs::SealJob;
use crate::layout::{run_count, wire_len, Counts, Regions, KEY_DESC, RUN_DESC};
use crate::plan::{slot, take, Chunk, Cursor, Limits, Shape, Source};
use wireseal::batch::Batch;
use wireseal::bip324::batch::{seal_outgoing_from, valid_prefix, OpenJob, OpenedRange};
use wireseal::bip324::state::DirectionState;
use wireseal::bip324::{Error, Next, HEADER_LEN, LENGTH_LEN, OVERHEAD};

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
    /// The layout of the most of each region the planned chunk can take:
    /// what its staging buffer is sized for.
    fn bound(&self, chunk: &Chunk) -> Regions;
    /// Writes the chunk (descriptors, keys, packets) into `buf` (sized for
    /// [`Work::bound`]); returns its layout, with `chunk`'s counts the ones
    /// the executor launches for.
    fn fill(&mut self, batch: &Batch, chunk: &mut Chunk, buf: &mut [u8]) -> Regions;
    /// Hands a finished chunk to its jobs (`out` holds what the device
    /// sent back, [`Regions::output`], as `r` lays it out).
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
                lim.task_bytes,
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

    fn bound(&self, chunk: &Chunk) -> Regions {
        Regions::new(&chunk.counts)
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
    /// The receiver's state where the GPU's share starts.
    state: Option<DirectionState>,
    committed: usize,
    /// Where the library takes over.
    committed_at: usize,
    /// The GPU found a packet whose tag failed (at `committed`), or gave
    /// back a run that does not add up (an engine fault).
    failed: bool,
}

pub(crate) struct OpenWork<'j, 'a> {
    jobs: &'j mut [OpenJob<'a>],
    plans: Vec<OpenPlan>,
    cursor: Cursor,
    lim: Limits,
}

impl<'j, 'a> OpenWork<'j, 'a> {
    pub(crate) fn new(batch: &Batch, jobs: &'j mut [OpenJob<'a>], lim: Limits) -> Self {
        // Every job started (a packet whose length the receiver already
        // read opened by the library, the state exported), on every core.
        let mut plans: Vec<OpenPlan> = (0..jobs.len()).map(|_| OpenPlan::default()).collect();
        each_job(batch, jobs, &mut plans, |_, job, p| start_open(job, p));
        Self {
            jobs,
            plans,
            cursor: Cursor::default(),
            lim,
        }
    }

    /// The most of each region a chunk of runs can take (its runs'
    /// bounds were summed when it was planned).
    fn most_counts(&self, chunk: &Chunk) -> Counts {
        let c = &chunk.counts;
        let runs = chunk.pieces.len();
        framing::counts(c.data, runs, c.packets, c.keys, self.lim.task_bytes)
    }

    /// Writes every run into `buf` (laid out as `r`) on the batch's cores.
    fn write_runs(&self, batch: &Batch, chunk: &Chunk, r: &Regions, buf: &mut [u8]) {
        let [mut data, mut runs, mut keys] = r.split_framed(buf);
        let mut items: Vec<Placed<'_, '_>> = Vec::with_capacity(chunk.pieces.len());
        for piece in &chunk.pieces {
            let most = (piece.takes.packets, piece.takes.keys);
            let at = Place {
                offset: piece.at.data,
                len: piece.takes.data,
                key: piece.at.keys,
                lens: piece.at.packets,
            };
            let slices = (
                take(&mut data, piece.takes.data),
                take(&mut runs, RUN_DESC),
                take(&mut keys, most.1 * KEY_DESC),
            );
            let (job, p) = (&self.jobs[piece.job], &self.plans[piece.job]);
            items.push((job, p, (at, most), slices));
        }
        let one = |(job, p, at, place): &mut Placed<'_, '_>| write_run(job, p, at, place);
        if items.len() < 2 {
            items.iter_mut().for_each(one);
        } else {
            batch.for_each_mut_coarse(&mut items, one);
        }
    }
}

/// Writes one run: its bytes copied into the data region, its `ws_run`
/// and its first key entry ([`framing::write`]).
fn write_run(
    job: &OpenJob<'_>,
    p: &OpenPlan,
    (at, most): &(Place, (usize, usize)),
    place: &mut Slices<'_>,
) {
    let (data, run, keys) = place;
    let from = p.committed_at;
    data.copy_from_slice(&job.wire[from..from + data.len()]);
    let state = p.state.as_ref().expect("a planned run has its state");
    framing::write(job.receiver, state, at, *most, run, keys);
}

/// A run's places in a chunk's buffer: its data, its `ws_run`, its key
/// entries.
type Slices<'r> = (&'r mut [u8], &'r mut [u8], &'r mut [u8]);

/// The open jobs' runs in a chunk, with their places (and [`framing::most`]
/// of each).
type Placed<'r, 'a> = (
    &'r OpenJob<'a>,
    &'r OpenPlan,
    (Place, (usize, usize)),
    Slices<'r>,
);

/// Starts an open job as the library's batch open does: clears its output,
/// opens a packet whose length the receiver already read (through the
/// library), then exports the state (its whole packets are found on the
/// device from `committed_at`).
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

/// Hands one run's verified packets to its job: the receiver moved on by
/// them, their bytes back into the wire as the device left them (bodies
/// opened; length fields and tags as they came), and their ranges. A
/// result that does not add up (more packets than the lengths given, bytes
/// past the run) is an engine fault: nothing is taken and the library
/// opens the run.
fn take_run(job: &mut OpenJob<'_>, p: &mut OpenPlan, count: u32, lens: &[u8], data: &[u8]) {
    let Some(v) = framing::verified(count, lens, data.len()) else {
        p.failed = true;
        return;
    };
    let (ok, bytes) = (v.ok, v.bytes);
    if ok > 0 {
        if job.receiver.advance(ok as u64).is_err() {
            p.failed = true;
            return;
        }
        let at = p.committed_at;
        job.wire[at..at + bytes].copy_from_slice(&data[..bytes]);
        // Written back once (see [`each_job`]).
        let mut opened = core::mem::take(&mut *job.opened);
        v.ranges(job.wire, at, &mut opened);
        *job.opened = opened;
        p.committed_at = at + bytes;
        p.committed += ok;
    }
    if v.ok < v.count {
        p.failed = true;
    }
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
            let len = jobs[j].wire.len().saturating_sub(at).min(MAX_RUN);
            (p.state.is_some() && len > 0).then_some((at, len))
        };
        let more = chunk.cut_runs(jobs.len(), run, &mut self.cursor, &self.lim);
        // Each run's bounds ([`framing::most`]), once: its most packets and
        // key entries (`takes`), and where its lengths and key entries
        // start (`at`); the chunk's sums in its counts.
        let (mut lens, mut keys) = (0usize, 0usize);
        for piece in &mut chunk.pieces {
            let state = self.plans[piece.job].state.as_ref();
            let (n, k) = framing::most(
                state.expect("a planned run has its state"),
                piece.takes.data,
            );
            (piece.at.packets, piece.at.keys) = (lens, keys);
            (piece.takes.packets, piece.takes.keys) = (n, k);
            lens += n;
            keys += k;
        }
        (chunk.counts.packets, chunk.counts.keys) = (lens, keys);
        more
    }

    fn bound(&self, chunk: &Chunk) -> Regions {
        Regions::framed(&self.most_counts(chunk))
    }

    /// Each run copied whole into the data region, with its `ws_run` and
    /// its key entry, on every core: the device finds its packets.
    fn fill(&mut self, batch: &Batch, chunk: &mut Chunk, buf: &mut [u8]) -> Regions {
        let counts = self.most_counts(chunk);
        let r = Regions::framed(&counts);
        self.write_runs(batch, chunk, &r, buf);
        chunk.counts = counts;
        r
    }

    fn scatter(&mut self, batch: &Batch, chunk: &Chunk, r: &Regions, out: &[u8]) {
        let jobs = chunk.jobs();
        let by_job = chunk.pieces_by_job(jobs.clone());
        let runs = &out[r.runs.clone()];
        let lens = &out[r.lens.clone()];
        let data = &out[r.data.clone()];
        each_job(
            batch,
            &mut self.jobs[jobs.clone()],
            &mut self.plans[jobs],
            |i, job, p| {
                // One run per job in a chunk.
                let Some(k) = by_job[i].clone().next() else {
                    return;
                };
                let piece = &chunk.pieces[k];
                let count = run_count(&runs[k * RUN_DESC..(k + 1) * RUN_DESC]);
                let lens = lens.get(4 * piece.at.packets..).unwrap_or_default();
                take_run(job, p, count, lens, &data[piece.data()]);
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
