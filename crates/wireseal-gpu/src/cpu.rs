//! The CPU path: the library's own calls, across cores. It runs whole
//! batches under the threshold (and every batch without a device), and
//! finishes the jobs the GPU stopped short of, from where it stopped.

use crate::jobs::SealJob;
use rayon::prelude::*;
use wireseal::batch::Batch;
use wireseal::bip324::batch::{open_batch_into, OpenJob, OpenedRange};
use wireseal::bip324::{sealed_len, Error, HEADER_LEN, LENGTH_LEN, MAX_CONTENTS_LEN, TAG_LEN};

/// Seals `job.packets[first..]`, whose contents start at `job.contents[from]`,
/// through the library, appending to `job.out`; returns how many were
/// sealed, or the first error (as the library's batch seal does).
pub(crate) fn seal_from(
    job: &mut SealJob<'_>,
    first: usize,
    mut from: usize,
) -> Result<usize, Error> {
    let rest = &job.packets[first.min(job.packets.len())..];
    job.out.reserve(
        rest.iter()
            .map(|p| sealed_len(p.len as usize))
            .fold(0usize, usize::saturating_add)
            .min(1 << 30),
    );
    for p in rest {
        let s = p.len as usize;
        let Some(c) = job.contents.get(from..from.saturating_add(s)) else {
            return Err(Error::Truncated {
                len: job.contents.len(),
                min: from + s,
            });
        };
        if s > MAX_CONTENTS_LEN {
            return Err(Error::TooLong {
                len: s,
                max: MAX_CONTENTS_LEN,
            });
        }
        let at = job.out.len();
        job.out.extend_from_slice(&[0u8; LENGTH_LEN + HEADER_LEN]);
        job.out.extend_from_slice(c);
        job.out.extend_from_slice(&[0u8; TAG_LEN]);
        if let Err(e) = job.sender.seal_in_place(s, p.kind, b"", &mut job.out[at..]) {
            job.out.truncate(at);
            return Err(e);
        }
        from += s;
    }
    Ok(rest.len())
}

/// How many of `job`'s packets, from the start, have their contents in
/// `job.contents` and a length the format allows (where the library's
/// batch would stop with `Truncated` or `TooLong`), and the contents bytes
/// they take.
pub(crate) fn valid_prefix(job: &SealJob<'_>) -> (usize, usize) {
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

/// Every job sealed through the library from its start; jobs in parallel
/// when there are several.
pub(crate) fn seal_all(jobs: &mut [SealJob<'_>]) {
    let run = |job: &mut SealJob<'_>| job.result = seal_from(job, 0, 0);
    if jobs.len() < 2 {
        jobs.iter_mut().for_each(run);
    } else {
        jobs.par_iter_mut().for_each(run);
    }
}

/// Every job opened through the library's batch (a single job on the
/// calling thread).
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
