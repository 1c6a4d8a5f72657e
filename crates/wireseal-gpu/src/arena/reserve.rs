//! Reserving packets: each one placed in the data region when it is
//! reserved, numbered within its session, its first part and its entries
//! in the multi-part lists counted, singly or in runs filled on the
//! engine's threads.

use super::{ArenaError, Run, SealArena};
use crate::jobs::Outgoing;
use crate::layout::{Counts, Reserved};
use crate::plan::add;
use wireseal::bip324::{Error, HEADER_LEN, LENGTH_LEN, MAX_CONTENTS_LEN};

impl Reserved {
    /// The entry of packet `o`, the `ordinal`-th of `session`, placed at
    /// `at`, which then moves past it.
    pub(super) fn next(
        at: &mut Counts,
        session: usize,
        ordinal: u32,
        o: &Outgoing,
        task_bytes: u32,
    ) -> Self {
        let r = Reserved {
            session: session as u32,
            ordinal,
            len: o.len,
            header: o.kind.header(),
            offset: at.data,
            task: at.tasks as u32,
            multi: at.multi as u32,
            mtask: at.mtasks as u32,
        };
        add(at, o.len, task_bytes);
        at.packets += 1;
        r
    }

    /// Where its contents go in the data region.
    pub(super) fn contents(&self) -> core::ops::Range<usize> {
        let body = self.offset + LENGTH_LEN + HEADER_LEN;
        body..body + self.len as usize
    }
}

/// A place holder while runs are reserved.
const EMPTY: Reserved = Reserved {
    session: 0,
    ordinal: 0,
    len: 0,
    header: 0,
    offset: 0,
    task: 0,
    multi: 0,
    mtask: 0,
};

/// What a run takes, or the length of its first packet over the limit.
#[derive(Debug, Clone, Copy, Default)]
struct RunTotals {
    counts: Counts,
    contents: usize,
    too_long: Option<u32>,
}

/// Where a run starts: the arena's counts before it, and its first
/// packet's index among its session's packets.
#[derive(Debug, Clone, Copy)]
struct RunBase {
    at: Counts,
    ordinal: u32,
}

/// The arena after a set of runs.
struct ArenaEnd {
    counts: Counts,
    contents: usize,
    per_session: Vec<u32>,
}

/// Whether `packets` more packets of `contents` bytes for `session` fit in
/// an arena of `cap` that holds `have` (`too_long`: a length over the
/// limit among them).
pub(super) fn admit(
    cap: &super::Capacity,
    session: usize,
    too_long: Option<u32>,
    have: (usize, usize),
    more: (usize, usize),
) -> Result<(), ArenaError> {
    if session >= cap.sessions {
        return Err(ArenaError::NoSession {
            session,
            sessions: cap.sessions,
        });
    }
    if let Some(len) = too_long {
        return Err(ArenaError::Session {
            session,
            error: Error::TooLong {
                len: len as usize,
                max: MAX_CONTENTS_LEN,
            },
        });
    }
    if have.0 + more.0 > cap.packets || have.1 + more.1 > cap.contents {
        return Err(ArenaError::Full {
            packets: cap.packets,
            contents: cap.contents,
        });
    }
    Ok(())
}

/// Places one run's packets (`p`, their entries) in its slice of the data
/// region (`d`, from its first packet's length field) and has `fill(k,
/// contents)` write each packet's contents.
fn place_run(
    run: &Run<'_>,
    base: &RunBase,
    task_bytes: u32,
    d: &mut [u8],
    p: &mut [Reserved],
    fill: impl Fn(usize, &mut [u8]),
) {
    let mut at = base.at;
    for (k, (o, r)) in run.packets.iter().zip(p.iter_mut()).enumerate() {
        *r = Reserved::next(&mut at, run.session, base.ordinal + k as u32, o, task_bytes);
        let c = r.contents();
        fill(k, &mut d[c.start - base.at.data..c.end - base.at.data]);
    }
}

impl SealArena<'_> {
    /// Reserves runs of packets, each run one session's next packets in
    /// order, and has `fill(run, k, contents)` write the contents of packet
    /// `k` of run `run` (all `len` bytes of `contents`), the runs spread
    /// over the engine's threads. The same as calling [`SealArena::packet`]
    /// for every packet of every run in turn, without the calling thread
    /// touching each packet.
    ///
    /// # Errors
    ///
    /// As [`SealArena::packet`], for the first run that cannot be taken;
    /// nothing of any run is reserved then.
    pub fn reserve_runs(
        &mut self,
        runs: &[Run<'_>],
        fill: impl Fn(usize, usize, &mut [u8]) + Sync + Send,
    ) -> Result<(), ArenaError> {
        let i = self.fillable()?;
        let totals = self.run_totals(runs);
        let (bases, end) = self.run_bases(i, runs, &totals)?;
        let side = &mut self.sides[i];
        // The list keeps its length between arenas: only a longer one is
        // written here first.
        let (first, last) = (side.counts.packets, end.counts.packets);
        if side.packets.len() < last {
            side.packets.resize(last, EMPTY);
        }
        let data_start = side.counts.data;
        let memory = super::memory(&mut side.memory, &mut self.engine.device)?;
        let mut data = &mut memory[data_start..end.counts.data];
        let mut slots = &mut side.packets[first..last];
        let mut items = Vec::with_capacity(runs.len());
        for (i, (run, t)) in runs.iter().zip(&totals).enumerate() {
            let (d, rest) = core::mem::take(&mut data).split_at_mut(t.counts.data);
            data = rest;
            let (p, rest) = core::mem::take(&mut slots).split_at_mut(t.counts.packets);
            slots = rest;
            items.push((i, run, bases[i], d, p));
        }
        let tb = self.task_bytes;
        self.engine
            .batch
            .for_each_mut_coarse(&mut items, |(i, run, base, d, p)| {
                place_run(run, base, tb, d, p, |k, c| fill(*i, k, c));
            });
        side.counts = end.counts;
        side.contents = end.contents;
        side.per_session = end.per_session;
        Ok(())
    }

    /// Each run's totals, on the engine's threads.
    fn run_totals(&self, runs: &[Run<'_>]) -> Vec<RunTotals> {
        let tb = self.task_bytes;
        let mut totals = vec![RunTotals::default(); runs.len()];
        let mut items: Vec<(&Run<'_>, &mut RunTotals)> =
            runs.iter().zip(totals.iter_mut()).collect();
        self.engine
            .batch
            .for_each_mut_coarse(&mut items, |(run, t)| {
                for o in run.packets {
                    if o.len as usize > MAX_CONTENTS_LEN {
                        t.too_long = Some(o.len);
                        return;
                    }
                    add(&mut t.counts, o.len, tb);
                    t.counts.packets += 1;
                    t.contents += o.len as usize;
                }
            });
        totals
    }

    /// Where each run starts (its entries and its first packet's index in
    /// its session), and the arena after them all, checked against the
    /// capacity.
    fn run_bases(
        &self,
        side: usize,
        runs: &[Run<'_>],
        totals: &[RunTotals],
    ) -> Result<(Vec<RunBase>, ArenaEnd), ArenaError> {
        let mut bases = Vec::with_capacity(runs.len());
        let side = &self.sides[side];
        let mut end = ArenaEnd {
            counts: side.counts,
            contents: side.contents,
            per_session: side.per_session.clone(),
        };
        for (run, t) in runs.iter().zip(totals) {
            let have = (end.counts.packets, end.contents);
            let more = (t.counts.packets, t.contents);
            admit(&self.capacity, run.session, t.too_long, have, more)?;
            bases.push(RunBase {
                at: end.counts,
                ordinal: end.per_session[run.session],
            });
            end.per_session[run.session] += t.counts.packets as u32;
            let data = end.counts.data + t.counts.data;
            end.counts.add(&t.counts);
            end.counts.data = data;
            end.contents += t.contents;
        }
        Ok((bases, end))
    }
}
