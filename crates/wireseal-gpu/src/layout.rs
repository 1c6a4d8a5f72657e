//! The staging buffer's layout, shared with `kernel/bip324.cu` (the
//! structures `ws_key`, `ws_packet`, `ws_task` and `ws_args`; a test compares
//! every size and offset with the host build of the C source).
//!
//! One chunk of a batch is one buffer, copied to the device in one piece:
//!
//! | region | contents |
//! |---|---|
//! | data | the packets: a seal's each in its slot, its body (offset + 3) on a multiple of 16; an open's runs as they are on the wire |
//! | status | one byte per packet, written by an open (1 verified, 2 failed) |
//! | packets | one 32-byte `ws_packet` per packet |
//! | tasks | one 8-byte `ws_task` (packet, part) per part, in packet order |
//! | multi | the packets of more than one part (`u32` each) |
//! | mtasks | their parts (`u32` indices into tasks) |
//! | keys | one 80-byte `ws_key` per session epoch the chunk touches |
//!
//! Regions start on 256-byte boundaries. Data comes first, so a packet's
//! place in the buffer is known before the descriptors are counted (what
//! lets callers write contents straight into the buffer, `crate::arena`).
//! What comes back from the device is data and status, one contiguous
//! range.

use crate::direction::Direction;
use core::ops::Range;
use wireseal::bip324::state::DirectionState;
use wireseal::bip324::OVERHEAD;
use wireseal::secret::Secret;

/// Bytes of a `ws_packet`.
pub(crate) const PACKET_DESC: usize = 32;
/// Bytes of a `ws_task`.
pub(crate) const TASK_DESC: usize = 8;
/// Bytes of a `ws_key`.
pub(crate) const KEY_DESC: usize = 80;
/// Device scratch per task: 8 `u32` (a part's Poly1305 value in 5).
pub(crate) const PARTIAL: usize = 32;
const REGION_ALIGN: usize = 256;
/// Bodies (header + contents) start on this boundary, so a device reads
/// and writes whole 64-byte blocks with 16-byte accesses.
pub(crate) const BODY_ALIGN: usize = 16;

/// Where the packet after one ending at `cursor` starts in the data
/// region: its body, 3 bytes on, on a [`BODY_ALIGN`] boundary.
pub(crate) fn place(cursor: usize) -> usize {
    (cursor + 3).next_multiple_of(BODY_ALIGN) - 3
}

/// Bytes a packet with `len` contents bytes occupies in the data region.
pub(crate) fn wire_len(len: u32) -> usize {
    len as usize + OVERHEAD
}

/// One `ws_packet`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PacketDesc {
    /// Offset of the length field in the data region.
    pub offset: u64,
    /// Contents bytes.
    pub len: u32,
    /// Index of its `ws_key`.
    pub key: u32,
    /// Packet index in its epoch (the nonce's first word).
    pub index: u32,
    /// Length-cipher chunk in its epoch.
    pub chunk: u32,
    /// Header byte to seal.
    pub header: u32,
    /// Its first part in the task list.
    pub first_task: u32,
}

impl PacketDesc {
    pub(crate) fn write(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.offset.to_le_bytes());
        for (i, v) in [
            self.len,
            self.key,
            self.index,
            self.chunk,
            self.header,
            self.first_task,
        ]
        .into_iter()
        .enumerate()
        {
            out[8 + 4 * i..12 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// The part entries of packet `index`, whose `parts` parts start at task
/// `first_task`: one `ws_task` each, and for a packet of several parts its
/// entry in the multi list and its parts' in the mtasks list, each taken
/// from the front of its region's entries.
pub(crate) fn write_parts<'b>(
    index: u32,
    first_task: u32,
    parts: u32,
    tasks: &mut impl Iterator<Item = &'b mut [u8]>,
    multi: &mut impl Iterator<Item = &'b mut [u8]>,
    mtasks: &mut impl Iterator<Item = &'b mut [u8]>,
) {
    for part in 0..parts {
        let t = tasks.next().expect("an entry per part");
        t[..4].copy_from_slice(&index.to_le_bytes());
        t[4..].copy_from_slice(&part.to_le_bytes());
        if parts > 1 {
            let m = mtasks
                .next()
                .expect("an entry per part of a multi-part packet");
            m.copy_from_slice(&(first_task + part).to_le_bytes());
        }
    }
    if parts > 1 {
        let m = multi.next().expect("an entry per multi-part packet");
        m.copy_from_slice(&index.to_le_bytes());
    }
}

/// One `ws_key`: a session direction's keys for one epoch of each cipher,
/// in a zeroizing buffer.
pub(crate) struct KeyDesc(Secret<KEY_DESC>);

impl KeyDesc {
    /// The keys `state` stands at.
    pub(crate) fn of(state: &DirectionState) -> Self {
        let mut k = Secret::new([0u8; KEY_DESC]);
        let b = k.expose_mut();
        b[..32].copy_from_slice(state.packet_key().expose());
        b[32..64].copy_from_slice(state.length_key().expose());
        b[64..72].copy_from_slice(&state.packet_position().epoch.to_le_bytes());
        b[72..80].copy_from_slice(&state.length_position().epoch.to_le_bytes());
        Self(k)
    }

    pub(crate) fn bytes(&self) -> &[u8; KEY_DESC] {
        self.0.expose()
    }
}

/// The regions of one chunk's buffer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Regions {
    pub packets: Range<usize>,
    pub tasks: Range<usize>,
    pub multi: Range<usize>,
    pub mtasks: Range<usize>,
    pub keys: Range<usize>,
    pub status: Range<usize>,
    pub data: Range<usize>,
}

impl Regions {
    /// The layout for these counts.
    pub(crate) fn new(c: &Counts) -> Self {
        let mut at = 0usize;
        let mut next = |len: usize| {
            let r = at..at + len;
            at = (at + len).next_multiple_of(REGION_ALIGN);
            r
        };
        let data = next(c.data);
        let status = next(c.packets);
        Self {
            data,
            status,
            packets: next(c.packets * PACKET_DESC),
            tasks: next(c.tasks * TASK_DESC),
            multi: next(c.multi * 4),
            mtasks: next(c.mtasks * 4),
            keys: next(c.keys * KEY_DESC),
        }
    }

    /// `buf` cut into the regions, in order: packets, tasks, multi, mtasks,
    /// keys, status, data.
    pub(crate) fn split<'b>(&self, buf: &'b mut [u8]) -> [&'b mut [u8]; 7] {
        let mut rest = &mut buf[..self.total()];
        let mut at = 0usize;
        let mut take = |range: &Range<usize>| {
            let (_, tail) = core::mem::take(&mut rest).split_at_mut(range.start - at);
            let (mine, tail) = tail.split_at_mut(range.len());
            rest = tail;
            at = range.end;
            mine
        };
        // In memory order.
        let data = take(&self.data);
        let status = take(&self.status);
        [
            take(&self.packets),
            take(&self.tasks),
            take(&self.multi),
            take(&self.mtasks),
            take(&self.keys),
            status,
            data,
        ]
    }

    /// Bytes of the whole buffer.
    pub(crate) fn total(&self) -> usize {
        self.keys.end
    }

    /// What the device sends back: data and status.
    pub(crate) fn output(&self) -> Range<usize> {
        self.data.start..self.status.end
    }
}

/// How many entries of each kind a chunk holds, and its data bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub packets: usize,
    pub tasks: usize,
    pub multi: usize,
    pub mtasks: usize,
    pub keys: usize,
    pub data: usize,
}

impl Counts {
    /// Adds every count of `o` (data bytes too).
    pub(crate) fn add(&mut self, o: &Counts) {
        self.packets += o.packets;
        self.tasks += o.tasks;
        self.multi += o.multi;
        self.mtasks += o.mtasks;
        self.keys += o.keys;
        self.data += o.data;
    }
}

/// `ws_args`: where each region is on the device, and the counts.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Args {
    pub packets: u64,
    pub tasks: u64,
    pub multi: u64,
    pub mtasks: u64,
    pub keys: u64,
    pub data: u64,
    pub status: u64,
    pub partials: u64,
    pub ntasks: u32,
    pub nmulti: u32,
    pub nmtasks: u32,
    pub task_bytes: u32,
}

impl Args {
    /// The arguments for a buffer at device address `base` laid out as `r`,
    /// with scratch for the parts at `partials`.
    pub(crate) fn new(base: u64, partials: u64, r: &Regions, c: &Counts, task_bytes: u32) -> Self {
        let at = |range: &Range<usize>| base + range.start as u64;
        Self {
            packets: at(&r.packets),
            tasks: at(&r.tasks),
            multi: at(&r.multi),
            mtasks: at(&r.mtasks),
            keys: at(&r.keys),
            data: at(&r.data),
            status: at(&r.status),
            partials,
            ntasks: c.tasks as u32,
            nmulti: c.multi as u32,
            nmtasks: c.mtasks as u32,
            task_bytes,
        }
    }
}

/// The kernels, in the order a chunk runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernel {
    SealParts,
    SealFinish,
    OpenParts,
    OpenVerify,
    OpenDecrypt,
}

impl Kernel {
    /// The kernel's name in `kernel/bip324.cu`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kernel::SealParts => "ws_seal_parts",
            Kernel::SealFinish => "ws_seal_finish",
            Kernel::OpenParts => "ws_open_parts",
            Kernel::OpenVerify => "ws_open_verify",
            Kernel::OpenDecrypt => "ws_open_decrypt",
        }
    }

    /// Every kernel.
    pub(crate) const ALL: [Kernel; 5] = [
        Kernel::SealParts,
        Kernel::SealFinish,
        Kernel::OpenParts,
        Kernel::OpenVerify,
        Kernel::OpenDecrypt,
    ];

    /// The launches of a seal or an open of `args`, with the number of
    /// items (threads' worth of work) of each; kernels with nothing to do
    /// are left out.
    pub(crate) fn sequence(dir: Direction, args: &Args) -> Vec<(Kernel, u32)> {
        let all = if dir == Direction::Open {
            [
                (Kernel::OpenParts, args.ntasks),
                (Kernel::OpenVerify, args.nmulti),
                (Kernel::OpenDecrypt, args.nmtasks),
            ]
        } else {
            [
                (Kernel::SealParts, args.ntasks),
                (Kernel::SealFinish, args.nmulti),
                (Kernel::SealFinish, 0),
            ]
        };
        all.into_iter().filter(|(_, n)| *n > 0).collect()
    }
}

/// One packet reserved in a seal arena: where it is placed in the data
/// region, and its entries.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reserved {
    pub(crate) session: u32,
    /// Its index among its session's packets in the arena.
    pub(crate) ordinal: u32,
    pub(crate) len: u32,
    pub(crate) header: u8,
    /// Its length field's offset in the data region.
    pub(crate) offset: usize,
    /// Tasks, multi-part packets and their parts before it.
    pub(crate) task: u32,
    pub(crate) multi: u32,
    pub(crate) mtask: u32,
}
