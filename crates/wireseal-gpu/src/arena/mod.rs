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

mod device;
mod open;
mod reserve;

pub use open::{OpenArena, OpenCapacity, OpenedArena};

use crate::layout::Reserved;

use crate::engine::Engine;
use crate::exec::{DeviceError, Executor};
use crate::jobs::Outgoing;
use crate::layout::{place, wire_len, Counts, Regions};
use crate::Unavailable;
use device::SessionWork;
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

/// An arena's memory, as the device or the host holds it.
fn memory<'m>(
    m: &'m mut Memory,
    device: &'m mut Result<Box<dyn Executor>, Unavailable>,
) -> Result<&'m mut [u8], DeviceError> {
    match (m, device) {
        (Memory::Device { bound }, Ok(exec)) => exec.input(0, *bound),
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
    /// [`ArenaError::Full`], [`ArenaError::NoSession`], or
    /// [`ArenaError::Session`] with [`Error::TooLong`] for contents over
    /// [`MAX_CONTENTS_LEN`]; nothing is reserved then.
    pub fn packet(
        &mut self,
        session: usize,
        len: u32,
        kind: PacketType,
    ) -> Result<&mut [u8], ArenaError> {
        let too_long = (len as usize > MAX_CONTENTS_LEN).then_some(len);
        let have = (self.counts.packets, self.contents);
        reserve::admit(&self.capacity, session, too_long, have, (1, len as usize))?;
        let o = Outgoing { len, kind };
        let ordinal = self.per_session[session];
        let r = Reserved::next(&mut self.counts, session, ordinal, &o, self.task_bytes);
        match self.packets.get_mut(self.counts.packets - 1) {
            Some(slot) => *slot = r,
            None => self.packets.push(r),
        }
        self.per_session[session] += 1;
        self.contents += len as usize;
        Ok(&mut self.memory()?[r.contents()])
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
        memory(&mut self.memory, &mut self.engine.device)
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
        let data = results(&self.memory, &mut self.engine.device)?;
        Ok(Sealed {
            data,
            packets: &self.packets[..self.counts.packets],
            device_error,
        })
    }

    /// After a device error: the device is turned off, and the packets'
    /// contents are taken into host memory for the library.
    ///
    /// # Errors
    ///
    /// [`ArenaError::Device`] when even the contents cannot be read back
    /// (nothing is sealed; the sessions have not moved).
    fn fall_back(&mut self, e: &DeviceError) -> Result<(), ArenaError> {
        to_host(
            &mut self.memory,
            &mut self.engine.device,
            self.counts.data,
            e,
        )
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
        (Memory::Device { .. }, Ok(exec)) => exec.output(0),
        (Memory::Device { .. }, Err(_)) => unreachable!("an arena falls back to host memory"),
    }
}

/// After a device error: the device turned off, and the first `end` bytes
/// of an arena's memory taken into host memory for the library.
///
/// # Errors
///
/// [`ArenaError::Device`] when even they cannot be read back.
fn to_host(
    m: &mut Memory,
    device: &mut Result<Box<dyn Executor>, Unavailable>,
    end: usize,
    e: &DeviceError,
) -> Result<(), ArenaError> {
    let copy = memory(m, device)?[..end].to_vec();
    *device = Err(Unavailable::AfterError(e.clone()));
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
