//! A batch on its way through the GPU: planning chunks from the jobs,
//! filling the staging buffer, handing each finished chunk's packets to the
//! jobs (moving each session by what was sealed or verified), and finally
//! giving the library whatever the GPU did not finish.

use crate::cpu::{open_tails, seal_from, valid_prefix, OpenTail};
use crate::jobs::SealJob;
use crate::layout::{wire_len, Regions};
use crate::plan::{before_rekey, ChunkPlan, Limits, Segment};
use rayon::prelude::*;
use wireseal::batch::Batch;
use wireseal::bip324::batch::{OpenJob, OpenedRange};
use wireseal::bip324::state::{DirectionState, Framed};
use wireseal::bip324::{sealed_len, Error, Next, PacketType, HEADER_LEN, LENGTH_LEN};

/// Runs `f` on each job of `jobs` with its plan, in parallel when there are
/// several.
fn each_job<J: Send, P: Send>(
    jobs: &mut [J],
    plans: &mut [P],
    f: impl Fn(usize, &mut J, &mut P) + Sync,
) {
    if jobs.len() < 2 {
        for (i, (j, p)) in jobs.iter_mut().zip(plans.iter_mut()).enumerate() {
            f(i, j, p);
        }
    } else {
        jobs.par_iter_mut()
            .zip(plans.par_iter_mut())
            .enumerate()
            .for_each(|(i, (j, p))| f(i, j, p));
    }
}

/// One direction's batch, as the pipeline drives it.
pub(crate) trait Work {
    /// True for an open.
    fn open(&self) -> bool;
    /// Plans the next chunk into `plan` (cleared first); false when every
    /// packet for the GPU is placed.
    fn plan(&mut self, plan: &mut ChunkPlan) -> bool;
    /// Copies the chunk's packets into the data region of `buf`.
    fn fill(&self, plan: &ChunkPlan, r: &Regions, buf: &mut [u8]);
    /// Hands a finished chunk to its jobs (`out` holds the status and data
    /// regions as `r` lays them out).
    fn scatter(&mut self, plan: &ChunkPlan, r: &Regions, out: &[u8]);
    /// Finishes every job through the library from where the GPU stopped;
    /// returns the engine faults found (see [`crate::Report`]).
    fn finish(&mut self, batch: &Batch) -> usize;
    /// Packets the GPU sealed or opened and the jobs took.
    fn committed(&self) -> usize;
}

/// Copies each run's input into its slice of the data region, in parallel.
fn fill_runs<'s>(
    plan: &ChunkPlan,
    r: &Regions,
    buf: &mut [u8],
    input: impl Fn(usize) -> &'s [u8] + Sync,
    open: bool,
) {
    let slices = plan.run_slices(&mut buf[r.data.clone()]);
    let copy = |(run, (base, data)): (&crate::plan::Run, (usize, &mut [u8]))| {
        let src = &input(run.job)[run.src..];
        let mut at = 0usize;
        for d in &plan.desc.packets[run.descs.clone()] {
            let off = d.offset as usize - base;
            let len = d.len as usize;
            if open {
                let n = wire_len(d.len);
                data[off..off + n].copy_from_slice(&src[at..at + n]);
                at += n;
            } else {
                let body = off + LENGTH_LEN + HEADER_LEN;
                data[body..body + len].copy_from_slice(&src[at..at + len]);
                at += len;
            }
        }
    };
    if plan.runs.len() < 2 {
        plan.runs.iter().zip(slices).for_each(copy);
    } else {
        plan.runs
            .par_iter()
            .zip(slices.into_par_iter())
            .for_each(copy);
    }
}

/// A seal job's progress.
#[derive(Default)]
pub(crate) struct SealPlan {
    started: bool,
    /// Packets the GPU may seal (valid contents, within the key schedule).
    gpu: usize,
    state: Option<DirectionState>,
    placed: usize,
    placed_from: usize,
    committed: usize,
    committed_from: usize,
}

pub(crate) struct SealWork<'j, 'a> {
    jobs: &'j mut [SealJob<'a>],
    plans: Vec<SealPlan>,
    cursor: usize,
    lim: Limits,
}

impl<'j, 'a> SealWork<'j, 'a> {
    pub(crate) fn new(jobs: &'j mut [SealJob<'a>], lim: Limits) -> Self {
        let plans = (0..jobs.len()).map(|_| SealPlan::default()).collect();
        Self {
            jobs,
            plans,
            cursor: 0,
            lim,
        }
    }
}

impl Work for SealWork<'_, '_> {
    fn open(&self) -> bool {
        false
    }

    fn plan(&mut self, plan: &mut ChunkPlan) -> bool {
        plan.clear();
        while self.cursor < self.jobs.len() {
            let job = &self.jobs[self.cursor];
            let p = &mut self.plans[self.cursor];
            if !p.started {
                p.started = true;
                let state = job.sender.export_state();
                let (valid, _) = valid_prefix(job);
                p.gpu = valid.min(usize::try_from(state.messages_left()).unwrap_or(usize::MAX));
                p.state = Some(state);
            }
            while p.placed < p.gpu {
                let state = p.state.as_mut().expect("state exported");
                let count = before_rekey(state, p.gpu - p.placed);
                let first = p.placed;
                let packets = job.packets;
                let seg = Segment {
                    job: self.cursor,
                    first,
                    count,
                    src: p.placed_from,
                    state,
                    len: &|k| packets[first + k].len,
                    header: &|k| packets[first + k].kind.header(),
                    input_len: |len| len as usize,
                };
                let (n, bytes) = plan.place(&seg, &self.lim);
                if n > 0 {
                    state
                        .advance(n as u64)
                        .expect("planned within the key schedule");
                }
                p.placed += n;
                p.placed_from += bytes;
                if n < count {
                    return true;
                }
            }
            self.cursor += 1;
        }
        !plan.is_empty()
    }

    fn fill(&self, plan: &ChunkPlan, r: &Regions, buf: &mut [u8]) {
        fill_runs(plan, r, buf, |j| self.jobs[j].contents, false);
    }

    fn scatter(&mut self, plan: &ChunkPlan, r: &Regions, out: &[u8]) {
        let jobs = plan.jobs();
        let by_job = plan.runs_by_job(jobs.clone());
        let data = &out[r.data.clone()];
        each_job(
            &mut self.jobs[jobs.clone()],
            &mut self.plans[jobs],
            |i, job, p| {
                let runs = &plan.runs[by_job[i].clone()];
                let n: usize = runs.iter().map(|run| run.descs.len()).sum();
                if n == 0 || job.sender.advance(n as u64).is_err() {
                    return;
                }
                for run in runs {
                    for d in &plan.desc.packets[run.descs.clone()] {
                        let at = d.offset as usize;
                        job.out.extend_from_slice(&data[at..at + wire_len(d.len)]);
                        p.committed_from += d.len as usize;
                    }
                }
                p.committed += n;
            },
        );
    }

    fn finish(&mut self, _batch: &Batch) -> usize {
        each_job(self.jobs, &mut self.plans, |_, job, p| {
            job.result = if p.committed == job.packets.len() {
                Ok(p.committed)
            } else {
                seal_from(job, p.committed, p.committed_from).map(|n| p.committed + n)
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
    started: bool,
    /// The result is final (the first packet, opened by the library, failed
    /// or was partial).
    done: bool,
    /// Packets the library opened before the GPU's share (a packet whose
    /// length the receiver had already read).
    head: usize,
    frames: Vec<Framed>,
    state: Option<DirectionState>,
    placed: usize,
    committed: usize,
    /// Where the library takes over.
    committed_at: usize,
    /// The GPU found a packet whose tag failed (at `committed`).
    failed: bool,
}

pub(crate) struct OpenWork<'j, 'a> {
    jobs: &'j mut [OpenJob<'a>],
    plans: Vec<OpenPlan>,
    cursor: usize,
    lim: Limits,
}

impl<'j, 'a> OpenWork<'j, 'a> {
    pub(crate) fn new(jobs: &'j mut [OpenJob<'a>], lim: Limits) -> Self {
        let plans = (0..jobs.len()).map(|_| OpenPlan::default()).collect();
        Self {
            jobs,
            plans,
            cursor: 0,
            lim,
        }
    }
}

/// Starts an open job as the library's batch open does: clears its output,
/// opens a packet whose length the receiver already read (through the
/// library), then exports the state and frames the whole packets after it.
fn start_open(job: &mut OpenJob<'_>, p: &mut OpenPlan) {
    p.started = true;
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
    fn open(&self) -> bool {
        true
    }

    fn plan(&mut self, plan: &mut ChunkPlan) -> bool {
        plan.clear();
        while self.cursor < self.jobs.len() {
            let p = &mut self.plans[self.cursor];
            if !p.started {
                start_open(&mut self.jobs[self.cursor], p);
            }
            while p.placed < p.frames.len() {
                let state = p.state.as_mut().expect("state exported");
                let count = before_rekey(state, p.frames.len() - p.placed);
                let first = p.placed;
                let frames = &p.frames;
                let seg = Segment {
                    job: self.cursor,
                    first,
                    count,
                    src: frames[first].offset,
                    state,
                    len: &|k| frames[first + k].contents_len as u32,
                    header: &|_| 0,
                    input_len: wire_len,
                };
                let (n, _) = plan.place(&seg, &self.lim);
                if n > 0 {
                    state
                        .advance(n as u64)
                        .expect("framed within the key schedule");
                }
                p.placed += n;
                if n < count {
                    return true;
                }
            }
            self.cursor += 1;
        }
        !plan.is_empty()
    }

    fn fill(&self, plan: &ChunkPlan, r: &Regions, buf: &mut [u8]) {
        fill_runs(plan, r, buf, |j| &*self.jobs[j].wire, true);
    }

    fn scatter(&mut self, plan: &ChunkPlan, r: &Regions, out: &[u8]) {
        let jobs = plan.jobs();
        let by_job = plan.runs_by_job(jobs.clone());
        let status = &out[r.status.clone()];
        let data = &out[r.data.clone()];
        each_job(
            &mut self.jobs[jobs.clone()],
            &mut self.plans[jobs],
            |i, job, p| {
                if p.failed {
                    return;
                }
                let runs = &plan.runs[by_job[i].clone()];
                // The packets that verified, in order, up to the first that did not.
                let descs = runs.iter().flat_map(|run| run.descs.clone());
                let ok = descs.clone().take_while(|&d| status[d] == 1).count();
                let all = runs.iter().map(|run| run.descs.len()).sum::<usize>();
                if ok > 0 && job.receiver.advance(ok as u64).is_err() {
                    p.failed = true;
                    return;
                }
                for (k, d) in descs.take(ok).enumerate() {
                    let desc = &plan.desc.packets[d];
                    let f = p.frames[p.committed + k];
                    let body = LENGTH_LEN;
                    let n = HEADER_LEN + f.contents_len;
                    let src = desc.offset as usize + body;
                    job.wire[f.offset + body..f.offset + body + n]
                        .copy_from_slice(&data[src..src + n]);
                    job.opened.push(OpenedRange {
                        offset: f.offset + LENGTH_LEN + HEADER_LEN,
                        len: f.contents_len,
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
                if !p.started {
                    start_open(job, p);
                }
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
