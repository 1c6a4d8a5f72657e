//! Submitting a seal arena's side and waiting for it. Submitting works out
//! each session's share on the engine's threads, starts the side on its
//! device slot and moves the senders past its packets at once, so the
//! caller fills the other side (with the same senders) while the device
//! seals this one. Should the device fail before a side comes back, the
//! library seals that side again from the senders' states at submission,
//! into host memory, with the same bytes: nothing submitted is lost.

use super::device::{layout, start, SessionWork};
use super::{
    memory, most, results, seal_in_place, to_host, ArenaError, Flight, Memory, SealArena, Sealed,
    Stage,
};
use crate::exec::DeviceError;
use crate::layout::Reserved;
use crate::Unavailable;
use wireseal::bip324::state::DirectionState;
use wireseal::bip324::{sealed_len, Error, PacketSender, PacketType};

impl SealArena<'_> {
    /// Seals every reserved packet, session `i`'s with `senders[i]`, in the
    /// order each session's were reserved, moves each sender past its
    /// packets, and returns the sealed packets ([`SealArena::submit`] then
    /// [`SealArena::wait`]). The arena then fills its other side (or, with
    /// one side, this one again once the next packet is reserved).
    ///
    /// # Errors
    ///
    /// [`ArenaError::InFlight`] while a side is submitted and not waited
    /// for; otherwise as [`SealArena::submit`].
    pub fn seal(&mut self, senders: &mut [&mut PacketSender]) -> Result<Sealed<'_>, ArenaError> {
        if !self.flights.is_empty() {
            return Err(ArenaError::InFlight);
        }
        self.submit(senders)?;
        self.wait()
    }

    /// Submits the side being filled: its packets are sealed, session
    /// `i`'s with `senders[i]` in the order each session's were reserved,
    /// and each sender moves past its packets now. On a device the side
    /// runs there while the caller reserves packets in the other side;
    /// without one the library seals it here. Its packets are read from
    /// [`SealArena::wait`], oldest side first.
    ///
    /// # Errors
    ///
    /// [`ArenaError::Senders`], [`ArenaError::InFlight`] (the side being
    /// filled is still submitted), [`ArenaError::Session`] with
    /// [`Error::Exhausted`] for a session whose key schedule ends first, or
    /// [`ArenaError::Device`] when after a device error the side's contents
    /// cannot even be read back; nothing is sealed and no sender moves
    /// then. A device error alone is not one: the library seals the side
    /// and [`Sealed::device_error`] says so.
    pub fn submit(&mut self, senders: &mut [&mut PacketSender]) -> Result<(), ArenaError> {
        if senders.len() != self.capacity.sessions {
            return Err(ArenaError::Senders {
                senders: senders.len(),
                sessions: self.capacity.sessions,
            });
        }
        let i = self.fillable()?;
        let side = &mut self.sides[i];
        let short = senders
            .iter()
            .zip(&side.per_session)
            .position(|(s, &n)| u64::from(n) > s.messages_left());
        if let Some(session) = short {
            return Err(ArenaError::Session {
                session,
                error: Error::Exhausted,
            });
        }
        match &mut side.memory {
            Memory::Host(buf) => {
                seal_in_place(buf, &side.packets[..side.counts.packets], senders);
                side.stage = Stage::Submitted {
                    flight: None,
                    device_error: None,
                };
            }
            Memory::Device { .. } => self.start_side(i, senders)?,
        }
        self.flights.push_back(i);
        self.filling = (i + 1) % self.sides.len();
        let next = &mut self.sides[self.filling];
        if matches!(next.stage, Stage::Done) {
            next.reset();
        }
        Ok(())
    }

    /// Starts side `i` on the device: each session's share worked out, and
    /// its sender moved past its packets, on the engine's threads; then the
    /// descriptors. Should the device fail here, the library seals the
    /// side from the sessions' states.
    ///
    /// # Errors
    ///
    /// [`ArenaError::Device`] when after a device error the side's
    /// contents cannot even be read back; the senders are put back where
    /// they were then, and nothing is sealed.
    fn start_side(
        &mut self,
        i: usize,
        senders: &mut [&mut PacketSender],
    ) -> Result<(), ArenaError> {
        let mut work: Vec<(&mut PacketSender, u32, SessionWork)> = senders
            .iter_mut()
            .zip(&self.sides[i].per_session)
            .map(|(s, &n)| (&mut **s, n, SessionWork::default()))
            .collect();
        self.engine
            .batch
            .for_each_mut_coarse(&mut work, |(s, n, w)| *w = SessionWork::of(s, *n));
        let work: Vec<SessionWork> = work.into_iter().map(|(_, _, w)| w).collect();
        let side = &self.sides[i];
        let (counts, regions) = layout(side, &work);
        let started = match &mut self.engine.device {
            Ok(exec) => start(
                side,
                exec.as_mut(),
                &self.engine.batch,
                &work,
                (&counts, &regions),
                self.task_bytes,
            ),
            Err(e) => Err(DeviceError(e.to_string())),
        };
        let states: Vec<Option<DirectionState>> = work.into_iter().map(|w| w.state).collect();
        let Err(e) = started else {
            self.sides[i].stage = Stage::Submitted {
                flight: Some(Box::new(Flight { regions, states })),
                device_error: None,
            };
            return Ok(());
        };
        // The side goes to the library with the others the device held.
        let rewind: Vec<Option<PacketSender>> = states
            .iter()
            .map(|s| s.as_ref().map(PacketSender::from_state))
            .collect();
        self.sides[i].stage = Stage::Submitted {
            flight: Some(Box::new(Flight { regions, states })),
            device_error: None,
        };
        if let Err(lost) = self.turn_off(&e) {
            for (s, back) in senders.iter_mut().zip(rewind) {
                if let Some(back) = back {
                    **s = back;
                }
            }
            self.sides[i].stage = Stage::Filling;
            return Err(lost);
        }
        Ok(())
    }

    /// Waits for the oldest submitted side and returns its sealed packets,
    /// by reservation number within the side. They stay readable until the
    /// side is filled again.
    ///
    /// # Errors
    ///
    /// [`ArenaError::NotSubmitted`] when no side is submitted, or
    /// [`ArenaError::Device`] when after a device error the side's contents
    /// cannot even be read back (a device error alone is not one: the
    /// library seals the side and [`Sealed::device_error`] says so).
    pub fn wait(&mut self) -> Result<Sealed<'_>, ArenaError> {
        let i = *self.flights.front().ok_or(ArenaError::NotSubmitted)?;
        let side = &self.sides[i];
        let failed = match (&side.stage, &side.memory, &mut self.engine.device) {
            (
                Stage::Submitted {
                    flight: Some(f), ..
                },
                Memory::Device { slot, .. },
                Ok(exec),
            ) => exec.finish(*slot, &f.regions).err(),
            (
                Stage::Submitted {
                    flight: Some(_), ..
                },
                _,
                _,
            ) => Some(DeviceError("the device went away".into())),
            _ => None,
        };
        if let Some(e) = failed {
            self.turn_off(&e)?;
        }
        self.flights.pop_front();
        let side = &mut self.sides[i];
        let Stage::Submitted { device_error, .. } = std::mem::replace(&mut side.stage, Stage::Done)
        else {
            unreachable!("a side in the queue is submitted")
        };
        let data = results(&side.memory, &mut self.engine.device)?;
        Ok(Sealed {
            data,
            packets: &side.packets[..side.counts.packets],
            device_error,
        })
    }

    /// After a device error: the device turned off, and every side moved
    /// into host memory. A side being filled keeps its contents; a side on
    /// the device is sealed by the library from its sessions' states (its
    /// key entries wiped from the staging buffer first); a side waited for
    /// already is emptied.
    ///
    /// # Errors
    ///
    /// [`ArenaError::Device`] when a side's contents cannot be read back.
    fn turn_off(&mut self, e: &DeviceError) -> Result<(), ArenaError> {
        let len = most(&self.capacity, self.task_bytes).data;
        for side in &mut self.sides {
            if matches!(side.memory, Memory::Host(_)) {
                continue;
            }
            if let Stage::Submitted {
                flight: Some(f), ..
            } = &side.stage
            {
                memory(&mut side.memory, &mut self.engine.device)?[f.regions.keys.clone()].fill(0);
            }
            let end = match side.stage {
                Stage::Done => 0,
                _ => side.counts.data,
            };
            to_host(&mut side.memory, &mut self.engine.device, end, len)?;
            match &mut side.stage {
                Stage::Done => side.reset(),
                Stage::Filling => {}
                Stage::Submitted {
                    flight,
                    device_error,
                } => {
                    if let (Some(f), Memory::Host(buf)) = (flight.take(), &mut side.memory) {
                        reseal(buf, &side.packets[..side.counts.packets], &f.states);
                        *device_error = Some(e.clone());
                    }
                }
            }
        }
        self.engine.device = Err(Unavailable::AfterError(e.clone()));
        Ok(())
    }
}

/// Seals `packets` in place in `buf` from their sessions' states before
/// them (what the device was sealing when it failed: the same packets from
/// the same states, so the same bytes).
fn reseal(buf: &mut [u8], packets: &[Reserved], states: &[Option<DirectionState>]) {
    let mut senders: Vec<Option<PacketSender>> = states
        .iter()
        .map(|s| s.as_ref().map(PacketSender::from_state))
        .collect();
    for p in packets {
        let kind = PacketType::from_header(p.header);
        let at = &mut buf[p.offset..p.offset + sealed_len(p.len as usize)];
        senders[p.session as usize]
            .as_mut()
            .expect("a state for every session with packets")
            .seal_in_place(p.len as usize, kind, b"", at)
            .expect("lengths and key schedules checked when submitted");
    }
}
