//! Any bytes as an MQTT `ServiceEnvelope` (the gateway's input):
//! `envelope::decode` never panics, refuses what `check` refuses, and what it
//! accepts re-encodes (`encode_to_vec`, `encode_into` with an exact buffer)
//! to bytes that decode to the same envelope; `decode_data` / `decode_user` /
//! `decode_packet` round-trip what they accept, and `App::decode` never
//! panics. The whole `Decoder` (channel trial decryption, PKC to our node,
//! node table, signatures and the strict signature policy, replay window)
//! never panics, fails exactly when `envelope::decode` fails, sees the
//! second copy of a decrypted packet as a replay, and `decode_batch` (called
//! twice, the second time with the cache warm) equals one at a time.
//! `envelope::decode`, `decode_packet`, `decode_data` and `decode_user`
//! give what `prost`'s generated decoders give (the library reads plain
//! messages itself and leaves the rest to `prost`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use prost::Message;
use std::sync::OnceLock;
use wireseal::batch::Batch;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::app::App;
use wireseal::meshtastic::decoder::NodeTable;
use wireseal::meshtastic::envelope::{
    self, Data, MeshPacket, PayloadVariant, ServiceEnvelope, User,
};
use wireseal::meshtastic::{Decoder, Error, PkcEngine, ReplayWindow, SignaturePolicy};

fn batch() -> &'static Batch {
    static B: OnceLock<Batch> = OnceLock::new();
    B.get_or_init(|| Batch::with_threads(2))
}

fn decoder() -> Decoder {
    // Small tables: the defaults (thousands of peers and nodes) cost more to
    // build and drop than a run.
    let own = StaticSecret::from_bytes(&[0x48; 32]).unwrap();
    let mut d = Decoder::new()
        .with_node_table(NodeTable::with_capacity(16))
        .with_node_engine(0x7a6d_648c, PkcEngine::with_capacity(own, 4).unwrap())
        .with_replay_window(ReplayWindow::new(8, 64))
        .with_signature_policy(SignaturePolicy::Strict);
    d.add_channel("LongFast", &[1]).unwrap();
    d.add_channel("Secret", &[0x5a; 32]).unwrap();
    d
}

/// The library's decoders against `prost`'s on the same bytes.
fn same_as_prost(data: &[u8]) {
    let small = data.len() <= envelope::MAX_ENVELOPE_LEN;
    let prost_env = ServiceEnvelope::decode(data)
        .ok()
        .filter(|e| small && envelope::check(e).is_ok());
    assert_eq!(envelope::decode(data).ok(), prost_env, "envelope");
    let prost_packet = MeshPacket::decode(data).ok().filter(|p| {
        let env = ServiceEnvelope {
            packet: Some(p.clone()),
            ..Default::default()
        };
        small && envelope::check(&env).is_ok()
    });
    assert_eq!(envelope::decode_packet(data).ok(), prost_packet, "packet");
    let prost_data = Data::decode(data)
        .ok()
        .filter(|d| data.len() <= envelope::MAX_DATA_LEN && d.portnum != 0);
    assert_eq!(envelope::decode_data(data).ok(), prost_data, "data");
    assert_eq!(
        envelope::decode_user(data).ok(),
        User::decode(data).ok(),
        "user"
    );
}

fuzz_target!(|data: &[u8]| {
    same_as_prost(data);
    let env = envelope::decode(data);
    if let Ok(env) = &env {
        envelope::check(env).unwrap();
        let bytes = envelope::encode_to_vec(env);
        assert_eq!(envelope::encoded_len(env), bytes.len());
        let mut out = vec![0u8; bytes.len()];
        assert_eq!(envelope::encode_into(env, &mut out), Ok(bytes.len()));
        assert_eq!(out, bytes);
        if let Some(short) = bytes.len().checked_sub(1) {
            let mut out = vec![0u8; short];
            assert!(matches!(
                envelope::encode_into(env, &mut out),
                Err(Error::BufferTooSmall { .. })
            ));
        }
        assert_eq!(
            envelope::decode(&bytes).as_ref(),
            Ok(env),
            "re-encoding changed it"
        );
        if let Some(PayloadVariant::Decoded(d)) =
            env.packet.as_ref().and_then(|p| p.payload_variant.as_ref())
        {
            let again = envelope::decode_data(&envelope::encode_data(d));
            assert!(d.portnum == 0 || again.as_ref() == Ok(d));
        }
    }
    if let Ok(d) = envelope::decode_data(data) {
        let _ = App::decode(d.portnum, &d.payload);
        assert_eq!(envelope::decode_data(&envelope::encode_data(&d)), Ok(d));
    }
    if let Ok(p) = envelope::decode_packet(data) {
        let wrapped = envelope::ServiceEnvelope {
            packet: Some(p.clone()),
            ..Default::default()
        };
        let again = envelope::decode(&envelope::encode_to_vec(&wrapped)).map(|e| e.packet);
        assert_eq!(again, Ok(Some(p)), "a MeshPacket does not round-trip");
    }
    if let Ok(u) = envelope::decode_user(data) {
        assert_eq!(envelope::decode_user(&envelope::encode_user(&u)), Ok(u));
    }

    let mut one = decoder();
    let first = one.decode(0, data);
    let second = one.decode(0, data);
    assert_eq!(
        first.is_ok(),
        env.is_ok(),
        "Decoder and envelope::decode disagree"
    );
    if let (Ok(a), Ok(b)) = (&first, &second) {
        if a.data.is_some() && a.error.is_none() {
            assert!(b.error.is_some(), "a second copy was not a replay");
        }
    }
    let mut many = decoder();
    let batched = many.decode_batch(0, batch(), &[data, data]);
    assert_eq!(
        batched,
        vec![first, second],
        "decode_batch differs from one at a time"
    );
    // A later batch finds a PKC sender's key cached and opens ahead.
    let third = one.decode(0, data);
    assert_eq!(
        many.decode_batch(0, batch(), &[data]),
        vec![third],
        "a second decode_batch differs from one at a time"
    );
});
