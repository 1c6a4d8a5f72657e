"""wireseal.sphinx return trips beyond the attribution vectors: the final
node's fulfillment_payload (BOLT #4's padding examples and "Returning
success" vectors with a payload), hops inside a blinded path (no attribution
data; the origin reads it up to the introduction node), return packets over
32 KiB (truncated), and the update_fail_malformed_htlc reply of a final node
that cannot peel (its hash checked with hashlib). The same cases, numbers
and field names as the command line's tests."""

import hashlib

from wireseal import sphinx
from conftest import VECTORS, hx, load_json

ONION = load_json("bolt04/onion-test.json")
ERROR = load_json("bolt04/onion-error-test.json")
ATTR = load_json("bolt04/attributable-error-test.json")
PADDING = load_json("bolt04/fulfillment-payload-padding-test.json")
BLINDED = load_json("bolt04/blinded-payment-onion-test.json")


def record(t, v):
    """A TLV record written from BOLT #1 (BigSize type and length)."""

    def bigsize(n):
        if n < 0xFD:
            return bytes([n])
        if n <= 0xFFFF:
            return b"\xfd" + n.to_bytes(2, "big")
        if n <= 0xFFFFFFFF:
            return b"\xfe" + n.to_bytes(4, "big")
        return b"\xff" + n.to_bytes(8, "big")

    return bigsize(t) + bigsize(len(v)) + v


def test_padding_examples():
    assert len(PADDING["tests"]) == 8
    for t in PADDING["tests"]:
        records = b"".join(record(r["type"], hx(r["value"])) for r in t["input_tlvs"])
        assert sphinx.fulfillment_padded(records) == hx(t["encoded_tlv_stream"]), t["comment"]


def payload_vectors():
    """[(payload, attribution data)] per node, from the final node 4 back."""
    text = (VECTORS / "bolt04" / "fulfillment-payload-attribution-vectors.txt").read_text()
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return [(hx(lines[i + 1]), hx(lines[i + 3])) for i in range(0, len(lines), 4)]


def route():
    secrets = [hx(h["hop_shared_secret"]) for h in ERROR["generate"]["hops"]]
    hold_ms = [t * 100 for t in reversed(ATTR["htlc_hold_time"])]
    return secrets, hold_ms


def test_fulfillment_payload_vectors():
    secrets, hold_ms = route()
    steps = payload_vectors()
    records = record(65537, b"\x07\x08\x09")
    f = sphinx.fulfill_create(secrets[4], hold_time_ms=hold_ms[4], records=records)
    assert len(f.payload) == 272
    assert (f.payload, f.attribution_data) == steps[0]
    for node in (3, 2, 1, 0):
        f = sphinx.fulfill_relay(
            secrets[node], payload=f.payload, attribution_data=f.attribution_data, hold_time_ms=hold_ms[node]
        )
        assert (f.payload, f.attribution_data) == steps[4 - node], node
    h = sphinx.fulfill_unwrap(secrets, f.attribution_data, payload=f.payload)
    assert (h.hold_times_ms, h.attribution, h.blamed_hop) == ([500, 400, 300, 200, 100], "valid", None)
    assert (h.payload_status, h.payload, h.payload_error) == ("valid", records, None)
    changed = bytearray(f.payload)
    changed[7] ^= 1
    h = sphinx.fulfill_unwrap(secrets, f.attribution_data, payload=bytes(changed))
    assert (h.attribution, h.blamed_hop, h.payload_status, h.payload) == ("broken", 1, "ignored", None)
    assert "authentication failed" in h.payload_error
    # No payload: the vectors without one, as before.
    assert sphinx.fulfill_unwrap(secrets, f.attribution_data).payload_status == "absent"


def blinded_route():
    """The blinded payment vector: each hop's shared secret (Carol, Dave and
    Eve peel with the blinded key their path key gives) and the route the
    sender encrypted to."""
    ad = hx(BLINDED["generate"]["associated_data"])
    dec = BLINDED["decrypt"]["hops"]
    secrets = []
    for i, h in enumerate(dec):
        key = hx(h["node_privkey"])
        if i >= 2:
            key = sphinx.unblind(key, hx(dec[i - 1]["next_path_key"])).blinded_private_key
        secrets.append(sphinx.peel(key, hx(h["onion"]), ad).shared_secret)
    return secrets


def test_blinded_hops_add_no_attribution_and_the_origin_reads_to_bob():
    s = blinded_route()
    # Dave (inside the blinded path) fails; Carol passes it back; Bob (the
    # introduction node, no path key with his HTLC) and Alice add theirs.
    f = sphinx.failure_create(s[3], b"\x20\x02", hold_time_ms=900, blinded=True)
    assert f.attribution_data is None
    f = sphinx.failure_wrap(s[2], f.packet, hold_time_ms=800, blinded=True)
    assert f.attribution_data is None
    f = sphinx.failure_wrap(s[1], f.packet, hold_time_ms=700)
    f = sphinx.failure_wrap(s[0], f.packet, attribution_data=f.attribution_data, hold_time_ms=600)
    u = sphinx.failure_unwrap(s, f.packet, f.attribution_data, blinded_hops=3)
    assert (u.hop, u.message, u.hold_times_ms, u.attribution, u.blamed_hop) == (4, b"\x20\x02", [600, 700], "valid", None)
    u = sphinx.failure_unwrap(s, f.packet, f.attribution_data)
    assert (u.attribution, u.blamed_hop) == ("broken", 3)
    # A fulfill with a payload: the blinded hops obfuscate it, add no data.
    r = sphinx.fulfill_create(s[4], hold_time_ms=1000, records=b"\x03\x01\x2a", blinded=True)
    assert r.attribution_data is None
    for i, blinded in ((3, True), (2, True), (1, False), (0, False)):
        r = sphinx.fulfill_relay(
            s[i], payload=r.payload, attribution_data=r.attribution_data, hold_time_ms=100 * (i + 1), blinded=blinded
        )
    h = sphinx.fulfill_unwrap(s, r.attribution_data, payload=r.payload, blinded_hops=3)
    assert (h.hold_times_ms, h.attribution, h.blamed_hop) == ([100, 200], "valid", None)
    assert (h.payload_status, h.payload) == ("valid", b"\x03\x01\x2a")


def test_return_packets_over_32_kib_are_truncated():
    secrets, _ = route()
    long = bytes(range(256)) * 129
    f = sphinx.failure_wrap(secrets[1], long)
    assert len(f.packet) == sphinx.MAX_RETURN_LEN == 32768
    same = sphinx.failure_wrap(secrets[1], long[:32768])
    assert (f.packet, f.attribution_data) == (same.packet, same.attribution_data)
    assert len(sphinx.failure_wrap(secrets[1], long, attribution=False).packet) == 32768


def test_malformed_reply_of_a_final_node():
    ad = hx(ONION["generate"]["associated_data"])
    keys = [hx(k) for k in ONION["decode"]]
    onion = hx(ONION["onion"])
    for k in keys[:4]:
        onion = sphinx.peel(k, onion, ad).next_onion
    assert sphinx.malformed(keys[4], onion, ad) is None
    changed = bytearray(onion)
    changed[700] ^= 0x80
    m = sphinx.malformed(keys[4], bytes(changed), ad)
    digest = hashlib.sha256(bytes(changed)).digest()
    assert (m.failure_code, m.failure, m.sha256_of_onion) == (0xC005, "invalid_onion_hmac", digest)
    assert m.message == b"\xc0\x05" + digest
    bad_version = b"\x01" + onion[1:]
    assert sphinx.malformed(keys[4], bad_version, ad).failure == "invalid_onion_version"
