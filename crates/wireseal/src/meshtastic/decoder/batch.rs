//! Decoding many envelopes across cores.
//!
//! The threads read the decoder as the batch found it and change nothing;
//! one pass in input order then writes what decoding the envelopes one at
//! a time would have written. On the threads, run by run of consecutive
//! envelopes: the stateless step (envelope, channel trial decryption, the
//! signature checked against the key pinned when the batch began), PKC
//! direct messages opened with the keys the engines' caches hold, and each
//! decoded packet settled as the ordered step would settle it against the
//! node table as it stood (its signature, verdict and key conflict, and the
//! writes to the table they call for). Then the keys of the distinct PKC
//! senders the caches lacked are derived in parallel, and their packets
//! opened on the threads too.
//!
//! The ordered pass, per envelope: a packet settled ahead whose sender's
//! entry in the node table has not changed earlier in the batch keeps what
//! it was given; its writes are applied (the key event of a pin is the
//! table's own), its PKC key booked with the engine's cache (a hit, or the
//! insertion of a key derived in the batch) and its replay windows
//! consulted. A packet whose sender's entry changed, whose key has left the
//! cache since, or that was not settled ahead goes through the ordered step
//! in full, which keeps a PKC plaintext opened ahead only if the key it
//! picks now is the one it was opened with and that key is still cached
//! (otherwise it opens it again), and keeps a signature checked ahead only
//! if it was checked with the key it picks. Each result is therefore
//! exactly what [`Decoder::decode`] returns for that envelope after the
//! ones before it, and the decoder's state ends up the same.

use super::ahead::{Ahead, Opened};
use super::judge::{judge, Writes};
use super::nodes::NodeTable;
use super::parse::{identity, nodeinfo_key, parse, pkc_ciphertext};
use super::verified::Verified;
use super::{Channels, Checked, Decoded, Decoder, Decryption, Pending, Pkc, Signature, Undecoded};
use crate::batch::Batch;
use crate::meshtastic::pkc_ahead::{FreshKeys, KeyFrom};
use crate::meshtastic::{envelope, opened_len};
use crate::meshtastic::{Error, PkcEngine, PkcPacket, SignaturePolicy, MAX_PAYLOAD_LEN};
use std::collections::{HashMap, HashSet};
use zeroize::Zeroize;

/// What the threads read: the decoder as the batch found it.
struct Snapshot<'a> {
    channels: &'a Channels,
    nodes: &'a NodeTable,
    verified: &'a Verified,
    engines: &'a [PkcEngine],
    policy: SignaturePolicy,
    now: u64,
}

/// A run of consecutive envelopes, their results, and what the ordered
/// pass needs for each.
struct Run<'a, 'e> {
    envelopes: &'a [&'e [u8]],
    out: &'a mut [Result<Decoded, Error>],
    /// What the ordered pass has to do for each envelope.
    steps: Vec<Step>,
    /// The pending parts of the envelopes whose step is [`Step::Pending`],
    /// in order.
    pending: Vec<Pending>,
    /// Whether a PKC message of the run waits for its sender's key.
    waits: bool,
}

/// What the ordered pass has to do for one envelope of a batch.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Nothing: the envelope did not decode, or its packet has no `Data`
    /// and no PKC payload.
    Skip,
    /// A packet that is not a PKC message and had no signature checked
    /// ahead, settled ahead with nothing to write to the node table: only
    /// its replay window, unless its sender's entry changed earlier in the
    /// batch (the ordered step in full then, its pending part read off its
    /// `Data` again).
    Quiet {
        /// The sender.
        from: u32,
    },
    /// The ordered step, with the envelope's [`Pending`] part.
    Pending,
}

/// The distinct (engine, sender key) pairs whose keys a batch derives, and
/// the index of each.
type Missing = HashMap<(usize, [u8; 32]), usize>;

impl Snapshot<'_> {
    /// Everything the decoding of `envelope` can do ahead of the ordered
    /// pass, its result into `out`; the pending part, and whether it is a
    /// PKC message whose sender's key no engine has cached.
    fn stage(&self, envelope: &[u8], out: &mut Result<Decoded, Error>) -> (Pending, bool) {
        let (env, payload) = match envelope::decode_in_place(envelope) {
            Ok(parts) => parts,
            Err(e) => {
                *out = Err(e);
                return (Pending::default(), false);
            }
        };
        let (mut d, mut pending) = parse(self.channels, self.nodes, self.verified, env, payload);
        let mut waits = false;
        match &mut pending.pkc {
            Some(pkc) => {
                self.open_cached(&d, pkc);
                waits = self.waits(&d, pkc);
                self.settle_pkc(&mut d, &mut pending);
            }
            None => pending.settled = self.judge(&mut d, pending.announced, pending.signature),
        }
        *out = Ok(d);
        (pending, waits)
    }

    /// Judges a decoded packet as the ordered step would, against the node
    /// table as it stands (`announced`: the key its NodeInfo announces;
    /// `signature`: its signature checked ahead); the writes to the table
    /// that calls for, `None` when `d` has no `Data`.
    fn judge(
        &self,
        d: &mut Decoded,
        announced: Option<[u8; 32]>,
        signature: Option<Checked>,
    ) -> Option<Writes> {
        let data = d.data.as_ref()?;
        let j = judge(self.nodes, self.policy, d, data, announced, signature);
        d.signature = j.signature;
        d.verdict = Some(j.verdict);
        d.key_event = j.conflict;
        Some(j.writes)
    }

    /// Settles a PKC message opened ahead as the ordered step would, when
    /// its `Data` opened and its sender is pinned under the key it was
    /// opened with (and offers no other): that key is then the one the
    /// ordered step picks, and nothing is pinned before the verdict. Its
    /// ciphertext is dropped here (the ordered pass reads it again from the
    /// envelope, should it need it).
    fn settle_pkc(&self, d: &mut Decoded, pending: &mut Pending) {
        let Some(pkc) = &mut pending.pkc else {
            return;
        };
        let Some(a) = &mut pkc.ahead else {
            return;
        };
        let pinned = self.nodes.get(d.from).map(|k| k.public_key);
        if pinned != Some(a.key) || pkc.offered.is_some_and(|o| o != a.key) {
            return;
        }
        let data = match core::mem::replace(&mut a.opened, Opened::InPacket) {
            Opened::Data(Ok(data)) => data,
            other => {
                a.opened = other;
                return;
            }
        };
        let nodeinfo = nodeinfo_key(&data);
        if let Some(key) = nodeinfo {
            d.identity = Some(identity(d, key));
        }
        d.data = Some(data);
        d.decryption = Decryption::Pkc;
        pkc.ciphertext = Vec::new();
        pending.settled = self.judge(d, nodeinfo.flatten(), None);
    }

    /// Whether `d`'s PKC payload was not opened with a cached key and will
    /// be with one derived in the batch: its length is possible and there is
    /// a key to open it with.
    fn waits(&self, d: &Decoded, pkc: &Pkc) -> bool {
        pkc.ahead.is_none()
            && opened_len(pkc.ciphertext.len()).is_ok()
            && self.pkc_key(d, pkc).is_some()
    }

    /// The engine and the key the ordered pass would open `d`'s PKC payload
    /// with, by the node table as it stands.
    fn pkc_key<'s>(&'s self, d: &Decoded, pkc: &Pkc) -> Option<(&'s PkcEngine, [u8; 32])> {
        let engine = self.engines.get(pkc.engine)?;
        let key = match (self.nodes.get(d.from), pkc.offered) {
            (Some(k), _) => k.public_key,
            (None, offered) => offered?,
        };
        Some((engine, key))
    }

    /// Opens a PKC payload whose sender's key the engine has cached.
    fn open_cached(&self, d: &Decoded, pkc: &mut Pkc) {
        let Some((engine, key)) = self.pkc_key(d, pkc) else {
            return;
        };
        let packet = PkcPacket {
            peer_public: &key,
            from: d.from,
            id: d.id,
        };
        let mut buf = [0u8; MAX_PAYLOAD_LEN];
        if let Some((slot, opened)) = engine.open_ahead(self.now, packet, &pkc.ciphertext, &mut buf)
        {
            pkc.ahead = Some(Ahead {
                key,
                from: KeyFrom::slot(slot),
                opened: opened_data(opened, &buf),
            });
        }
        buf.zeroize();
    }

    /// Opens a PKC payload with the key derived in the batch for its sender
    /// (`missing`: the index of each derived key), and settles it ahead.
    fn open_derived(
        &self,
        d: &mut Decoded,
        pending: &mut Pending,
        missing: &Missing,
        fresh: &FreshKeys,
    ) {
        let Some(pkc) = pending.pkc.as_mut().filter(|p| p.ahead.is_none()) else {
            return;
        };
        let Some((_, key)) = self.pkc_key(d, pkc) else {
            return;
        };
        let Some(&i) = missing.get(&(pkc.engine, key)) else {
            return;
        };
        let packet = PkcPacket {
            peer_public: &key,
            from: d.from,
            id: d.id,
        };
        let mut buf = [0u8; MAX_PAYLOAD_LEN];
        // A payload of impossible length is left to the ordered pass (it
        // waits for no key).
        if let Some(out) = opened_len(pkc.ciphertext.len())
            .ok()
            .and_then(|n| buf.get_mut(..n))
        {
            let n = out.len();
            let opened = fresh.open(i, packet, &pkc.ciphertext, out).map(|()| n);
            pkc.ahead = Some(Ahead {
                key,
                from: KeyFrom::derived(i),
                opened: opened_data(opened, &buf),
            });
            self.settle_pkc(d, pending);
        }
        buf.zeroize();
    }
}

/// What opening a payload into `buf` gave (its length, or the tag's
/// failure), with its plaintext parsed as `Data`.
fn opened_data(opened: Result<usize, Error>, buf: &[u8]) -> Opened {
    match opened {
        Ok(n) => Opened::Data(envelope::decode_data(&buf[..n])),
        Err(e) => Opened::Failed(e),
    }
}

impl Run<'_, '_> {
    /// The stateless step and what can be settled ahead, for every envelope
    /// of the run. The steps and pending parts are gathered apart and put in
    /// the run once at the end: the runs lie side by side in memory and
    /// their neighbours are staged on other threads at the same time.
    fn stage(&mut self, s: &Snapshot<'_>) {
        let mut steps = Vec::with_capacity(self.envelopes.len());
        let mut pending_parts = Vec::new();
        let mut run_waits = false;
        for (e, o) in self.envelopes.iter().zip(self.out.iter_mut()) {
            let (pending, waits) = s.stage(e, o);
            run_waits |= waits;
            let step = match o {
                Err(_) => Step::Skip,
                Ok(d) if pending.pkc.is_some() => Step::Pending,
                Ok(d) if d.data.is_none() => Step::Skip,
                Ok(d)
                    if pending.signature.is_none()
                        && pending.settled == Some(Writes::default()) =>
                {
                    Step::Quiet { from: d.from }
                }
                Ok(_) => Step::Pending,
            };
            if matches!(step, Step::Pending) {
                pending_parts.push(pending);
            }
            steps.push(step);
        }
        self.steps = steps;
        self.pending = pending_parts;
        self.waits = run_waits;
    }

    /// The packets of the run whose step is [`Step::Pending`], with their
    /// pending parts and envelopes.
    fn packets(&mut self) -> impl Iterator<Item = (&mut Decoded, &mut Pending, &[u8])> {
        let mut pending = self.pending.iter_mut();
        self.out
            .iter_mut()
            .zip(&self.steps)
            .zip(self.envelopes)
            .filter_map(move |((o, step), e)| match step {
                Step::Pending => {
                    let p = pending.next()?;
                    Some((o.as_mut().ok()?, p, *e))
                }
                Step::Skip | Step::Quiet { .. } => None,
            })
    }
}

impl Decoder {
    /// Decodes every envelope, in parallel on `batch` where the work allows;
    /// results in input order, equal to calling [`Decoder::decode`] on each
    /// in turn with the same `now` (milliseconds).
    pub fn decode_batch(
        &mut self,
        now: u64,
        batch: &Batch,
        envelopes: &[&[u8]],
    ) -> Vec<Result<Decoded, Error>> {
        // Placeholders, each replaced on a thread.
        let mut out: Vec<Result<Decoded, Error>> =
            envelopes.iter().map(|_| Err(Error::Auth)).collect();
        let len = batch.run_len(envelopes.len());
        let mut runs: Vec<Run<'_, '_>> = envelopes
            .chunks(len)
            .zip(out.chunks_mut(len))
            .map(|(envelopes, out)| Run {
                envelopes,
                out,
                steps: Vec::new(),
                pending: Vec::new(),
                waits: false,
            })
            .collect();
        let s = Snapshot {
            channels: &self.channels,
            nodes: &self.nodes,
            verified: &self.verified,
            engines: &self.engines,
            policy: self.policy,
            now,
        };
        batch.for_each_mut_coarse(&mut runs, |r| r.stage(&s));
        let mut fresh = open_derived(batch, &s, &mut runs);
        let mut changed = HashSet::new();
        for r in &mut runs {
            self.settle_run(now, r, &mut fresh, &mut changed);
        }
        // The runs borrow `out`.
        drop(runs);
        out
    }

    /// The ordered step for the envelopes of a run (`changed`: the senders
    /// whose entries in the node table changed earlier in the batch).
    fn settle_run(
        &mut self,
        now: u64,
        r: &mut Run<'_, '_>,
        fresh: &mut FreshKeys,
        changed: &mut HashSet<u32>,
    ) {
        let mut pending = r.pending.iter_mut();
        for ((o, step), e) in r.out.iter_mut().zip(&r.steps).zip(r.envelopes) {
            let sender_changed = match (*step, o.as_mut()) {
                (Step::Pending, o) => match (pending.next(), o) {
                    (Some(p), Ok(d)) => self.settle_batched(now, d, p, e, fresh, changed),
                    _ => false,
                },
                // A quiet packet is not read unless there is something to do.
                (Step::Quiet { from }, _)
                    if self.replay.is_none()
                        && (changed.is_empty() || !changed.contains(&from)) =>
                {
                    false
                }
                (Step::Quiet { .. }, Ok(d)) => self.settle_quiet(now, d, fresh, changed),
                (Step::Quiet { .. } | Step::Skip, _) => false,
            };
            if sender_changed {
                if let Ok(d) = o {
                    changed.insert(d.from);
                }
            }
        }
    }

    /// The ordered step for a quiet packet of a batch ([`Step::Quiet`]): its
    /// replay window; or, when its sender's entry changed earlier in the
    /// batch, the ordered step in full (its pending part read off its `Data`
    /// again: no PKC payload, no signature checked ahead).
    fn settle_quiet(
        &mut self,
        now: u64,
        d: &mut Decoded,
        fresh: &mut FreshKeys,
        changed: &HashSet<u32>,
    ) -> bool {
        if !changed.contains(&d.from) {
            return self.finish(d, Writes::default(), None);
        }
        let mut pending = Pending {
            announced: d.data.as_ref().and_then(nodeinfo_key).flatten(),
            ..Pending::default()
        };
        unsettle(d, &mut pending);
        self.settle(now, d, &mut pending, fresh)
    }

    /// The ordered step for a packet of a batch (`envelope`: its bytes);
    /// returns whether the sender's entry in the node table changed.
    fn settle_batched(
        &mut self,
        now: u64,
        d: &mut Decoded,
        pending: &mut Pending,
        envelope: &[u8],
        fresh: &mut FreshKeys,
        changed: &HashSet<u32>,
    ) -> bool {
        if let Some(writes) = pending.settled.take() {
            if changed.is_empty() || !changed.contains(&d.from) {
                match self.book_pkc(now, d, pending, fresh) {
                    Booked::Kept => return self.finish(d, writes, pending.signature),
                    Booked::Replay => return false,
                    Booked::Stale => {}
                }
            }
            unsettle(d, pending);
        }
        if let Some(pkc) = pending.pkc.as_mut().filter(|p| p.ciphertext.is_empty()) {
            pkc.ciphertext = pkc_ciphertext(envelope);
        }
        self.settle(now, d, pending, fresh)
    }

    /// For a PKC message settled ahead: its key booked with the engine's
    /// cache and its replay window consulted, as opening it alone would.
    fn book_pkc(
        &mut self,
        now: u64,
        d: &mut Decoded,
        pending: &Pending,
        fresh: &mut FreshKeys,
    ) -> Booked {
        let Some(pkc) = &pending.pkc else {
            return Booked::Kept;
        };
        let (Some(a), Some(engine)) = (&pkc.ahead, self.engines.get_mut(pkc.engine)) else {
            return Booked::Stale;
        };
        if !engine.book_ahead(now, a.from, &a.key, fresh) {
            return Booked::Stale;
        }
        if let Err(e) = engine.accept_replay(d.from, d.id) {
            if let Some(mut data) = d.data.take() {
                data.payload.zeroize();
            }
            clear_pkc(d);
            d.error = Some(Undecoded::Failed(e));
            return Booked::Replay;
        }
        Booked::Kept
    }
}

/// What booking a PKC message settled ahead found.
enum Booked {
    /// Booked (or not a PKC message): the packet keeps what it was given.
    Kept,
    /// Booked, and the engine's replay window refused it: the packet is
    /// the failure opening it alone gives.
    Replay,
    /// Its key has left the cache since: nothing booked.
    Stale,
}

/// Takes back what settling ahead put in a packet, leaving it as the
/// stateless step left it (a PKC message's `Data` back with what opened
/// it).
fn unsettle(d: &mut Decoded, pending: &mut Pending) {
    let ahead = pending.pkc.as_mut().and_then(|p| p.ahead.as_mut());
    if let Some(a) = ahead.filter(|a| matches!(a.opened, Opened::InPacket)) {
        if let Some(data) = d.data.take() {
            a.opened = Opened::Data(Ok(data));
        }
        clear_pkc(d);
    }
    d.signature = Signature::Absent;
    d.verdict = None;
    d.key_event = None;
}

/// A PKC message as the stateless step leaves it: not decrypted, nothing
/// judged.
fn clear_pkc(d: &mut Decoded) {
    d.decryption = Decryption::None;
    d.identity = None;
    d.signature = Signature::Absent;
    d.verdict = None;
    d.key_event = None;
}

/// The keys of the distinct PKC senders no engine had cached, derived in
/// parallel, and their packets opened with them (and settled ahead) on the
/// threads.
fn open_derived(batch: &Batch, s: &Snapshot<'_>, runs: &mut [Run<'_, '_>]) -> FreshKeys {
    let mut missing = Missing::new();
    for r in runs.iter_mut().filter(|r| r.waits) {
        for (d, p, _) in r.packets() {
            let Some(pkc) = p.pkc.as_ref().filter(|pkc| s.waits(d, pkc)) else {
                continue;
            };
            if let Some((_, key)) = s.pkc_key(d, pkc) {
                let next = missing.len();
                missing.entry((pkc.engine, key)).or_insert(next);
            }
        }
    }
    if missing.is_empty() {
        return FreshKeys::default();
    }
    let mut pairs = vec![(0, [0; 32]); missing.len()];
    for (&pair, &i) in &missing {
        pairs[i] = pair;
    }
    let fresh = FreshKeys::derive(batch, &pairs, |e| s.engines[e].own());
    batch.for_each_mut_coarse(runs, |r| {
        if r.waits {
            for (d, p, _) in r.packets() {
                s.open_derived(d, p, &missing, &fresh);
            }
        }
    });
    fresh
}
