//! LDK (`lightning` crate) as the Sphinx baseline: `create_payment_onion` and
//! `peel_payment_onion`, its public API for payment onions.

use lightning::bitcoin::secp256k1::{PublicKey, Secp256k1, SecretKey};
use lightning::ln::channelmanager::RecipientOnionFields;
use lightning::ln::msgs::{OnionPacket, UpdateAddHTLC};
use lightning::ln::onion_payment::peel_payment_onion;
use lightning::ln::onion_utils::create_payment_onion;
use lightning::ln::types::ChannelId;
use lightning::routing::router::{Path, RouteHop};
use lightning::sign::{KeysManager, NodeSigner, Recipient};
use lightning::types::features::{ChannelFeatures, NodeFeatures};
use lightning::types::payment::{PaymentHash, PaymentSecret};
use lightning::util::logger::{Logger, Record};

/// Block height used for every onion.
pub const HEIGHT: u32 = 800_000;

struct NoLog;
impl Logger for NoLog {
    fn log(&self, _: Record) {}
}

/// An LDK node (its `KeysManager`) plus a secp256k1 context.
pub struct Ldk {
    secp: Secp256k1<lightning::bitcoin::secp256k1::All>,
    keys: KeysManager,
}

impl Ldk {
    /// A node whose keys derive from `seed`.
    pub fn new(seed: [u8; 32]) -> Self {
        Self {
            secp: Secp256k1::new(),
            keys: KeysManager::new(&seed, 1, 0, true),
        }
    }

    /// This node's id (compressed).
    pub fn node_id(&self) -> [u8; 33] {
        self.keys
            .get_node_id(Recipient::Node)
            .expect("node id")
            .serialize()
    }

    /// The route along `hops` (compressed node ids), parsed once so that a
    /// timed build does no key parsing (as wireseal's build gets its keys
    /// parsed in advance).
    pub fn path(hops: &[[u8; 33]]) -> Path {
        let hops = hops
            .iter()
            .enumerate()
            .map(|(i, pk)| RouteHop {
                pubkey: PublicKey::from_slice(pk).expect("valid key"),
                node_features: NodeFeatures::empty(),
                short_channel_id: 1000 + i as u64,
                channel_features: ChannelFeatures::empty(),
                fee_msat: if i + 1 == hops.len() { 100_000 } else { 10 },
                cltv_expiry_delta: 72,
                maybe_announced_channel: true,
            })
            .collect();
        Path {
            hops,
            blinded_tail: None,
        }
    }

    /// A session key, parsed once.
    pub fn session_key(session: &[u8; 32]) -> SecretKey {
        SecretKey::from_slice(session).expect("valid key")
    }

    /// Builds a payment onion along a parsed `path` (the timed part: LDK's
    /// `create_payment_onion` only); returns the packet, the first hop's
    /// amount and CLTV expiry.
    pub fn create(
        &self,
        session: &SecretKey,
        path: &Path,
        payment_hash: [u8; 32],
        prng_seed: [u8; 32],
    ) -> (OnionPacket, u64, u32) {
        create_payment_onion(
            &self.secp,
            path,
            session,
            100_000,
            &RecipientOnionFields::secret_only(PaymentSecret([9; 32])),
            HEIGHT,
            &PaymentHash(payment_hash),
            &None,
            None,
            prng_seed,
        )
        .expect("LDK builds the onion")
    }

    /// Builds a payment onion along `hops` (compressed node ids); returns the
    /// serialized onion, the first hop's amount and CLTV expiry.
    pub fn build(
        &self,
        session: &[u8; 32],
        hops: &[[u8; 33]],
        payment_hash: [u8; 32],
        prng_seed: [u8; 32],
    ) -> (Vec<u8>, u64, u32) {
        let (pkt, amt, cltv) = self.create(
            &Self::session_key(session),
            &Self::path(hops),
            payment_hash,
            prng_seed,
        );
        (serialize(&pkt), amt, cltv)
    }

    /// Peels a 1366-byte onion addressed to this node. Returns `Some(next
    /// onion)` for a forward, `None` for a receive; `Err` when LDK rejects it.
    pub fn peel(
        &self,
        onion: &[u8],
        payment_hash: [u8; 32],
        amount_msat: u64,
        cltv_expiry: u32,
    ) -> Result<Option<Vec<u8>>, String> {
        let mut hop_data = [0u8; 1300];
        hop_data.copy_from_slice(&onion[34..1334]);
        let mut hmac = [0u8; 32];
        hmac.copy_from_slice(&onion[1334..1366]);
        let msg = UpdateAddHTLC {
            channel_id: ChannelId([0; 32]),
            htlc_id: 0,
            amount_msat,
            payment_hash: PaymentHash(payment_hash),
            cltv_expiry,
            skimmed_fee_msat: None,
            onion_routing_packet: OnionPacket {
                version: onion[0],
                public_key: PublicKey::from_slice(&onion[1..34]),
                hop_data,
                hmac,
            },
            blinding_point: None,
            hold_htlc: None,
        };
        let info = peel_payment_onion(&msg, &self.keys, &NoLog, &self.secp, HEIGHT, false)
            .map_err(|e| format!("{:?}: {}", e.reason, e.msg))?;
        Ok(match info.routing {
            lightning::ln::channelmanager::PendingHTLCRouting::Forward { onion_packet, .. } => {
                onion_packet.public_key.map_err(|e| e.to_string())?;
                Some(serialize(&onion_packet))
            }
            _ => None,
        })
    }
}

/// The 1366 bytes of an LDK onion packet (its public key must be valid).
pub fn serialize(pkt: &OnionPacket) -> Vec<u8> {
    let mut out = Vec::with_capacity(1366);
    out.push(pkt.version);
    out.extend_from_slice(&pkt.public_key.expect("valid key").serialize());
    out.extend_from_slice(&pkt.hop_data);
    out.extend_from_slice(&pkt.hmac);
    out
}

#[cfg(test)]
mod tests {
    //! Interop with LDK through its public onion API.
    use super::*;
    use wireseal::keys::{PrivateKey as WsKey, PublicKey as WsPub};
    use wireseal::sphinx::{self, keys, tlv, Hop, Onion, Padding, Peeled, Route};

    fn tu(v: u64) -> Vec<u8> {
        let b = v.to_be_bytes();
        b[b.iter().position(|x| *x != 0).unwrap_or(8)..].to_vec()
    }

    #[test]
    fn ldk_onion_peels_in_wireseal_and_rebuilds_byte_for_byte() {
        let ldk = Ldk::new([1; 32]);
        let keys_: Vec<WsKey> = (0..5)
            .map(|i| WsKey::from_bytes(&[0x70 + i; 32]).unwrap())
            .collect();
        let pubs: Vec<[u8; 33]> = keys_.iter().map(|k| k.public_key().serialize()).collect();
        let session = [0x21u8; 32];
        // LDK pads with ChaCha20(prng_seed): the BOLT #4 `pad` key makes it deterministic.
        let pad = keys::derive(keys::KeyKind::Pad, &session);
        let (onion, _, _) = ldk.build(&session, &pubs, [5; 32], *pad.expose());
        let mut payloads = Vec::new();
        let mut cur = Onion::parse(&onion).unwrap();
        for (i, k) in keys_.iter().enumerate() {
            match cur.peel(k, &[5; 32]).unwrap() {
                Peeled::Forward { payload, next, .. } => {
                    let scid = tlv::find(&payload, 6).unwrap().unwrap();
                    assert_eq!(scid, &(1000 + i as u64 + 1).to_be_bytes()[..]);
                    payloads.push(payload);
                    cur = next;
                }
                Peeled::Final { payload, .. } => {
                    assert_eq!(i, 4);
                    let pd = tlv::find(&payload, 8).unwrap().unwrap();
                    assert_eq!(&pd[..32], &[9u8; 32]);
                    assert_eq!(tlv::find(&payload, 2).unwrap().unwrap(), &tu(100_000)[..]);
                    payloads.push(payload);
                    break;
                }
            }
        }
        let hops: Vec<Hop> = keys_
            .iter()
            .zip(&payloads)
            .map(|(k, p)| Hop {
                pubkey: k.public_key(),
                payload: p,
            })
            .collect();
        let route = Route::new(&hops, &[5; 32]).with_padding(Padding::Deterministic);
        let (mine, _) =
            sphinx::build_to_vec(&WsKey::from_bytes(&session).unwrap(), &route).unwrap();
        assert_eq!(hex::encode(mine), hex::encode(&onion));
    }

    #[test]
    fn wireseal_onions_peel_in_ldk() {
        let ldk = Ldk::new([2; 32]);
        let ldk_pub = WsPub::from_slice(&ldk.node_id()).unwrap();
        let next = WsKey::from_bytes(&[0x77; 32]).unwrap();
        let ph = [6u8; 32];
        let cltv_out = HEIGHT + 200;
        let mut fwd = Vec::new();
        tlv::push(&mut fwd, 2, &tu(50_000));
        tlv::push(&mut fwd, 4, &tu(cltv_out as u64));
        tlv::push(&mut fwd, 6, &77u64.to_be_bytes());
        let mut fin = Vec::new();
        tlv::push(&mut fin, 2, &tu(50_000));
        tlv::push(&mut fin, 4, &tu(cltv_out as u64));
        let mut pd = vec![9u8; 32];
        pd.extend_from_slice(&tu(50_000));
        tlv::push(&mut fin, 8, &pd);
        let session = WsKey::random();
        // LDK forwards: its next onion peels at our final hop.
        let hops = [
            Hop {
                pubkey: ldk_pub,
                payload: &fwd,
            },
            Hop {
                pubkey: next.public_key(),
                payload: &fin,
            },
        ];
        let (bytes, _) = sphinx::build_to_vec(&session, &Route::new(&hops, &ph)).unwrap();
        let nxt = ldk
            .peel(&bytes, ph, 50_010, cltv_out + 72)
            .unwrap()
            .expect("forward");
        match Onion::parse(&nxt).unwrap().peel(&next, &ph).unwrap() {
            Peeled::Final { payload, .. } => assert_eq!(payload, fin),
            _ => panic!("final expected"),
        }
        // LDK receives a one-hop onion from us.
        let hops = [Hop {
            pubkey: ldk_pub,
            payload: &fin,
        }];
        let (mut bytes, _) = sphinx::build_to_vec(&session, &Route::new(&hops, &ph)).unwrap();
        assert_eq!(ldk.peel(&bytes, ph, 50_000, cltv_out).unwrap(), None);
        // Tampered: LDK refuses.
        bytes[600] ^= 1;
        assert!(ldk.peel(&bytes, ph, 50_000, cltv_out).is_err());
    }
}
