"""Firmware 2.8 identity and signature policies through
wireseal.meshtastic.EnvelopeDecoder, on vectors/meshtastic/policy.json
(envelopes built and signed by interop/meshtastic/policy_vectors.py with
python-xeddsa; what each policy makes of each packet is worked out there from
the firmware's rules), and node numbers against zlib.crc32."""

import json
import zlib

import pytest

import wireseal
from wireseal import meshtastic as mt
from conftest import hx, load_json

V = load_json("meshtastic/policy.json")


def decoder(policy):
    d = mt.EnvelopeDecoder(signature_policy=policy)
    d.add_channel("LongFast", hx(V["channel"]["psk_hex"]))
    d.set_node(V["our_node"], hx(V["our_private_hex"]))
    return d


@pytest.mark.parametrize("policy", ["compatible", "balanced", "strict"])
def test_policies_decide_as_the_firmware(policy):
    d = decoder(policy)
    assert d.signature_policy == policy
    for p in V["packets"]:
        got = d.decode(0, hx(p["envelope"]))
        want = p["expect"][policy]
        assert got["error"] is None, p["what"]
        assert (got["signature"], got["policy"], got["policy_reason"]) == (
            want["signature"], want["policy"], want["policy_reason"]), p["what"]
        assert got["identity"] == p["identity"], p["what"]
    assert d.node_identity(V["nodes"]["A"]["node"]) == "matches"
    assert d.node_identity(V["nodes"]["C"]["node"]) is None


def test_records_match_the_dicts_and_name_controls():
    d, r = decoder("balanced"), decoder("balanced")
    for p in V["packets"]:
        got = d.decode(0, hx(p["envelope"]))
        rec = json.loads(r.decode_record(0, hx(p["envelope"])))
        assert rec["signature"] == got["signature"]
        assert rec["policy"] == got["policy"]
        assert rec.get("policy_reason") == got["policy_reason"]
        assert rec.get("identity") == got["identity"]
        assert rec.get("control") == got["control"]
        if p["portnum"] == 12:
            assert rec["control"] == "key_verification"
            assert rec["app"]["type"] == "key_verification"
        if p["portnum"] == 6:
            assert rec["control"] == "admin"


def test_node_numbers_are_crc32():
    for n in V["nodes"].values():
        pub = hx(n["public_hex"])
        assert mt.node_number(pub) == zlib.crc32(pub)
    with pytest.raises(wireseal.InvalidKeyError):
        mt.node_number(b"short")


def test_unknown_policy_names():
    with pytest.raises(wireseal.InvalidInputError) as e:
        mt.EnvelopeDecoder(signature_policy="Strict")
    assert "compatible, balanced, strict" in str(e.value)
