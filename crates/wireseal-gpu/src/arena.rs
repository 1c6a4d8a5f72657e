//! Sealing straight from the engine's memory: a [`SealArena`] hands out,
//! packet by packet, the place in the pinned staging buffer where the
//! packet's contents go, so the caller writes them there instead of into
//! a buffer of its own; [`SealArena::seal`] then writes only the
//! descriptors beside them, and the sealed packets are read from the pinned
//! buffer the device copies back into ([`Sealed`]). The engine copies no
//! packet byte on the host.
//!
//! Each packet is placed when it is reserved (the data region comes first
//! in the buffer, so its place does not depend on the descriptors), with
//! its index among its session's packets and its first part, so the
//! descriptors are written in parallel with nothing to look up but the
//! session's key epochs. An arena is one chunk on the device's first
//! stream; without a device (or after a device error) the same arena is
//! sealed by the library in place, with the same bytes.

use crate::engine::Engine;
use crate::exec::{DeviceError, Direction};
use crate::jobs::Outgoing;
use crate::layout::{
    place, wire_len, write_parts, Counts, KeyDesc, PacketDesc, Regions, KEY_DESC, PACKET_DESC,
    TASK_DESC,
};
use crate::plan::{before_rekey, parts, slot};
use crate::Unavailable;
use wireseal::bip324::{
    sealed_len, Error, PacketSender, PacketType, HEADER_LEN, LENGTH_LEN, MAX_CONTENTS_LEN,
    OVERHEAD, REKEY_INTERVAL,
};

/// What a [`SealArena`] holds at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// Sessions (senders), numbered from 0.
    pub sessions: usize,
    /// Packets, over all sessions.
    pub packets: usize,
    /// Contents bytes, over all packets.
    pub contents: usize,
}

/// Why a packet could not be reserved or an arena not sealed. Nothing was
/// sealed and no session moved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArenaError {
    /// The arena holds its [`Capacity`] already.
    #[error("the arena is full ({packets} packets, {contents} contents bytes at most)")]
    Full {
        /// Packets it holds at most.
        packets: usize,
        /// Contents bytes it holds at most.
        contents: usize,
    },
    /// A session number past the arena's sessions.
    #[error("no session {session} (the arena has {sessions})")]
    NoSession {
        /// The number given.
        session: usize,
        /// Sessions in the arena.
        sessions: usize,
    },
    /// [`SealArena::seal`] was given another number of senders than the
    /// arena's sessions.
    #[error("{senders} senders for an arena of {sessions} sessions")]
    Senders {
        /// Senders given.
        senders: usize,
        /// Sessions in the arena.
        sessions: usize,
    },
    /// A session cannot take its packets: [`Error::TooLong`] contents, or
    /// [`Error::Exhausted`] (its key schedule ends before its packets do).
    #[error("session {session}: {error}")]
    Session {
        /// The session.
        session: usize,
        /// The library's error.
        error: Error,
    },
    /// The device's staging memory could not be had.
    #[error(transparent)]
    Device(#[from] DeviceError),
}

/// A run of one session's next packets, for [`SealArena::reserve_runs`].
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    /// The session.
    pub session: usize,
    /// Its packets, in order.
    pub packets: &'a [Outgoing],
}

/// One reserved packet: where it is, and its entries.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reserved {
    session: u32,
    /// Its index among its session's packets in the arena.
    ordinal: u32,
    len: u32,
    header: u8,
    /// Its length field's offset in the data region.
    offset: usize,
    /// Tasks, multi-part packets and their parts before it.
    task: u32,
    multi: u32,
    mtask: u32,
}

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
    let (mut task, mut multi, mut mtask) = (
        base.at.tasks as u32,
        base.at.multi as u32,
        base.at.mtasks as u32,
    );
    let mut off = 0usize;
    for (k, (o, r)) in run.packets.iter().zip(p.iter_mut()).enumerate() {
        let n = parts(o.len, task_bytes);
        *r = Reserved {
            session: run.session as u32,
            ordinal: base.ordinal + k as u32,
            len: o.len,
            header: o.kind.header(),
            offset: base.at.data + off,
            task,
            multi,
            mtask,
        };
        let body = off + LENGTH_LEN + HEADER_LEN;
        fill(k, &mut d[body..body + o.len as usize]);
        off += slot(o.len);
        task += n;
        if n > 1 {
            multi += 1;
            mtask += n;
        }
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

/// Where the arena's packets live.
enum Memory {
    /// The device's first staging buffer, `bound` bytes asked for.
    Device { bound: usize },
    /// Host memory: no device, or the device failed.
    Host(Vec<u8>),
}

/// Packets to seal, their contents written straight into the engine's
/// memory: [`SealArena::packet`] (or [`SealArena::reserve_runs`], for runs
/// filled on every core) gives the place in the pinned staging buffer where
/// a packet's contents go; [`SealArena::seal`] writes only the descriptors
/// beside them, runs the chunk on the device's first stream, and returns
/// the sealed packets where the device left them ([`Sealed`]). The engine
/// copies no packet byte on the host. Without a device, or after a device
/// error, the library seals the same arena in place, with the same bytes.
pub struct SealArena<'e> {
    engine: &'e mut Engine,
    memory: Memory,
    capacity: Capacity,
    task_bytes: u32,
    packets: Vec<Reserved>,
    per_session: Vec<u32>,
    /// What the reserved packets take; `data` is where the next one goes.
    counts: Counts,
    contents: usize,
}

impl Drop for SealArena<'_> {
    fn drop(&mut self) {
        self.engine.arena_spare = std::mem::take(&mut self.packets);
    }
}

impl std::fmt::Debug for SealArena<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SealArena")
            .field("capacity", &self.capacity)
            .field("packets", &self.counts.packets)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// An arena of `capacity` on this engine's device (its pinned staging
    /// memory, allocated here when it is smaller), or in host memory
    /// without one.
    ///
    /// # Errors
    ///
    /// [`ArenaError::Device`] when the device's memory cannot be had.
    pub fn seal_arena(&mut self, capacity: Capacity) -> Result<SealArena<'_>, ArenaError> {
        let task_bytes = self.limits(capacity.packets).task_bytes;
        let bound = Regions::new(&most(&capacity, task_bytes)).total();
        let memory = match &mut self.device {
            Ok(exec) => {
                exec.input(0, bound)?;
                Memory::Device { bound }
            }
            Err(_) => Memory::Host(vec![0u8; most(&capacity, task_bytes).data]),
        };
        // The last arena's list, kept by the engine: no allocation per arena.
        let mut packets = std::mem::take(&mut self.arena_spare);
        packets.reserve(capacity.packets.saturating_sub(packets.len()));
        Ok(SealArena {
            engine: self,
            memory,
            capacity,
            task_bytes,
            packets,
            per_session: vec![0; capacity.sessions],
            counts: Counts {
                data: place(0),
                ..Counts::default()
            },
            contents: 0,
        })
    }
}

/// The most a full arena of `c` takes of each region.
fn most(c: &Capacity, task_bytes: u32) -> Counts {
    let tasks = (c.contents + c.packets) / task_bytes as usize + c.packets;
    Counts {
        packets: c.packets,
        tasks,
        multi: c.packets,
        mtasks: tasks,
        keys: c.packets / REKEY_INTERVAL as usize + 2 * c.sessions + 1,
        data: place(0) + c.contents + c.packets * (OVERHEAD + 15),
    }
}

impl SealArena<'_> {
    /// Reserves the next packet of `session`: `len` contents bytes of type
    /// `kind`. Returns where its contents go; write all `len` bytes there
    /// (what is there before is not defined).
    ///
    /// # Errors
    ///
    /// [`ArenaError::Full`], [`ArenaError::NoSession`], or
    /// [`ArenaError::Session`] with [`Error::TooLong`] for contents over
    /// [`MAX_CONTENTS_LEN`]; nothing is reserved then.
    pub fn packet(
        &mut self,
        session: usize,
        len: u32,
        kind: PacketType,
    ) -> Result<&mut [u8], ArenaError> {
        let cap = self.capacity;
        if session >= cap.sessions {
            return Err(ArenaError::NoSession {
                session,
                sessions: cap.sessions,
            });
        }
        if len as usize > MAX_CONTENTS_LEN {
            return Err(ArenaError::Session {
                session,
                error: Error::TooLong {
                    len: len as usize,
                    max: MAX_CONTENTS_LEN,
                },
            });
        }
        if self.counts.packets == cap.packets || self.contents + len as usize > cap.contents {
            return Err(ArenaError::Full {
                packets: cap.packets,
                contents: cap.contents,
            });
        }
        let c = &mut self.counts;
        let n = parts(len, self.task_bytes);
        let entry = Reserved {
            session: session as u32,
            ordinal: self.per_session[session],
            len,
            header: kind.header(),
            offset: c.data,
            task: c.tasks as u32,
            multi: c.multi as u32,
            mtask: c.mtasks as u32,
        };
        match self.packets.get_mut(c.packets) {
            Some(slot) => *slot = entry,
            None => self.packets.push(entry),
        }
        self.per_session[session] += 1;
        self.contents += len as usize;
        let body = c.data + LENGTH_LEN + HEADER_LEN;
        c.packets += 1;
        c.tasks += n as usize;
        if n > 1 {
            c.multi += 1;
            c.mtasks += n as usize;
        }
        c.data += slot(len);
        let buf = self.memory()?;
        Ok(&mut buf[body..body + len as usize])
    }

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
        let totals = self.run_totals(runs);
        let (bases, end) = self.run_bases(runs, &totals)?;
        // The list keeps its length between arenas: only a longer one is
        // written here first.
        let (first, last) = (self.counts.packets, end.counts.packets);
        if self.packets.len() < last {
            self.packets.resize(last, EMPTY);
        }
        let data_start = self.counts.data;
        let memory = match (&mut self.memory, &mut self.engine.device) {
            (Memory::Device { bound }, Ok(exec)) => exec.input(0, *bound)?,
            (Memory::Host(v), _) => &mut v[..],
            (Memory::Device { .. }, Err(e)) => return Err(DeviceError(e.to_string()).into()),
        };
        let mut data = &mut memory[data_start..end.counts.data];
        let mut slots = &mut self.packets[first..last];
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
        self.counts = end.counts;
        self.contents = end.contents;
        self.per_session = end.per_session;
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
                    let n = parts(o.len, tb) as usize;
                    t.counts.packets += 1;
                    t.counts.tasks += n;
                    if n > 1 {
                        t.counts.multi += 1;
                        t.counts.mtasks += n;
                    }
                    t.counts.data += slot(o.len);
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
        runs: &[Run<'_>],
        totals: &[RunTotals],
    ) -> Result<(Vec<RunBase>, ArenaEnd), ArenaError> {
        let cap = self.capacity;
        let mut bases = Vec::with_capacity(runs.len());
        let mut end = ArenaEnd {
            counts: self.counts,
            contents: self.contents,
            per_session: self.per_session.clone(),
        };
        for (run, t) in runs.iter().zip(totals) {
            if run.session >= cap.sessions {
                return Err(ArenaError::NoSession {
                    session: run.session,
                    sessions: cap.sessions,
                });
            }
            if let Some(len) = t.too_long {
                return Err(ArenaError::Session {
                    session: run.session,
                    error: Error::TooLong {
                        len: len as usize,
                        max: MAX_CONTENTS_LEN,
                    },
                });
            }
            let c = &mut end.counts;
            if c.packets + t.counts.packets > cap.packets
                || end.contents + t.contents > cap.contents
            {
                return Err(ArenaError::Full {
                    packets: cap.packets,
                    contents: cap.contents,
                });
            }
            bases.push(RunBase {
                at: *c,
                ordinal: end.per_session[run.session],
            });
            end.per_session[run.session] += t.counts.packets as u32;
            c.packets += t.counts.packets;
            c.tasks += t.counts.tasks;
            c.multi += t.counts.multi;
            c.mtasks += t.counts.mtasks;
            c.data += t.counts.data;
            end.contents += t.contents;
        }
        Ok((bases, end))
    }

    /// Packets reserved.
    pub fn len(&self) -> usize {
        self.counts.packets
    }

    /// Whether no packet is reserved.
    pub fn is_empty(&self) -> bool {
        self.counts.packets == 0
    }

    /// Forgets every packet, to fill the arena again.
    pub fn clear(&mut self) {
        self.per_session.fill(0);
        self.counts = Counts {
            data: place(0),
            ..Counts::default()
        };
        self.contents = 0;
    }

    /// The arena's memory, as the device or the host holds it.
    fn memory(&mut self) -> Result<&mut [u8], DeviceError> {
        match (&mut self.memory, &mut self.engine.device) {
            (Memory::Device { bound }, Ok(exec)) => exec.input(0, *bound),
            (Memory::Host(v), _) => Ok(v),
            (Memory::Device { .. }, Err(e)) => Err(DeviceError(e.to_string())),
        }
    }

    /// Seals every reserved packet, session `i`'s with `senders[i]`, in the
    /// order each session's were reserved, and moves each sender past its
    /// packets. The sealed packets are read from the returned view, by
    /// reservation number; [`SealArena::clear`] then makes room again.
    ///
    /// # Errors
    ///
    /// [`ArenaError::Senders`], or [`ArenaError::Session`] with
    /// [`Error::Exhausted`] for a session whose key schedule ends first;
    /// nothing is sealed then. A device error is not one: the arena is
    /// sealed by the library and [`Sealed::device_error`] says so.
    pub fn seal(&mut self, senders: &mut [&mut PacketSender]) -> Result<Sealed<'_>, ArenaError> {
        if senders.len() != self.capacity.sessions {
            return Err(ArenaError::Senders {
                senders: senders.len(),
                sessions: self.capacity.sessions,
            });
        }
        // Each session's state, and on a device its key epochs, on the
        // engine's threads.
        let on_device = matches!(self.memory, Memory::Device { .. });
        let mut work: Vec<(&PacketSender, u32, SessionWork)> = senders
            .iter()
            .zip(&self.per_session)
            .map(|(s, &n)| (&**s, n, SessionWork::default()))
            .collect();
        self.engine
            .batch
            .for_each_mut_coarse(&mut work, |(s, n, w)| {
                *w = SessionWork::of(s, *n, on_device);
            });
        if let Some(session) = work.iter().position(|(_, _, w)| w.exhausted) {
            return Err(ArenaError::Session {
                session,
                error: Error::Exhausted,
            });
        }
        let work: Vec<SessionWork> = work.into_iter().map(|(_, _, w)| w).collect();
        let device_error = match self.memory {
            Memory::Device { .. } => self.seal_on_device(&work).err(),
            Memory::Host(_) => None,
        };
        if let Some(e) = &device_error {
            self.fall_back(e)?;
        }
        match &mut self.memory {
            Memory::Host(buf) => seal_in_place(buf, &self.packets[..self.counts.packets], senders),
            Memory::Device { .. } => {
                let mut moves: Vec<(&mut &mut PacketSender, u32)> = senders
                    .iter_mut()
                    .zip(self.per_session.iter().copied())
                    .collect();
                self.engine.batch.for_each_mut_coarse(&mut moves, |(s, n)| {
                    s.advance(u64::from(*n))
                        .expect("checked against the key schedule above");
                });
            }
        }
        let data = match (&self.memory, &mut self.engine.device) {
            (Memory::Host(buf), _) => &buf[..],
            (Memory::Device { .. }, Ok(exec)) => exec.output(0)?,
            (Memory::Device { .. }, Err(_)) => unreachable!("fell back to host memory"),
        };
        Ok(Sealed {
            data,
            packets: &self.packets[..self.counts.packets],
            device_error,
        })
    }

    /// Writes the descriptors and keys beside the packets and runs the
    /// chunk on the device.
    fn seal_on_device(&mut self, work: &[SessionWork]) -> Result<(), DeviceError> {
        // Each session's first key entry.
        let mut bases = Vec::with_capacity(work.len());
        let mut keys = 0u32;
        for w in work {
            bases.push(keys);
            keys += w.keys.len() as u32;
        }
        let mut counts = self.counts;
        counts.keys = keys as usize;
        let r = Regions::new(&counts);
        let (packets, task_bytes) = (&self.packets[..self.counts.packets], self.task_bytes);
        let Ok(exec) = &mut self.engine.device else {
            return Err(DeviceError("no device".into()));
        };
        let buf = exec.input(0, r.total())?;
        let [d_packets, d_tasks, d_multi, d_mtasks, d_keys, status, _] = r.split(buf);
        status.fill(0);
        let entries = work.iter().flat_map(|w| &w.keys);
        for (k, out) in entries.zip(d_keys.chunks_exact_mut(KEY_DESC)) {
            out.copy_from_slice(k.bytes());
        }
        let epochs = Epochs {
            work,
            bases: &bases,
        };
        let mut pieces = cut(packets, &counts, d_packets, d_tasks, d_multi, d_mtasks);
        self.engine.batch.for_each_mut_coarse(&mut pieces, |p| {
            write(p, packets, &epochs, task_bytes);
        });
        exec.submit(0, Direction::Seal, &r, &counts, task_bytes)?;
        exec.finish(0, &r)?;
        Ok(())
    }

    /// After a device error: the device is turned off, and the packets'
    /// contents are taken into host memory for the library.
    ///
    /// # Errors
    ///
    /// [`ArenaError::Device`] when even the contents cannot be read back
    /// (nothing is sealed; the sessions have not moved).
    fn fall_back(&mut self, e: &DeviceError) -> Result<(), ArenaError> {
        let end = self.counts.data;
        let copy = self.memory()?[..end].to_vec();
        self.engine.device = Err(Unavailable::AfterError(e.clone()));
        self.memory = Memory::Host(copy);
        Ok(())
    }
}

/// Seals `packets` in place in `buf` with their sessions' senders, in
/// reservation order (so each session's in its own order).
fn seal_in_place(buf: &mut [u8], packets: &[Reserved], senders: &mut [&mut PacketSender]) {
    for p in packets {
        let kind = PacketType::from_header(p.header);
        let at = &mut buf[p.offset..p.offset + sealed_len(p.len as usize)];
        senders[p.session as usize]
            .seal_in_place(p.len as usize, kind, b"", at)
            .expect("lengths and key schedules checked when reserved and sealed");
    }
}

/// One key epoch of a session: from its `start`-th packet in the arena,
/// key entry `key`, the two ciphers' message indices at that packet.
#[derive(Debug, Clone, Copy)]
struct Epoch {
    start: u32,
    key: u32,
    packet: u32,
    length: u32,
}

/// A session's share of sealing an arena: whether its schedule ends before
/// its packets do, and (on a device) its key epochs, each with its key
/// entry (`Epoch::key` counts from the session's first entry).
#[derive(Default)]
struct SessionWork {
    exhausted: bool,
    epochs: Vec<Epoch>,
    keys: Vec<KeyDesc>,
}

impl SessionWork {
    fn of(sender: &PacketSender, n: u32, epochs: bool) -> Self {
        let mut s = sender.export_state();
        let mut w = Self {
            exhausted: u64::from(n) > s.messages_left(),
            ..Self::default()
        };
        if w.exhausted || !epochs {
            return w;
        }
        let mut at = 0usize;
        while at < n as usize {
            let step = before_rekey(&s, n as usize - at);
            w.epochs.push(Epoch {
                start: at as u32,
                key: w.keys.len() as u32,
                packet: s.packet_position().index,
                length: s.length_position().index,
            });
            w.keys.push(KeyDesc::of(&s));
            s.advance(step as u64)
                .expect("checked against the key schedule");
            at += step;
        }
        w
    }
}

/// Every session's epochs, and its first key entry in the chunk.
struct Epochs<'a> {
    work: &'a [SessionWork],
    bases: &'a [u32],
}

/// Packets `range` of the arena and their slices of the descriptor
/// regions.
struct Piece<'b> {
    range: core::ops::Range<usize>,
    packets: &'b mut [u8],
    tasks: &'b mut [u8],
    multi: &'b mut [u8],
    mtasks: &'b mut [u8],
}

/// Most packets one core writes at a time.
const PIECE: usize = 1024;

/// The arena's packets in pieces of [`PIECE`], each with its slices.
fn cut<'b>(
    packets: &[Reserved],
    counts: &Counts,
    mut d_packets: &'b mut [u8],
    mut d_tasks: &'b mut [u8],
    mut d_multi: &'b mut [u8],
    mut d_mtasks: &'b mut [u8],
) -> Vec<Piece<'b>> {
    let at = |i: usize| -> (usize, usize, usize) {
        packets
            .get(i)
            .map_or((counts.tasks, counts.multi, counts.mtasks), |p| {
                (p.task as usize, p.multi as usize, p.mtask as usize)
            })
    };
    let take = |s: &mut &'b mut [u8], n: usize| {
        let (a, b) = core::mem::take(s).split_at_mut(n);
        *s = b;
        a
    };
    let mut out = Vec::with_capacity(packets.len().div_ceil(PIECE));
    let mut start = 0;
    while start < packets.len() {
        let end = (start + PIECE).min(packets.len());
        let (t0, m0, mt0) = at(start);
        let (t1, m1, mt1) = at(end);
        out.push(Piece {
            range: start..end,
            packets: take(&mut d_packets, (end - start) * PACKET_DESC),
            tasks: take(&mut d_tasks, (t1 - t0) * TASK_DESC),
            multi: take(&mut d_multi, (m1 - m0) * 4),
            mtasks: take(&mut d_mtasks, (mt1 - mt0) * 4),
        });
        start = end;
    }
    out
}

/// Writes one piece's descriptors and parts.
fn write(p: &mut Piece<'_>, packets: &[Reserved], epochs: &Epochs<'_>, task_bytes: u32) {
    let mut tasks = p.tasks.chunks_exact_mut(TASK_DESC);
    let mut multi = p.multi.chunks_exact_mut(4);
    let mut mtasks = p.mtasks.chunks_exact_mut(4);
    for (i, out) in p.range.clone().zip(p.packets.chunks_exact_mut(PACKET_DESC)) {
        let r = &packets[i];
        let list = &epochs.work[r.session as usize].epochs;
        let e = list[list.partition_point(|e| e.start <= r.ordinal) - 1];
        let k = r.ordinal - e.start;
        PacketDesc {
            offset: r.offset as u64,
            len: r.len,
            key: epochs.bases[r.session as usize] + e.key,
            index: e.packet + k,
            chunk: e.length + k,
            header: u32::from(r.header),
            first_task: r.task,
        }
        .write(out);
        let n = parts(r.len, task_bytes);
        write_parts(i as u32, r.task, n, &mut tasks, &mut multi, &mut mtasks);
    }
}

/// An arena's sealed packets, by reservation number.
#[derive(Debug)]
pub struct Sealed<'a> {
    data: &'a [u8],
    packets: &'a [Reserved],
    device_error: Option<DeviceError>,
}

impl<'a> Sealed<'a> {
    /// Packets sealed.
    pub fn len(&self) -> usize {
        self.packets.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// The `i`-th packet reserved, sealed: its wire bytes.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        let p = self.packets.get(i)?;
        Some(&self.data[p.offset..p.offset + wire_len(p.len)])
    }

    /// Every packet's wire bytes, in reservation order.
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The device error this arena met, if it did (it was sealed by the
    /// library then, and the engine uses the CPU from then on).
    pub fn device_error(&self) -> Option<&DeviceError> {
        self.device_error.as_ref()
    }
}
