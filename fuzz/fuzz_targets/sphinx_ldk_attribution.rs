//! Differential against LDK (`lightning` 0.2.7): attribution data of a
//! failure, decoded by LDK's origin and by wireseal's.
//!
//! LDK's node 0 sends an HTLC over its peer and wireseal's hops (2 to 20
//! hops in all; LDK's `ChannelManager`s of the bench,
//! `crates/wireseal-bench/src/sphinx/ldk/`). The failure that comes back is
//! what the input describes: the failing hop, its `temporary_node_failure`
//! data, each hop's hold time and whether it wraps with attribution data,
//! without it, or garbles the packet, and bytes XORed into the attribution
//! data, or none at all. LDK's origin and `failure::unwrap_attributed` must
//! report the same hold times and the same failing node (or none). LDK's
//! nodes draw their randomness (the session key among it) from a stream
//! reseeded from each input, always a valid secret key, so an input replays
//! alone as it ran.
//!
//! Each input is a whole payment through LDK's nodes (onion, commitment
//! dance, failure), about 40 times the cost of an onion peel, so this is its
//! own target beside `sphinx_ldk_differential`. A new network replaces the
//! old one every [`PAYMENTS_PER_NET`] payments, which bounds its memory.
//!
//! It needs LDK's real ChaCha20: built with `cfg(fuzzing)` (a `cargo fuzz`
//! run without `--no-cfg-fuzzing`), LDK's is a stub that leaves bytes as they
//! are (its onions stay unencrypted, its origin removes no layer), so no
//! input is compared, and the target says so once on stderr.
#![no_main]
use libfuzzer_sys::fuzz_target;
use lightning::sign::{EntropySource, KeysManager};
use std::cell::RefCell;
use std::sync::OnceLock;
use wireseal::keys::PrivateKey;
use wireseal::sphinx::{failure, AttributionData, HopSecrets, Onion, Peeled};

/// Whether LDK was built with its ChaCha20 stub: real ChaCha20 never gives
/// 32 zero bytes from a key; the stub does.
fn ldk_stubbed() -> bool {
    static S: OnceLock<bool> = OnceLock::new();
    *S.get_or_init(|| {
        let stubbed = KeysManager::new(&[1; 32], 1, 0, true).get_secure_random_bytes() == [0; 32];
        if stubbed {
            eprintln!(
                "sphinx_ldk_attribution: LDK was built with cfg(fuzzing) (its ChaCha20 is a stub): \
                 nothing to compare; build with --no-cfg-fuzzing"
            );
        }
        stubbed
    })
}

#[path = "../../crates/wireseal-bench/src/sphinx/ldk/net.rs"]
#[allow(dead_code)]
mod sphinx_ldk_net;
// `node`: the name `net.rs` uses for its sibling.
#[path = "../../crates/wireseal-bench/src/sphinx/ldk/node.rs"]
#[allow(dead_code)]
mod node;

/// Payments a network carries before the target builds a new one: LDK's
/// nodes keep per-commitment state for as long as a channel lives, so one
/// network for every input would grow without bound.
const PAYMENTS_PER_NET: u32 = 2048;

thread_local! {
    static NET: RefCell<Option<(sphinx_ldk_net::Net, u32)>> = const { RefCell::new(None) };
}

/// The hops after LDK's node 1: wireseal's keys.
fn fake_keys() -> &'static [PrivateKey] {
    static K: OnceLock<Vec<PrivateKey>> = OnceLock::new();
    K.get_or_init(|| {
        (0..19u8)
            .map(|i| PrivateKey::from_bytes(&[0x70 + i; 32]).unwrap())
            .collect()
    })
}

/// Reads the input, then zeros.
struct Bytes<'a>(&'a [u8]);
impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.0 = rest;
        b
    }
}

/// The route's secrets, from peeling LDK's onion hop by hop.
fn route_secrets(onion: &[u8], hash: &[u8], node1: &PrivateKey, fake: &[PrivateKey]) -> HopSecrets {
    let mut cur = Some(Onion::parse(onion).unwrap());
    let mut secrets = Vec::new();
    for k in std::iter::once(node1).chain(fake) {
        match cur.take().unwrap().peel(k, hash).unwrap() {
            Peeled::Forward {
                next,
                shared_secret,
                ..
            } => {
                secrets.push(shared_secret);
                cur = Some(next);
            }
            Peeled::Final { shared_secret, .. } => secrets.push(shared_secret),
        }
    }
    HopSecrets::new(secrets)
}

/// The attribution part: both origins decode one return trip.
fn attribution(input: &[u8]) {
    let mut b = Bytes(input);
    let n = 2 + b.u8() as usize % 19;
    let failing = 1 + b.u8() as usize % n;
    let extra = b.u8() as usize % 24;
    let mut message = vec![0x20, 0x02];
    message.extend((0..extra).map(|_| b.u8()));
    let roles: Vec<u8> = (0..n).map(|_| b.u8()).collect();
    let xor_at = u16::from_le_bytes([b.u8(), b.u8()]) as usize % 920;
    let xor = b.u8();
    let drop_attr = b.u8() == 0xff;
    let fake = &fake_keys()[..n - 1];
    let fake_pubs: Vec<[u8; 33]> = fake.iter().map(|k| k.public_key().serialize()).collect();
    NET.with(|net| {
        let mut net = net.borrow_mut();
        if net
            .as_ref()
            .is_none_or(|(_, used)| *used >= PAYMENTS_PER_NET)
        {
            *net = Some((sphinx_ldk_net::Net::new(), 0));
        }
        let (net, used) = net.as_mut().unwrap();
        *used += 1;
        net.reseed(input);
        let (secret1, _) = net.forwarder();
        let node1 = PrivateKey::from_bytes(&secret1).unwrap();
        let mut ours = None;
        let outcome = net.origin_decode_events(&fake_pubs, |onion, hash| {
            let s = route_secrets(onion, hash, &node1, fake);
            let ss = |h: usize| s.hop(h).unwrap();
            let role = |h: usize| roles[h - 1] % 6;
            let hold = |h: usize| u64::from(roles[h - 1]) * 977;
            let (mut p, mut a) = if role(failing) == 0 {
                (failure::create_to_vec(ss(failing), &message).unwrap(), None)
            } else {
                let (p, a) =
                    failure::create_attributed_to_vec(ss(failing), &message, hold(failing))
                        .unwrap();
                (p, Some(a))
            };
            if role(failing) == 1 {
                p[33] ^= 0x40;
            }
            for h in (1..failing).rev() {
                match role(h) {
                    0 => {
                        failure::wrap_in_place(ss(h), &mut p).unwrap();
                        a = None;
                    }
                    r => {
                        let block = a.get_or_insert_with(AttributionData::new);
                        failure::wrap_attributed_in_place(ss(h), hold(h), &mut p, block).unwrap();
                        if r == 1 {
                            p[34 + h] ^= 0x08;
                        }
                    }
                }
            }
            let mut a = a.map(|a| a.as_bytes().to_vec());
            if drop_attr {
                a = None;
            }
            if let Some(a) = a.as_mut() {
                a[xor_at] ^= xor;
            }
            ours = Some(failure::unwrap_attributed(&s, &p, a.as_deref()).unwrap());
            Some((p, a))
        });
        let ours = ours.unwrap();
        let theirs_hold: Vec<u64> = outcome
            .hold_times
            .iter()
            .map(|t| u64::from(*t) * 100)
            .collect();
        assert_eq!(ours.hold_times_ms, theirs_hold, "hold times differ");
        let ldk_node = outcome.failing_node.map(|k| k.serialize());
        let our_node = ours.hop.map(|h| {
            if h == 1 {
                net.forwarder().1
            } else {
                fake_pubs[h - 2]
            }
        });
        assert_eq!(our_node, ldk_node, "failing node differs");
    });
}

fuzz_target!(|data: &[u8]| {
    if !ldk_stubbed() {
        attribution(data);
    }
});
