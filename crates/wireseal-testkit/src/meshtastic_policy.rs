//! Firmware 2.8 signature-policy scenarios (`vectors/meshtastic/policy.json`
//! and fresh ones from `interop/meshtastic/policy_vectors.py`): envelopes
//! signed by an independent encoder with, per policy, what the firmware's
//! rules make of each packet. The library's vector tests and the bench
//! crate's peer tests run the same checks from here.

use serde_json::Value;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::decoder::{Concern, Decoded, Decryption, SignaturePolicy, Verdict};
use wireseal::meshtastic::envelope::{self, PayloadVariant};
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey};
use wireseal::meshtastic::{ChannelKey, Decoder};

/// `v[k]` as bytes from hex (panics with the field's name).
pub fn hx(v: &Value, k: &str) -> Vec<u8> {
    let s = v[k]
        .as_str()
        .unwrap_or_else(|| panic!("missing string field {k}"));
    hex::decode(s).unwrap_or_else(|e| panic!("{k}: bad hex: {e}"))
}

/// `v[k]` as 32 bytes from hex.
pub fn arr32(v: &Value, k: &str) -> [u8; 32] {
    hx(v, k)
        .try_into()
        .unwrap_or_else(|_| panic!("{k}: not 32 bytes"))
}

/// The scenario's receiving decoder under `policy`: our node key and the
/// channel.
pub fn decoder(v: &Value, policy: SignaturePolicy) -> Decoder {
    let own = StaticSecret::from_bytes(&arr32(v, "our_private_hex")).unwrap();
    let node = u32::try_from(v["our_node"].as_u64().unwrap()).unwrap();
    let mut d = Decoder::new()
        .with_signature_policy(policy)
        .with_node(node, own)
        .unwrap();
    d.add_channel("LongFast", &hx(&v["channel"], "psk_hex"))
        .unwrap();
    d
}

/// The scenario's packets.
pub fn packets(v: &Value) -> &Vec<Value> {
    v["packets"].as_array().unwrap()
}

/// The scenario's envelopes, as the encoder wrote them.
pub fn envelopes(v: &Value) -> Vec<Vec<u8>> {
    packets(v).iter().map(|p| hx(p, "envelope")).collect()
}

/// The verdict the scenario names.
pub fn verdict(e: &Value) -> Verdict {
    let concern = |r: &Value| match r.as_str().unwrap() {
        "invalid_signature" => Concern::InvalidSignature,
        "malformed_signature" => Concern::MalformedSignature,
        "first_contact" => Concern::FirstContact,
        "unverifiable" => Concern::Unverifiable,
        "unsigned" => Concern::Unsigned,
        "downgrade" => Concern::Downgrade,
        "plain_admin" => Concern::PlainAdmin,
        other => panic!("unknown reason {other}"),
    };
    match e["policy"].as_str().unwrap() {
        "accept" => Verdict::Accept,
        "flag" => Verdict::Flag(concern(&e["policy_reason"])),
        "drop" => Verdict::Drop(concern(&e["policy_reason"])),
        other => panic!("unknown verdict {other}"),
    }
}

/// Decodes the scenario under every policy and checks each packet against
/// it; returns the decoders.
pub fn run_scenario(v: &Value, envs: &[Vec<u8>]) -> Vec<(SignaturePolicy, Decoder)> {
    SignaturePolicy::ALL
        .into_iter()
        .map(|policy| {
            let mut d = decoder(v, policy);
            for (p, env) in packets(v).iter().zip(envs) {
                let got = d.decode(0, env).unwrap();
                check(p, policy, &got);
            }
            (policy, d)
        })
        .collect()
}

/// One decoded packet against what the scenario says of it under `policy`.
pub fn check(p: &Value, policy: SignaturePolicy, got: &Decoded) {
    let what = format!("{} ({policy})", p["what"]);
    let e = &p["expect"][policy.as_str()];
    assert_eq!(got.error, None, "{what}");
    assert_eq!(got.signature.as_str(), e["signature"], "{what}");
    assert_eq!(got.verdict, Some(verdict(e)), "{what}");
    assert_eq!(u64::from(got.id), p["id"].as_u64().unwrap(), "{what}");
    assert_eq!(
        got.portnum().map(i64::from),
        p["portnum"].as_i64(),
        "{what}"
    );
    let identity = got.identity.map(|i| i.as_str());
    assert_eq!(identity, p["identity"].as_str(), "{what}");
    if got.channel_id == "PKI" {
        assert_eq!(got.decryption, Decryption::Pkc, "{what}");
    }
}

/// The scenario's envelopes with every signed packet signed again by this
/// crate's signer (a fresh, hedged signature), and those signatures as the
/// peer script's `verify` lines (`pub`, `from`, `id`, `portnum`, `payload`,
/// `sig`).
pub fn resigned(v: &Value) -> (Vec<Vec<u8>>, Vec<Value>) {
    let key = ChannelKey::from_psk(&hx(&v["channel"], "psk_hex")).unwrap();
    let mut signed = Vec::new();
    let envs = packets(v)
        .iter()
        .map(|p| {
            let bytes = hx(p, "envelope");
            let Some(signer) = p["signer"].as_str() else {
                return bytes;
            };
            let n = &v["nodes"][signer];
            let sk = StaticSecret::from_bytes(&arr32(n, "private_hex")).unwrap();
            let mut env = envelope::decode(&bytes).unwrap();
            let packet = env.packet.as_mut().unwrap();
            let Some(PayloadVariant::Encrypted(ct)) = &packet.payload_variant else {
                panic!("signed packets are channel packets")
            };
            let plain = key.open_to_vec(packet.from, packet.id, ct).unwrap();
            let mut data = envelope::decode_data(&plain).unwrap();
            let fields = SignedFields {
                from: packet.from,
                id: packet.id,
                portnum: u32::try_from(data.portnum).unwrap(),
                payload: &data.payload,
            };
            let sig = SigningKey::from_secret(&sk).sign(&fields);
            assert_ne!(
                sig.to_vec(),
                data.xeddsa_signature,
                "hedged: a new signature"
            );
            signed.push(serde_json::json!({
                "pub": n["public_hex"],
                "from": packet.from,
                "id": packet.id,
                "portnum": data.portnum,
                "payload": hex::encode(&data.payload),
                "sig": hex::encode(sig),
            }));
            data.xeddsa_signature = sig.to_vec();
            let ct = key
                .seal_to_vec(packet.from, packet.id, &envelope::encode_data(&data))
                .unwrap();
            packet.payload_variant = Some(PayloadVariant::Encrypted(ct));
            envelope::encode_to_vec(&env)
        })
        .collect();
    (envs, signed)
}
