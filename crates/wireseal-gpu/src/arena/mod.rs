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
//! session's key epochs. A seal arena has two sides, each a chunk on a
//! stream of its own, so one is filled while the other is on the device
//! (`flight.rs`); without a device (or after a device error) the library
//! seals each side in place, with the same bytes.

mod device;
mod flight;
mod open;
mod reserve;

pub use open::{OpenArena, OpenCapacity, OpenedArena};

use crate::layout::Reserved;

use std::collections::VecDeque;

use crate::engine::Engine;
use crate::exec::{DeviceError, Executor};
use crate::jobs::Outgoing;
use crate::layout::{place, wire_len, Counts, Regions};
use crate::Unavailable;
use wireseal::bip324::state::DirectionState;
use wireseal::bip324::{
    sealed_len, Error, PacketSender, PacketType, MAX_CONTENTS_LEN, OVERHEAD, REKEY_INTERVAL,
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
    /// [`OpenArena::receive`] for a session that has its bytes already.
    #[error("session {session} has received its bytes in this arena already")]
    Received {
        /// The session.
        session: usize,
    },
    /// [`OpenArena::receive`] past the arena's bytes (or over 4 GiB for one
    /// session).
    #[error("the arena has no room for these bytes ({bytes} bytes at most)")]
    NoRoom {
        /// Bytes it holds at most.
        bytes: usize,
    },
    /// The side of the arena to fill (or, for [`SealArena::seal`], one
    /// before it) is submitted and not yet waited for
    /// ([`SealArena::wait`]).
    #[error("the arena's side is still submitted: wait for it first")]
    InFlight,
    /// [`SealArena::wait`] with no side submitted.
    #[error("no side of the arena is submitted")]
    NotSubmitted,
    /// [`OpenArena::open`] was given another number of receivers than the
    /// arena's sessions.
    #[error("{receivers} receivers for an arena of {sessions} sessions")]
    Receivers {
        /// Receivers given.
        receivers: usize,
        /// Sessions in the arena.
        sessions: usize,
    },
}

/// A run of one session's next packets, for [`SealArena::reserve_runs`].
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    /// The session.
    pub session: usize,
    /// Its packets, in order.
    pub packets: &'a [Outgoing],
}

/// Where one side of an arena lives.
enum Memory {
    /// A device slot's staging buffer, `bound` bytes asked for.
    Device { slot: usize, bound: usize },
    /// Host memory: no device, or the device failed.
    Host(Vec<u8>),
}

/// Packets to seal, their contents written straight into the engine's
/// memory: [`SealArena::packet`] (or [`SealArena::reserve_runs`], for runs
/// filled on every core) gives the place in the pinned staging buffer where
/// a packet's contents go; [`SealArena::seal`] writes only the descriptors
/// beside them, runs the chunk on the device, and returns the sealed
/// packets where the device left them ([`Sealed`]). The engine copies no
/// packet byte on the host. Without a device, or after a device error, the
/// library seals the same arena in place, with the same bytes.
///
/// An arena has two sides (on a device with two streams or more, and on
/// the CPU): [`SealArena::submit`] starts the side being filled on the
/// device and turns to the other, so the caller fills the next packets
/// while the device seals the last; [`SealArena::wait`] returns the oldest
/// submitted side's packets. [`SealArena::seal`] is `submit` then `wait`.
pub struct SealArena<'e> {
    engine: &'e mut Engine,
    capacity: Capacity,
    task_bytes: u32,
    sides: Vec<Side>,
    /// The side packets are reserved in.
    filling: usize,
    /// Submitted sides not yet waited for, oldest first.
    flights: VecDeque<usize>,
}

/// One side of an arena: its packets, and where it stands.
struct Side {
    memory: Memory,
    packets: Vec<Reserved>,
    per_session: Vec<u32>,
    /// What the reserved packets take; `data` is where the next one goes.
    counts: Counts,
    contents: usize,
    stage: Stage,
}

/// Where a side stands.
enum Stage {
    /// Taking packets.
    Filling,
    /// Submitted: running on the device (`flight`), or sealed by the
    /// library already (the device error that made it so, if one did).
    Submitted {
        flight: Option<Box<Flight>>,
        device_error: Option<DeviceError>,
    },
    /// Waited for: its sealed packets are there to read until it is filled
    /// again.
    Done,
}

/// A side on the device: its regions, and each session's state before the
/// side's packets (`None` for a session without any), from which the
/// library seals them again should the device fail before they come back.
struct Flight {
    regions: Regions,
    states: Vec<Option<DirectionState>>,
}

impl Side {
    fn new(memory: Memory, packets: Vec<Reserved>, sessions: usize) -> Self {
        Self {
            memory,
            packets,
            per_session: vec![0; sessions],
            counts: Counts {
                data: place(0),
                ..Counts::default()
            },
            contents: 0,
            stage: Stage::Filling,
        }
    }

    /// Forgets its packets, to be filled again.
    fn reset(&mut self) {
        self.per_session.fill(0);
        self.counts = Counts {
            data: place(0),
            ..Counts::default()
        };
        self.contents = 0;
        self.stage = Stage::Filling;
    }
}

/// Dropped with sides still out, an arena waits for them (so that their
/// key entries are wiped) and drops their packets; their senders have
/// moved past them.
impl Drop for SealArena<'_> {
    fn drop(&mut self) {
        for side in &self.sides {
            let (
                Stage::Submitted {
                    flight: Some(f), ..
                },
                Memory::Device { slot, .. },
            ) = (&side.stage, &side.memory)
            else {
                continue;
            };
            if let Ok(exec) = &mut self.engine.device {
                if let Err(e) = exec.finish(*slot, &f.regions) {
                    self.engine.device = Err(Unavailable::AfterError(e));
                }
            }
        }
        self.engine.arena_spare = std::mem::take(&mut self.sides[0].packets);
    }
}

impl std::fmt::Debug for SealArena<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SealArena")
            .field("capacity", &self.capacity)
            .field("sides", &self.sides.len())
            .field("packets", &self.len())
            .field("submitted", &self.flights.len())
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// An arena of `capacity` on this engine's device (its pinned staging
    /// memory, allocated here when it is smaller: one buffer per side), or
    /// in host memory without one.
    ///
    /// # Errors
    ///
    /// [`ArenaError::Device`] when the device's memory cannot be had.
    pub fn seal_arena(&mut self, capacity: Capacity) -> Result<SealArena<'_>, ArenaError> {
        let task_bytes = self.limits(capacity.packets).task_bytes;
        let most = most(&capacity, task_bytes);
        let bound = Regions::new(&most).total();
        let mut memories = Vec::with_capacity(2);
        match &mut self.device {
            Ok(exec) => {
                for slot in 0..exec.slots().clamp(1, 2) {
                    exec.input(slot, bound)?;
                    memories.push(Memory::Device { slot, bound });
                }
            }
            Err(_) => memories.extend((0..2).map(|_| Memory::Host(vec![0u8; most.data]))),
        }
        // The last arena's list, kept by the engine: no allocation per arena.
        let mut spare = std::mem::take(&mut self.arena_spare);
        spare.reserve(capacity.packets.saturating_sub(spare.len()));
        let sides = memories
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                let list = if i == 0 {
                    std::mem::take(&mut spare)
                } else {
                    Vec::with_capacity(capacity.packets)
                };
                Side::new(m, list, capacity.sessions)
            })
            .collect();
        Ok(SealArena {
            engine: self,
            capacity,
            task_bytes,
            sides,
            filling: 0,
            flights: VecDeque::with_capacity(2),
        })
    }
}

/// An arena's memory, as the device or the host holds it.
fn memory<'m>(
    m: &'m mut Memory,
    device: &'m mut Result<Box<dyn Executor>, Unavailable>,
) -> Result<&'m mut [u8], DeviceError> {
    match (m, device) {
        (Memory::Device { slot, bound }, Ok(exec)) => exec.input(*slot, *bound),
        (Memory::Host(v), _) => Ok(v),
        (Memory::Device { .. }, Err(e)) => Err(DeviceError(e.to_string())),
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
        runs: 0,
    }
}

impl SealArena<'_> {
    /// Reserves the next packet of `session`: `len` contents bytes of type
    /// `kind`. Returns where its contents go; write all `len` bytes there
    /// (what is there before is not defined).
    ///
    /// # Errors
    ///
    /// [`ArenaError::Full`], [`ArenaError::NoSession`],
    /// [`ArenaError::Session`] with [`Error::TooLong`] for contents over
    /// [`MAX_CONTENTS_LEN`], or [`ArenaError::InFlight`] when the side to
    /// fill is still on the device; nothing is reserved then.
    pub fn packet(
        &mut self,
        session: usize,
        len: u32,
        kind: PacketType,
    ) -> Result<&mut [u8], ArenaError> {
        let i = self.fillable()?;
        let side = &mut self.sides[i];
        let too_long = (len as usize > MAX_CONTENTS_LEN).then_some(len);
        let have = (side.counts.packets, side.contents);
        reserve::admit(&self.capacity, session, too_long, have, (1, len as usize))?;
        let o = Outgoing { len, kind };
        let ordinal = side.per_session[session];
        let r = Reserved::next(&mut side.counts, session, ordinal, &o, self.task_bytes);
        match side.packets.get_mut(side.counts.packets - 1) {
            Some(slot) => *slot = r,
            None => side.packets.push(r),
        }
        side.per_session[session] += 1;
        side.contents += len as usize;
        Ok(&mut memory(&mut side.memory, &mut self.engine.device)?[r.contents()])
    }

    /// Packets reserved in the side being filled.
    pub fn len(&self) -> usize {
        let side = &self.sides[self.filling];
        match side.stage {
            Stage::Filling => side.counts.packets,
            Stage::Submitted { .. } | Stage::Done => 0,
        }
    }

    /// Whether the side being filled holds no packet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sides submitted and not yet waited for.
    pub fn submitted(&self) -> usize {
        self.flights.len()
    }

    /// Forgets every packet reserved in the side being filled (a submitted
    /// side keeps its packets).
    pub fn clear(&mut self) {
        let side = &mut self.sides[self.filling];
        if !matches!(side.stage, Stage::Submitted { .. }) {
            side.reset();
        }
    }

    /// The side being filled, made ready for packets.
    ///
    /// # Errors
    ///
    /// [`ArenaError::InFlight`] when it is still submitted.
    fn fillable(&mut self) -> Result<usize, ArenaError> {
        let side = &mut self.sides[self.filling];
        match side.stage {
            Stage::Filling => {}
            Stage::Done => side.reset(),
            Stage::Submitted { .. } => return Err(ArenaError::InFlight),
        }
        Ok(self.filling)
    }
}

/// Where an arena's results are: its host memory, or the buffer the device
/// copied back into.
///
/// # Errors
///
/// A device error reading that buffer.
fn results<'m>(
    m: &'m Memory,
    device: &'m mut Result<Box<dyn Executor>, Unavailable>,
) -> Result<&'m [u8], DeviceError> {
    match (m, device) {
        (Memory::Host(buf), _) => Ok(&buf[..]),
        (Memory::Device { slot, .. }, Ok(exec)) => exec.output(*slot),
        (Memory::Device { .. }, Err(_)) => unreachable!("an arena falls back to host memory"),
    }
}

/// The first `end` bytes of an arena's memory taken into host memory of
/// `len` bytes, for the library (the device has failed).
///
/// # Errors
///
/// [`ArenaError::Device`] when they cannot be read back.
fn to_host(
    m: &mut Memory,
    device: &mut Result<Box<dyn Executor>, Unavailable>,
    end: usize,
    len: usize,
) -> Result<(), ArenaError> {
    let mut copy = memory(m, device)?[..end].to_vec();
    copy.resize(len.max(end), 0);
    *m = Memory::Host(copy);
    Ok(())
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
