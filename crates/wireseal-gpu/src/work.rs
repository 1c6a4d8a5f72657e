//! A batch on its way through the GPU: every job's share laid out on every
//! core, chunks cut from those and written into the staging buffer, each
//! finished chunk's packets handed to the jobs (moving each session by what
//! was sealed or verified), and finally whatever the GPU did not finish
//! given to the library.

use crate::cpu::{open_tails, OpenTail};
use crate::exec::Direction;
use crate::jobs::SealJob;
use crate::layout::{wire_len, Regions};
use crate::plan::{before_rekey, Chunk, Cursor, Fragment, Limits, Segment};
use wireseal::batch::Batch;
use wireseal::bip324::batch::{seal_outgoing_from, valid_prefix, OpenJob, OpenedRange};
use wireseal::bip324::state::{DirectionState, Framed};
use wireseal::bip324::{sealed_len, Error, Next, PacketType, HEADER_LEN, LENGTH_LEN, OVERHEAD};

/// Runs `f` on each job of `jobs` (its index, the job, its plan) through
/// the library's batch: on the calling thread, other cores woken only when
/// the jobs left pay for it.
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
    /// Writes the chunk (descriptors, keys, packets) into `buf`, laid out
    /// as `r`.
    fn fill(&self, batch: &Batch, chunk: &Chunk, r: &Regions, buf: &mut [u8]);
    /// Hands a finished chunk to its jobs (`out` holds the status and data
    /// regions as `r` lays them out).
    fn scatter(&mut self, batch: &Batch, chunk: &Chunk, r: &Regions, out: &[u8]);
    /// Finishes every job through the library from where the GPU stopped;
    /// returns the engine faults found (see [`crate::Report`]).
    fn finish(&mut self, batch: &Batch) -> usize;
    /// Packets the GPU sealed or opened and the jobs took.
    fn committed(&self) -> usize;
}

/// Lays out `count` packets of a session at `state`: packet `k` has
/// `len(k)` contents bytes and header `header(k)`; the first's input is at
/// `src` and each next one `input_len(len)` bytes on. Returns the fragment
/// and the input bytes it covers.
fn fragment(
    mut state: DirectionState,
    count: usize,
    src: usize,
    task_bytes: u32,
    len: &dyn Fn(usize) -> u32,
    header: &dyn Fn(usize) -> u8,
    input_len: fn(u32) -> usize,
) -> (Fragment, usize) {
    let mut f = Fragment::with_capacity(count);
    let (mut placed, mut at) = (0usize, src);
    while placed < count {
        let n = before_rekey(&state, count - placed);
        let first = placed;
        let seg = Segment {
            first,
            count: n,
            src: at,
            state: &state,
            len: &|k| len(first + k),
            header: &|k| header(first + k),
            input_len,
        };
        at += f.place(&seg, task_bytes);
        state
            .advance(n as u64)
            .expect("placed within the key schedule");
        placed += n;
    }
    (f, at - src)
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
    frags: Vec<Fragment>,
    cursor: Cursor,
    lim: Limits,
}

impl<'j, 'a> SealWork<'j, 'a> {
    pub(crate) fn new(batch: &Batch, jobs: &'j mut [SealJob<'a>], lim: Limits) -> Self {
        let plans: Vec<SealPlan> = (0..jobs.len()).map(|_| SealPlan::default()).collect();
        let mut frags: Vec<Fragment> = (0..jobs.len()).map(|_| Fragment::default()).collect();
        // Each job's share for the GPU (valid contents, within the key
        // schedule) laid out, on every core.
        each_job(batch, jobs, &mut frags, |_, job, f| {
            let state = job.sender.export_state();
            let (valid, _) = valid_prefix(job);
            let gpu = valid.min(usize::try_from(state.messages_left()).unwrap_or(usize::MAX));
            let packets = job.packets;
            let (frag, bytes) = fragment(
                state,
                gpu,
                0,
                lim.task_bytes,
                &|k| packets[k].len,
                &|k| packets[k].kind.header(),
                |len| len as usize,
            );
            *f = frag;
            job.out.reserve(bytes + gpu * OVERHEAD);
        });
        Self {
            jobs,
            plans,
            frags,
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
        chunk.cut(&self.frags, &mut self.cursor, &self.lim)
    }

    fn fill(&self, batch: &Batch, chunk: &Chunk, r: &Regions, buf: &mut [u8]) {
        chunk.write(batch, &self.frags, r, buf, |p, f, data| {
            let contents = self.jobs[p.job].contents;
            for k in p.first..p.first + p.count {
                let body = p.offset(f, k) - p.data.start + LENGTH_LEN + HEADER_LEN;
                let (s, len) = (f.src[k], f.desc.packets[k].len as usize);
                data[body..body + len].copy_from_slice(&contents[s..s + len]);
            }
        });
    }

    fn scatter(&mut self, batch: &Batch, chunk: &Chunk, r: &Regions, out: &[u8]) {
        let jobs = chunk.jobs();
        let by_job = chunk.pieces_by_job(jobs.clone());
        let data = &out[r.data.clone()];
        let frags = &self.frags[jobs.clone()];
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
                let f = &frags[i];
                for piece in pieces {
                    for k in piece.first..piece.first + piece.count {
                        let at = piece.offset(f, k);
                        let end = at + wire_len(f.desc.packets[k].len);
                        job.out.extend_from_slice(&data[at..end]);
                    }
                    let last = piece.first + piece.count - 1;
                    p.committed_from = f.src[last] + f.desc.packets[last].len as usize;
                }
                p.committed += n;
            },
        );
    }

    fn finish(&mut self, batch: &Batch) -> usize {
        each_job(batch, self.jobs, &mut self.plans, |_, job, p| {
            job.result = if p.committed == job.packets.len() {
                Ok(p.committed)
            } else {
                seal_outgoing_from(job, p.committed, p.committed_from).map(|n| p.committed + n)
            };
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
    frags: Vec<Fragment>,
    cursor: Cursor,
    lim: Limits,
}

impl<'j, 'a> OpenWork<'j, 'a> {
    pub(crate) fn new(batch: &Batch, jobs: &'j mut [OpenJob<'a>], lim: Limits) -> Self {
        let mut plans: Vec<OpenPlan> = (0..jobs.len()).map(|_| OpenPlan::default()).collect();
        let mut frags: Vec<Fragment> = (0..jobs.len()).map(|_| Fragment::default()).collect();
        // Every job framed (its lengths decrypted) and its packets laid
        // out, on every core.
        each_job(batch, jobs, &mut plans, |_, job, p| start_open(job, p));
        each_job(batch, &mut plans, &mut frags, |_, p, f| {
            let (Some(state), Some(first)) = (p.state.take(), p.frames.first()) else {
                return;
            };
            let frames = &p.frames;
            *f = fragment(
                state,
                frames.len(),
                first.offset,
                lim.task_bytes,
                &|k| frames[k].contents_len as u32,
                &|_| 0,
                wire_len,
            )
            .0;
        });
        Self {
            jobs,
            plans,
            frags,
            cursor: Cursor::default(),
            lim,
        }
    }
}

/// Starts an open job as the library's batch open does: clears its output,
/// opens a packet whose length the receiver already read (through the
/// library), then exports the state and frames the whole packets after it.
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
    if let Ok(state) = job.receiver.export_state() {
        job.receiver.frame(&job.wire[at..], &mut p.frames);
        for f in &mut p.frames {
            f.offset += at;
        }
        p.state = Some(state);
    }
}

impl Work for OpenWork<'_, '_> {
    fn direction(&self) -> Direction {
        Direction::Open
    }

    fn plan(&mut self, chunk: &mut Chunk) -> bool {
        chunk.cut(&self.frags, &mut self.cursor, &self.lim)
    }

    fn fill(&self, batch: &Batch, chunk: &Chunk, r: &Regions, buf: &mut [u8]) {
        chunk.write(batch, &self.frags, r, buf, |p, f, data| {
            let wire = &*self.jobs[p.job].wire;
            for k in p.first..p.first + p.count {
                let at = p.offset(f, k) - p.data.start;
                let (s, n) = (f.src[k], wire_len(f.desc.packets[k].len));
                data[at..at + n].copy_from_slice(&wire[s..s + n]);
            }
        });
    }

    fn scatter(&mut self, batch: &Batch, chunk: &Chunk, r: &Regions, out: &[u8]) {
        let jobs = chunk.jobs();
        let by_job = chunk.pieces_by_job(jobs.clone());
        let status = &out[r.status.clone()];
        let data = &out[r.data.clone()];
        let frags = &self.frags[jobs.clone()];
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
                    .flat_map(|piece| piece.packet..piece.packet + piece.count)
                    .take_while(|&d| status[d] == 1)
                    .count();
                if ok > 0 && job.receiver.advance(ok as u64).is_err() {
                    p.failed = true;
                    return;
                }
                let f = &frags[i];
                let verified = pieces
                    .iter()
                    .flat_map(|piece| {
                        (piece.first..piece.first + piece.count).map(move |k| (piece, k))
                    })
                    .take(ok);
                for (piece, k) in verified {
                    let fr = p.frames[k];
                    let src = piece.offset(f, k) + LENGTH_LEN;
                    let n = HEADER_LEN + fr.contents_len;
                    let body = fr.offset + LENGTH_LEN;
                    job.wire[body..body + n].copy_from_slice(&data[src..src + n]);
                    job.opened.push(OpenedRange {
                        offset: body + HEADER_LEN,
                        len: fr.contents_len,
                        kind: PacketType::from_header(data[src]),
                    });
                }
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
