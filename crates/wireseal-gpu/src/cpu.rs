//! The CPU path: the library's own batch calls. It runs whole
//! batches under the threshold (and every batch without a device), and
//! finishes the jobs the GPU stopped short of, from where it stopped.

use crate::jobs::SealJob;
use wireseal::batch::Batch;
use wireseal::bip324::batch::{open_batch_into, seal_outgoing_into, OpenJob, OpenedRange};
use wireseal::bip324::Error;

/// Every job sealed through the library's batch from its start.
#[inline]
pub(crate) fn seal_all(batch: &Batch, jobs: &mut [SealJob<'_>]) {
    seal_outgoing_into(batch, jobs);
}

/// Every job opened through the library's batch (a single job on the
/// calling thread).
#[inline]
pub(crate) fn open_all(batch: &Batch, jobs: &mut [OpenJob<'_>]) {
    open_batch_into(batch, jobs);
}

/// Where the library takes over an open job: the offset in its wire, the
/// packets already opened before it, and (for counting disagreements)
/// whether the GPU said the packet there failed its tag.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpenTail {
    pub at: usize,
    pub opened: usize,
    pub gpu_failed: bool,
}

/// Finishes open jobs through the library's batch from each tail's offset;
/// `tails[i]` is job `i`'s, `None` for a job that is finished. Returns how
/// many jobs the library opened a packet of that the GPU had failed (an
/// engine fault; zero in every test).
pub(crate) fn open_tails(
    batch: &Batch,
    jobs: &mut [OpenJob<'_>],
    tails: &[Option<OpenTail>],
) -> usize {
    let mut opened: Vec<Vec<OpenedRange>> = (0..jobs.len()).map(|_| Vec::new()).collect();
    let mut index = Vec::new();
    let mut list: Vec<OpenJob<'_>> = Vec::new();
    for ((i, job), out) in jobs.iter_mut().enumerate().zip(opened.iter_mut()) {
        if let Some(t) = tails[i] {
            index.push(i);
            list.push(OpenJob {
                receiver: &mut *job.receiver,
                wire: &mut job.wire[t.at..],
                opened: out,
                result: Ok(0),
            });
        }
    }
    open_batch_into(batch, &mut list);
    let results: Vec<Result<usize, Error>> = list.iter().map(|j| j.result).collect();
    drop(list);
    let mut disagreements = 0;
    for (i, result) in index.into_iter().zip(results) {
        let t = tails[i].expect("a tail for every listed job");
        if t.gpu_failed && !opened[i].is_empty() {
            disagreements += 1;
        }
        let job = &mut jobs[i];
        job.opened.extend(opened[i].iter().map(|r| OpenedRange {
            offset: r.offset + t.at,
            ..*r
        }));
        job.result = result.map(|n| t.opened + n);
    }
    disagreements
}
