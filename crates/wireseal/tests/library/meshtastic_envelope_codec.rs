//! MQTT `ServiceEnvelope` decoding and encoding: unknown fields skipped,
//! re-encoding round trips, field and message size caps, malformed input.

use crate::meshtastic_envelope_support;

use meshtastic_envelope_support::{channel_packet, data, envelope, mesh, Pb, Pkt};
use wireseal::meshtastic::envelope::{self, PayloadVariant};
use wireseal::meshtastic::Error;

#[test]
fn envelope_decode_skips_unknown_fields_and_caps_sizes() {
    let m = mesh();
    let bytes = channel_packet(
        &m.long_fast,
        "LongFast",
        0x929,
        0x13b2d662,
        &data(1, b"hi", None),
    );
    let env = envelope::decode(&bytes).unwrap();
    let p = env.packet.as_ref().unwrap();
    assert_eq!(
        (p.from, p.to, p.id, p.hop_limit, p.hop_start, p.rx_time),
        (0x929, u32::MAX, 0x13b2d662, 3, 7, 1_700_000_000)
    );
    assert_eq!(
        (
            f32::from_bits(p.rx_snr_bits),
            p.rx_rssi,
            p.transport_mechanism
        ),
        (-5.25, -90, 2)
    );
    assert_eq!(
        (env.channel_id.as_str(), env.gateway_id.as_str()),
        ("LongFast", "!gw000001")
    );
    // Our encoder writes what the schema says: re-decoding gives the same message.
    let again = envelope::encode_to_vec(&env);
    assert_eq!(envelope::decode(&again).unwrap(), env);
    let mut small = [0u8; 8];
    assert_eq!(
        envelope::encode_into(&env, &mut small),
        Err(Error::BufferTooSmall {
            required: again.len()
        })
    );
    let mut buf = vec![0u8; envelope::encoded_len(&env)];
    assert_eq!(envelope::encode_into(&env, &mut buf), Ok(again.len()));
    assert_eq!(buf, again);

    let too_big = vec![0u8; 240];
    let e = envelope(
        &Pkt {
            from: 1,
            to: 2,
            id: 3,
            channel: 8,
            encrypted: Some(&too_big),
            decoded: None,
            public_key: None,
            pki: false,
        },
        "LongFast",
        "!gw",
    );
    assert_eq!(
        envelope::decode(&e),
        Err(Error::FieldLength {
            field: "encrypted",
            len: 240
        })
    );
    let mut m2 = Pb::default();
    m2.fixed32(1, 1).bytes(5, b"ct").bytes(16, &[7u8; 31]);
    let mut e2 = Pb::default();
    e2.bytes(1, &m2.done());
    assert_eq!(
        envelope::decode(&e2.done()),
        Err(Error::FieldLength {
            field: "public_key",
            len: 31
        })
    );
    let mut e3 = Pb::default();
    e3.bytes(2, b"LongFast");
    assert!(matches!(
        envelope::decode(&e3.done()),
        Err(Error::Malformed { .. })
    ));
    let mut e4 = Pb::default();
    e4.bytes(1, &m2.done()).bytes(3, &[b'g'; 65]);
    assert!(matches!(
        envelope::decode(&e4.done()),
        Err(Error::FieldLength {
            field: "gateway_id",
            ..
        })
    ));
    assert!(matches!(
        envelope::decode(&[0xff; 40]),
        Err(Error::Malformed { .. })
    ));
    assert!(matches!(
        envelope::decode(&vec![0u8; 5000]),
        Err(Error::TooLong { len: 5000, .. })
    ));
    assert!(
        envelope::decode(&envelope::encode_to_vec(&envelope::ServiceEnvelope {
            packet: Some(envelope::MeshPacket {
                payload_variant: Some(PayloadVariant::Encrypted(vec![])),
                ..Default::default()
            }),
            ..Default::default()
        }))
        .is_ok()
    );
}

/// A NaN in `rx_snr` (a fuzzer's find): the envelope still equals itself
/// after re-encoding, and the decoder's batch equals one at a time.
#[test]
fn a_nan_snr_compares_equal() {
    let crash: [u8; 31] = [
        72, 64, 10, 25, 13, 41, 9, 72, 0, 13, 41, 9, 0, 126, 21, 255, 255, 255, 255, 34, 0, 248, 7,
        116, 69, 255, 115, 255, 255, 48, 72,
    ];
    let env = envelope::decode(&crash).unwrap();
    let p = env.packet.as_ref().unwrap();
    assert!(f32::from_bits(p.rx_snr_bits).is_nan());
    assert_eq!(
        envelope::decode(&envelope::encode_to_vec(&env)).as_ref(),
        Ok(&env)
    );
    let mut one = wireseal::meshtastic::Decoder::new();
    let mut many = wireseal::meshtastic::Decoder::new();
    let single = one.decode(0, &crash);
    let batch = wireseal::batch::Batch::with_threads(2);
    assert_eq!(many.decode_batch(0, &batch, &[&crash[..]]), vec![single]);
}

/// The decoder refuses an envelope as `envelope::decode` does, with the
/// checks in the same order: a missing packet before an overlong id, an
/// overlong id before a wrong-length key.
#[test]
fn the_decoder_refuses_envelopes_as_decode_does() {
    use wireseal::batch::Batch;
    use wireseal::meshtastic::decoder::Decoder;
    let mut bad_key = Pb::default();
    bad_key.fixed32(1, 1).bytes(5, b"ct").bytes(16, &[7u8; 31]);
    let bad_key = bad_key.done();
    let mut no_packet = Pb::default();
    no_packet.bytes(2, &[b'c'; 65]);
    let mut long_id = Pb::default();
    long_id.bytes(1, &bad_key).bytes(2, &[b'c'; 65]);
    let mut key = Pb::default();
    key.bytes(1, &bad_key).bytes(3, b"!gw");
    let cases = [
        (
            no_packet.done(),
            Error::Malformed {
                what: "envelope without packet",
            },
        ),
        (
            long_id.done(),
            Error::FieldLength {
                field: "channel_id",
                len: 65,
            },
        ),
        (
            key.done(),
            Error::FieldLength {
                field: "public_key",
                len: 31,
            },
        ),
    ];
    let mut decoder = Decoder::new();
    for (bytes, want) in &cases {
        assert_eq!(envelope::decode(bytes).as_ref().err(), Some(want));
        assert_eq!(decoder.decode(0, bytes).err().as_ref(), Some(want));
    }
    let all: Vec<&[u8]> = cases.iter().map(|(b, _)| b.as_slice()).collect();
    let batch = decoder.decode_batch(0, &Batch::with_threads(1), &all);
    for (got, (_, want)) in batch.iter().zip(&cases) {
        assert_eq!(got.as_ref().err(), Some(want));
    }
}
