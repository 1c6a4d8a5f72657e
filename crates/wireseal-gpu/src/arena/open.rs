//! Opening straight from the engine's memory: an [`OpenArena`] hands out,
//! session by session, the place in the pinned staging buffer where the
//! session's received bytes go, so the caller receives them there (from its
//! socket, say) instead of into a buffer of its own. [`OpenArena::open`]
//! writes one `ws_run` and one key entry per session beside them; the
//! device finds, verifies and decrypts the packets (`crate::framing`), and
//! they are read where the device left them ([`OpenedArena`]). The engine
//! copies no packet byte on the host, and never reads the write-combined
//! staging memory the caller writes.
//!
//! Whatever the device leaves (a packet whose tag fails, a partial packet,
//! a length over the receiver's limit, the key schedule's end) is opened by
//! the library from a copy of the rest of that session's bytes, so each
//! session's result is the library's. A receiver that cannot be exported
//! (poisoned, or holding a packet's length) is opened the same way. Without
//! a device, or after a device error, the library opens the arena in place.

use super::{memory, results, to_host, ArenaError, Memory};
use crate::engine::Engine;
use crate::exec::{DeviceError, Direction};
use crate::framing::{self, Place, MAX_RUN};
use crate::layout::{run_count, Regions, KEY_DESC, RUN_DESC};
use crate::Unavailable;
use core::ops::Range;
use std::time::{Duration, Instant};
use wireseal::bip324::batch::{open_batch_into, OpenJob, OpenedRange};
use wireseal::bip324::state::DirectionState;
use wireseal::bip324::{Error, Opened, PacketReceiver, OVERHEAD, REKEY_INTERVAL};

/// What an [`OpenArena`] holds at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenCapacity {
    /// Sessions (receivers), numbered from 0.
    pub sessions: usize,
    /// Received bytes, over all sessions.
    pub bytes: usize,
}

/// Received bytes of many sessions, written straight into the engine's
/// memory and opened there: [`OpenArena::receive`] gives the place where a
/// session's bytes go (whole packets, as an [`OpenJob`]'s wire holds);
/// [`OpenArena::open`] opens every session's bytes with its receiver and
/// returns the packets where they were opened ([`OpenedArena`]).
pub struct OpenArena<'e> {
    engine: &'e mut Engine,
    memory: Memory,
    capacity: OpenCapacity,
    task_bytes: u32,
    /// Each session's bytes in the data region (empty: none received).
    runs: Vec<Range<usize>>,
    /// The sessions that received bytes, in the order they did (their
    /// order in the data region).
    order: Vec<usize>,
    used: usize,
    out: Outcome,
}

impl std::fmt::Debug for OpenArena<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenArena")
            .field("capacity", &self.capacity)
            .field("bytes", &self.used)
            .finish_non_exhaustive()
    }
}

/// What the last open found, kept for the next.
#[derive(Default)]
struct Outcome {
    /// Packets opened in the arena's memory (offsets into it).
    ranges: Vec<OpenedRange>,
    sessions: Vec<SessionOut>,
    /// Copies of what the library opened (the rest of a session's bytes),
    /// and their packets' ranges.
    tails: Vec<Vec<u8>>,
    tail_ranges: Vec<Vec<OpenedRange>>,
    waited: Duration,
    device_error: Option<DeviceError>,
    /// Packets the device opened and the sessions took.
    gpu: usize,
}

/// One session's packets and result.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SessionOut {
    /// Its packets opened in the arena's memory (indices into
    /// `Outcome::ranges`).
    ranges: Range<usize>,
    /// Its tail, opened by the library (an index into `Outcome::tails`).
    tail: Option<usize>,
    result: Result<usize, Error>,
}

impl Default for SessionOut {
    fn default() -> Self {
        Self {
            ranges: 0..0,
            tail: None,
            result: Ok(0),
        }
    }
}

impl Engine {
    /// An arena for `capacity` on this engine's device (its pinned staging
    /// memory, allocated here when it is smaller), or in host memory
    /// without one.
    ///
    /// # Errors
    ///
    /// [`ArenaError::Device`] when the device's memory cannot be had.
    pub fn open_arena(&mut self, capacity: OpenCapacity) -> Result<OpenArena<'_>, ArenaError> {
        let task_bytes = self.limits(capacity.bytes / OVERHEAD).task_bytes;
        let memory = match &mut self.device {
            Ok(exec) => {
                let bound = Regions::framed(&most(&capacity, task_bytes)).total();
                exec.input(0, bound)?;
                Memory::Device { slot: 0, bound }
            }
            Err(_) => Memory::Host(vec![0u8; capacity.bytes]),
        };
        Ok(OpenArena {
            engine: self,
            memory,
            capacity,
            task_bytes,
            runs: vec![0..0; capacity.sessions],
            order: Vec::with_capacity(capacity.sessions),
            used: 0,
            out: Outcome::default(),
        })
    }
}

/// The most a full arena of `c` takes of each list: every packet at least
/// [`OVERHEAD`] bytes, and a session's key entries at most one per epoch of
/// each cipher its packets reach, plus its first.
fn most(c: &OpenCapacity, task_bytes: u32) -> crate::layout::Counts {
    let packets = c.bytes / OVERHEAD;
    let keys = 2 * (packets / REKEY_INTERVAL as usize) + 3 * c.sessions;
    framing::counts(c.bytes, c.sessions, packets, keys, task_bytes)
}

impl OpenArena<'_> {
    /// Reserves `len` bytes for `session`'s received bytes (whole packets
    /// from its receiver's next). Returns where they go; write all `len`
    /// bytes there. Each session receives once per fill of the arena.
    ///
    /// # Errors
    ///
    /// [`ArenaError::NoSession`], [`ArenaError::Received`] when the
    /// session has its bytes already, [`ArenaError::NoRoom`] past the
    /// capacity (or over 4 GiB for one session); nothing is reserved then.
    pub fn receive(&mut self, session: usize, len: usize) -> Result<&mut [u8], ArenaError> {
        if session >= self.capacity.sessions {
            return Err(ArenaError::NoSession {
                session,
                sessions: self.capacity.sessions,
            });
        }
        if !self.runs[session].is_empty() {
            return Err(ArenaError::Received { session });
        }
        if len > MAX_RUN || len > self.capacity.bytes - self.used {
            return Err(ArenaError::NoRoom {
                bytes: self.capacity.bytes,
            });
        }
        let range = self.used..self.used + len;
        if len > 0 {
            self.runs[session] = range.clone();
            self.order.push(session);
            self.used += len;
        }
        Ok(&mut memory(&mut self.memory, &mut self.engine.device)?[range])
    }

    /// Bytes received.
    pub fn len(&self) -> usize {
        self.used
    }

    /// Whether no byte is received.
    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// Forgets every session's bytes, to fill the arena again.
    pub fn clear(&mut self) {
        self.runs.fill(0..0);
        self.order.clear();
        self.used = 0;
    }

    /// Opens every session's bytes with `receivers[i]` for session `i`, as
    /// the library's batch open would each session's (its result, its
    /// packets, its receiver left where the library leaves it). The
    /// packets are read from the returned view; [`OpenArena::clear`] then
    /// makes room again.
    ///
    /// # Errors
    ///
    /// [`ArenaError::Receivers`] for another number of receivers than the
    /// arena's sessions; nothing is opened then. A device error is not one:
    /// the arena is opened by the library and
    /// [`OpenedArena::device_error`] says so.
    pub fn open(
        &mut self,
        receivers: &mut [&mut PacketReceiver],
    ) -> Result<OpenedArena<'_>, ArenaError> {
        if receivers.len() != self.capacity.sessions {
            return Err(ArenaError::Receivers {
                receivers: receivers.len(),
                sessions: self.capacity.sessions,
            });
        }
        self.out.clear(self.capacity.sessions);
        if matches!(self.memory, Memory::Device { .. }) {
            if let Err(e) = self.open_on_device(receivers) {
                self.fall_back(e)?;
            }
        }
        if let Memory::Host(buf) = &mut self.memory {
            let batch = &self.engine.batch;
            open_in_place(
                batch,
                buf,
                (&self.runs, &self.order),
                receivers,
                &mut self.out,
            );
        }
        let data = results(&self.memory, &mut self.engine.device)?;
        Ok(OpenedArena {
            data,
            out: &self.out,
        })
    }

    /// After a device error: the device is turned off, the received bytes
    /// taken into host memory for the library, and nothing the device did
    /// kept (no receiver has moved yet).
    ///
    /// # Errors
    ///
    /// [`ArenaError::Device`] when even the bytes cannot be read back.
    fn fall_back(&mut self, e: DeviceError) -> Result<(), ArenaError> {
        let len = self.capacity.bytes;
        to_host(&mut self.memory, &mut self.engine.device, self.used, len)?;
        self.engine.device = Err(Unavailable::AfterError(e.clone()));
        self.out.clear(self.capacity.sessions);
        self.out.device_error = Some(e);
        Ok(())
    }

    /// Frames, verifies and decrypts every session's bytes on the device,
    /// hands each session its verified packets, and gives the rest to the
    /// library. Receivers move only after the device's results are back.
    fn open_on_device(&mut self, receivers: &mut [&mut PacketReceiver]) -> Result<(), DeviceError> {
        // The sessions whose receivers the device can take on, each with
        // its state, its place and `framing::most` of it.
        let mut device: Vec<(usize, DirectionState, Place, (usize, usize))> = Vec::new();
        let (mut keys, mut lens) = (0usize, 0usize);
        for &s in &self.order {
            let Ok(state) = receivers[s].export_state() else {
                continue;
            };
            let run = &self.runs[s];
            let most = framing::most(&state, run.len());
            let at = Place {
                offset: run.start,
                len: run.len(),
                key: keys,
                lens,
            };
            keys += most.1;
            lens += most.0;
            device.push((s, state, at, most));
        }
        let counts = framing::counts(self.used, device.len(), lens, keys, self.task_bytes);
        let r = Regions::framed(&counts);
        let Ok(exec) = &mut self.engine.device else {
            return Err(DeviceError("no device".into()));
        };
        let buf = exec.input(0, r.total())?;
        let [_, runs, keys] = r.split_framed(buf);
        let mut keys = &mut keys[..];
        for ((s, state, at, most), run) in device.iter().zip(runs.chunks_exact_mut(RUN_DESC)) {
            let mine = crate::plan::take(&mut keys, most.1 * KEY_DESC);
            framing::write(receivers[*s], state, at, *most, run, mine);
        }
        let t = Instant::now();
        exec.submit(0, Direction::Open, &r, &counts, self.task_bytes)?;
        let out = exec.finish(0, &r)?;
        self.out.waited = t.elapsed();
        let (runs, lens, data) = (
            &out[r.runs.clone()],
            &out[r.lens.clone()],
            &out[..r.data.end],
        );
        let mut taken = vec![false; self.capacity.sessions];
        for (k, (s, _, at, _)) in device.iter().enumerate() {
            let count = run_count(&runs[k * RUN_DESC..(k + 1) * RUN_DESC]);
            let lens = lens.get(4 * at.lens..).unwrap_or_default();
            taken[*s] = self.out.take(*s, receivers[*s], count, lens, data, at);
        }
        // What the device left, from a copy, through the library.
        for &s in &self.order {
            if !taken[s] {
                self.out.tail(s, data[self.runs[s].clone()].to_vec());
            }
        }
        self.out.open_tails(&self.engine.batch, receivers);
        Ok(())
    }
}

impl Outcome {
    fn clear(&mut self, sessions: usize) {
        self.ranges.clear();
        self.sessions.clear();
        self.sessions.resize(sessions, SessionOut::default());
        self.tails.clear();
        self.tail_ranges.clear();
        self.waited = Duration::ZERO;
        self.device_error = None;
        self.gpu = 0;
    }

    /// Takes session `s`'s verified packets from the device's answer for
    /// its run at `at` (the receiver moved past them), the rest of its
    /// bytes as a tail; false (nothing taken) when the answer does not add
    /// up, so the library opens the whole run.
    fn take(
        &mut self,
        s: usize,
        rx: &mut PacketReceiver,
        count: u32,
        lens: &[u8],
        data: &[u8],
        at: &Place,
    ) -> bool {
        let Some(v) = framing::verified(count, lens, at.len) else {
            return false;
        };
        let ok = v.ok;
        if ok > 0 && rx.advance(ok as u64).is_err() {
            return false;
        }
        let first = self.ranges.len();
        v.ranges(data, at.offset, &mut self.ranges);
        let out = &mut self.sessions[s];
        out.ranges = first..self.ranges.len();
        out.result = Ok(ok);
        self.gpu += ok;
        let done = v.bytes;
        if v.ok < v.count || done < at.len {
            self.tail(s, data[at.offset + done..at.offset + at.len].to_vec());
        }
        true
    }

    /// Gives the library session `s`'s `bytes` (the rest of its run).
    fn tail(&mut self, s: usize, bytes: Vec<u8>) {
        self.sessions[s].tail = Some(self.tails.len());
        self.tails.push(bytes);
        self.tail_ranges.push(Vec::new());
    }

    /// Opens every tail through the library's batch; each session's result
    /// is its packets before the tail and the tail's.
    fn open_tails(
        &mut self,
        batch: &wireseal::batch::Batch,
        receivers: &mut [&mut PacketReceiver],
    ) {
        if self.tails.is_empty() {
            return;
        }
        let mut owners = vec![0usize; self.tails.len()];
        for (s, out) in self.sessions.iter().enumerate() {
            if let Some(t) = out.tail {
                owners[t] = s;
            }
        }
        let mut rxs: Vec<Option<&mut PacketReceiver>> =
            receivers.iter_mut().map(|r| Some(&mut **r)).collect();
        let mut jobs: Vec<OpenJob<'_>> = self
            .tails
            .iter_mut()
            .zip(self.tail_ranges.iter_mut())
            .zip(&owners)
            .map(|((wire, opened), &s)| OpenJob {
                receiver: rxs[s].take().expect("one tail per session"),
                wire,
                opened,
                result: Ok(0),
            })
            .collect();
        open_batch_into(batch, &mut jobs);
        let results: Vec<Result<usize, Error>> = jobs.iter().map(|j| j.result).collect();
        drop(jobs);
        for (result, &s) in results.into_iter().zip(&owners) {
            let out = &mut self.sessions[s];
            let before = out.ranges.len();
            out.result = result.map(|n| before + n);
        }
    }
}

/// Opens every session's run in place in `buf` through the library's batch
/// (no device, or after a device error).
fn open_in_place(
    batch: &wireseal::batch::Batch,
    buf: &mut [u8],
    (runs, order): (&[Range<usize>], &[usize]),
    receivers: &mut [&mut PacketReceiver],
    out: &mut Outcome,
) {
    let mut rxs: Vec<Option<&mut PacketReceiver>> =
        receivers.iter_mut().map(|r| Some(&mut **r)).collect();
    let mut opened: Vec<Vec<OpenedRange>> = vec![Vec::new(); order.len()];
    let mut jobs: Vec<OpenJob<'_>> = Vec::with_capacity(order.len());
    let mut rest = buf;
    let mut at = 0usize;
    for (&s, list) in order.iter().zip(opened.iter_mut()) {
        let run = runs[s].clone();
        let _ = crate::plan::take(&mut rest, run.start - at);
        at = run.end;
        jobs.push(OpenJob {
            receiver: rxs[s].take().expect("one run per session"),
            wire: crate::plan::take(&mut rest, run.len()),
            opened: list,
            result: Ok(0),
        });
    }
    open_batch_into(batch, &mut jobs);
    let results: Vec<Result<usize, Error>> = jobs.iter().map(|j| j.result).collect();
    drop(jobs);
    for ((&s, list), result) in order.iter().zip(&opened).zip(results) {
        let first = out.ranges.len();
        let base = runs[s].start;
        out.ranges.extend(list.iter().map(|r| OpenedRange {
            offset: r.offset + base,
            ..*r
        }));
        let o = &mut out.sessions[s];
        o.ranges = first..out.ranges.len();
        o.result = result;
    }
}

/// An arena's opened packets, by session.
#[derive(Debug)]
pub struct OpenedArena<'a> {
    data: &'a [u8],
    out: &'a Outcome,
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outcome")
            .field("sessions", &self.sessions)
            .finish_non_exhaustive()
    }
}

impl<'a> OpenedArena<'a> {
    /// Session `session`'s result, as the library's batch open gives it:
    /// packets opened, or the first error (the packets before it are
    /// opened); `None` past the arena's sessions.
    pub fn result(&self, session: usize) -> Option<Result<usize, Error>> {
        self.out.sessions.get(session).map(|s| s.result)
    }

    /// Session `session`'s opened packets, in order (none past the arena's
    /// sessions).
    pub fn packets(&self, session: usize) -> impl Iterator<Item = Opened<'a>> + 'a {
        let (data, out) = (self.data, self.out);
        let s = out.sessions.get(session);
        let here = s.map_or(&[][..], |s| &out.ranges[s.ranges.clone()]);
        let tail = s.and_then(|s| s.tail);
        let there = tail.map_or(&[][..], |t| &out.tail_ranges[t][..]);
        let from = move |buf: &'a [u8], r: &'a OpenedRange| Opened {
            kind: r.kind,
            contents: &buf[r.offset..r.offset + r.len],
        };
        let tail_buf = tail.map_or(&[][..], |t| &out.tails[t][..]);
        here.iter()
            .map(move |r| from(data, r))
            .chain(there.iter().map(move |r| from(tail_buf, r)))
    }

    /// The device error this arena met, if it did (it was opened by the
    /// library then, and the engine uses the CPU from then on).
    pub fn device_error(&self) -> Option<&DeviceError> {
        self.out.device_error.as_ref()
    }

    /// Time the open spent handing the arena to the device and waiting for
    /// it to come back (zero without a device).
    pub fn waited(&self) -> Duration {
        self.out.waited
    }

    /// Packets the device opened (the rest, if any, the library did).
    pub fn gpu_packets(&self) -> usize {
        self.out.gpu
    }
}
