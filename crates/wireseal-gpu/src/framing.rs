//! The host's half of an open framed on the device (`kernel/bip324.cu`'s
//! `ws_open_*`): how much of each list a session's run can take, the
//! `ws_run` that describes it, and the device's answer checked before any
//! of it is believed. Both the job path (`crate::work`) and the open arena
//! (`crate::arena`) go through here.

use crate::layout::{Counts, KeyDesc, RunDesc, KEY_DESC};
use crate::plan::segments;
use wireseal::bip324::batch::OpenedRange;
use wireseal::bip324::state::DirectionState;
use wireseal::bip324::{sealed_len, PacketReceiver, PacketType, HEADER_LEN, LENGTH_LEN, OVERHEAD};

/// The most bytes of one run: a `ws_run` counts them in 32 bits.
pub(crate) const MAX_RUN: usize = u32::MAX as usize;

/// The most packets a run of `bytes` from `state` can hold (every packet
/// at least [`OVERHEAD`] bytes, and no more than the key schedule still
/// allows), and the key entries those span.
pub(crate) fn most(state: &DirectionState, bytes: usize) -> (usize, usize) {
    let left = usize::try_from(state.messages_left()).unwrap_or(usize::MAX);
    let packets = (bytes / OVERHEAD).min(left).min(MAX_RUN);
    (packets, segments(state, 0, packets.max(1)))
}

/// What the runs of a chunk may take of each list: `bytes` of runs,
/// `runs` of them, holding at most `packets` packets over `keys` key
/// entries.
pub(crate) fn counts(
    bytes: usize,
    runs: usize,
    packets: usize,
    keys: usize,
    task_bytes: u32,
) -> Counts {
    let tb = task_bytes as usize;
    // A packet of several parts has more than a part's bytes of body, and
    // every packet at most one part that is not whole.
    let multi = bytes / (tb + OVERHEAD);
    Counts {
        packets,
        tasks: bytes / tb + packets,
        multi,
        mtasks: bytes / tb + multi,
        keys,
        data: bytes,
        runs,
    }
}

/// One run's place in a chunk: where its bytes lie in the data region, and
/// where its key entries and lengths start.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    pub offset: usize,
    pub len: usize,
    pub key: usize,
    pub lens: usize,
}

/// Writes a run's `ws_run` and its first key entry (the epoch `state`
/// stands in; the device writes the later ones after it) into `run` and
/// `keys`; `most` is [`most`] of it.
pub(crate) fn write(
    rx: &PacketReceiver,
    state: &DirectionState,
    at: &Place,
    (packets, key_entries): (usize, usize),
    run: &mut [u8],
    keys: &mut [u8],
) {
    RunDesc {
        offset: at.offset as u64,
        len: at.len as u32,
        limit: packets as u32,
        key: at.key as u32,
        keys: key_entries as u32,
        index: state.packet_position().index,
        chunk: state.length_position().index,
        max: rx.max_contents() as u32,
        lens: at.lens as u32,
    }
    .write(run);
    keys[..KEY_DESC].copy_from_slice(KeyDesc::of(state).bytes());
}

/// What the device found and verified of one run, read from its entries
/// in the lens list (each a packet's contents bytes, its status in the
/// top byte).
pub(crate) struct Verified<'l> {
    /// Whole packets found.
    pub count: usize,
    /// Packets that verified, in order, up to the first that did not.
    pub ok: usize,
    /// Their wire bytes.
    pub bytes: usize,
    lens: &'l [u8],
}

impl<'l> Verified<'l> {
    /// The verified packets' contents bytes, in order.
    fn sizes(&self) -> impl Iterator<Item = usize> + 'l {
        words(self.lens)
            .take(self.ok)
            .map(|w| (w & LEN_MASK) as usize)
    }

    /// Appends the verified packets' ranges to `out`, the first packet's
    /// length field at `at` in `wire` (which holds them opened: each type
    /// is read from its header byte there).
    pub(crate) fn ranges(&self, wire: &[u8], at: usize, out: &mut Vec<OpenedRange>) {
        out.reserve(self.ok);
        let mut off = at;
        for len in self.sizes() {
            let body = off + LENGTH_LEN;
            out.push(OpenedRange {
                offset: body + HEADER_LEN,
                len,
                kind: PacketType::from_header(wire[body]),
            });
            off += sealed_len(len);
        }
    }
}

const LEN_MASK: u32 = 0x00ff_ffff;

fn words(lens: &[u8]) -> impl Iterator<Item = u32> + '_ {
    lens.chunks_exact(4)
        .map(|l| u32::from_le_bytes(l.try_into().expect("4 bytes")))
}

/// Reads a run's `count` packets from `lens` (the device's list from the
/// run's first entry on), when the answer adds up: every packet has a
/// status, and the packets found fit in the run's `len` bytes. `None` is
/// an engine fault: nothing of the run is to be taken.
pub(crate) fn verified(count: u32, lens: &[u8], len: usize) -> Option<Verified<'_>> {
    let count = count as usize;
    let lens = lens.get(..count.checked_mul(4)?)?;
    let (mut ok, mut bytes, mut all, mut failed) = (0usize, 0usize, 0usize, false);
    for w in words(lens) {
        let size = sealed_len((w & LEN_MASK) as usize);
        all += size;
        match w >> 24 {
            1 if !failed => {
                ok += 1;
                bytes += size;
            }
            1 | 2 => failed = true,
            _ => return None,
        }
    }
    (all <= len).then_some(Verified {
        count,
        ok,
        bytes,
        lens,
    })
}
