//! Firmware 2.8 signatures, node identity and the three signature policies,
//! against `vectors/meshtastic/policy.json`: envelopes built and signed by
//! an independent encoder (python-xeddsa, the `meshtastic` protobufs,
//! `cryptography`, zlib's CRC-32) with, for every policy, what the firmware's
//! rules make of each packet, worked out by that script. The same packets
//! re-signed with this crate's signer give the same outcomes. (python-xeddsa
//! verifying those signatures, and fresh scenarios from the script, are peer
//! tests: the bench crate's `meshtastic_python_peers`.)

use crate::common;

use wireseal::batch::Batch;
use wireseal::meshtastic::decoder::{
    Concern, Decryption, Identity, Signature, SignaturePolicy, Verdict,
};
use wireseal::meshtastic::node_number;
use wireseal_testkit::meshtastic_policy::{decoder, envelopes, resigned, run_scenario};

#[test]
fn the_three_policies_decide_as_the_firmware() {
    let v = common::load_json("meshtastic/policy.json");
    let decoders = run_scenario(&v, &envelopes(&v));
    let node = |k: &str| v["nodes"][k]["node"].as_u64().unwrap() as u32;
    for (policy, d) in &decoders {
        let nodes = d.nodes();
        // The 2.8 node: pinned from its signed NodeInfo, a signer, its
        // number derived from its key.
        assert_eq!(
            nodes.identity(node("A")),
            Some(Identity::Matches),
            "{policy}"
        );
        assert!(nodes.is_signer(node("A")), "{policy}");
        // The node whose key does not hash to its number is never pinned.
        assert!(nodes.get(node("C")).is_none(), "{policy}");
        assert!(nodes.get(node("D")).is_none(), "{policy}");
        assert!(nodes.get(node("E")).is_none(), "{policy}");
        // The legacy node is pinned on first use, except under strict,
        // which drops its unsigned NodeInfo (then the direct message's key
        // is taken: the decoder's extension over the firmware).
        assert_eq!(
            nodes.identity(node("B")),
            Some(Identity::Legacy),
            "{policy}"
        );
        assert!(!nodes.is_signer(node("B")));
    }
}

#[test]
fn node_numbers_are_crc32_of_the_key() {
    let v = common::load_json("meshtastic/policy.json");
    for k in ["A", "D", "E"] {
        let n = &v["nodes"][k];
        assert_eq!(
            u64::from(node_number(&common::arr32(n, "public_hex"))),
            n["node"].as_u64().unwrap(),
            "{k}"
        );
    }
    for k in ["B", "C"] {
        let n = &v["nodes"][k];
        assert_ne!(
            u64::from(node_number(&common::arr32(n, "public_hex"))),
            n["node"].as_u64().unwrap()
        );
    }
}

#[test]
fn batch_decodes_as_one_at_a_time_under_every_policy() {
    let v = common::load_json("meshtastic/policy.json");
    let envs = envelopes(&v);
    let mut twice: Vec<&[u8]> = envs.iter().map(Vec::as_slice).collect();
    twice.extend(envs.iter().map(Vec::as_slice));
    for policy in SignaturePolicy::ALL {
        let mut one = decoder(&v, policy);
        let serial: Vec<_> = twice.iter().map(|e| one.decode(0, e)).collect();
        let mut many = decoder(&v, policy);
        let (a, b) = twice.split_at(7);
        let batch = Batch::with_threads(2);
        let mut got = many.decode_batch(0, &batch, a);
        got.extend(many.decode_batch(0, &batch, b));
        assert_eq!(got, serial, "{policy}");
        assert_eq!(many.nodes().len(), one.nodes().len());
    }
}

/// The scenario with every genuinely signed packet re-signed by this
/// crate; returns the new envelopes and what each new signature covers.
#[test]
fn our_signatures_give_the_same_outcomes() {
    let v = common::load_json("meshtastic/policy.json");
    let (envs, signed) = resigned(&v);
    assert_eq!(
        signed.len(),
        4,
        "D's text, A's NodeInfo and text, C's NodeInfo"
    );
    run_scenario(&v, &envs);
}

#[test]
fn policy_outcomes_never_hide_the_contents() {
    let v = common::load_json("meshtastic/policy.json");
    let mut d = decoder(&v, SignaturePolicy::Strict);
    for env in envelopes(&v) {
        let got = d.decode(0, &env).unwrap();
        assert!(got.data.is_some(), "a dropped packet is still reported");
        if got.signature == Signature::Absent && got.decryption != Decryption::Pkc {
            assert_eq!(got.verdict, Some(Verdict::Drop(Concern::Unsigned)));
        }
    }
}
