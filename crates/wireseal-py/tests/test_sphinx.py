"""wireseal.sphinx against the BOLT #4 vectors, pyln-proto (onions both ways)
and coincurve (secp256k1 keys)."""

import os
import random

import pytest
from hypothesis import given, settings, strategies as st

import wireseal
from wireseal import sphinx
from conftest import hx, load_json, require

ONION = load_json("bolt04/onion-test.json")
ERROR = load_json("bolt04/onion-error-test.json")
ATTR = load_json("bolt04/attributable-error-test.json")


def strip_bigsize(b):
    """A hop payload without its BigSize length prefix."""
    if b[0] < 0xFD:
        n, skip = b[0], 1
    elif b[0] == 0xFD:
        n, skip = int.from_bytes(b[1:3], "big"), 3
    elif b[0] == 0xFE:
        n, skip = int.from_bytes(b[1:5], "big"), 5
    else:
        n, skip = int.from_bytes(b[1:9], "big"), 9
    assert len(b) == skip + n
    return b[skip:]


def with_bigsize(p):
    n = len(p)
    if n < 0xFD:
        return bytes([n]) + p
    return b"\xfd" + n.to_bytes(2, "big") + p


def vector_hops():
    return [(hx(h["pubkey"]), strip_bigsize(hx(h["payload"]))) for h in ONION["generate"]["hops"]]


def test_build_matches_vector():
    g = ONION["generate"]
    # The default padding is BOLT #4's `pad`-key stream, as in the vector.
    onion, secrets = sphinx.build(hx(g["session_key"]), vector_hops(), hx(g["associated_data"]))
    assert onion == hx(ONION["onion"])
    assert onion == sphinx.build(
        hx(g["session_key"]), vector_hops(), hx(g["associated_data"]), padding="deterministic", area="payment"
    )[0]
    assert len(secrets) == 5
    for s, h in zip(secrets, ERROR["generate"]["hops"]):
        assert s == hx(h["hop_shared_secret"])


def test_peel_vector_hop_by_hop():
    onion = hx(ONION["onion"])
    ad = hx(ONION["generate"]["associated_data"])
    hops = vector_hops()
    for i, key in enumerate(ONION["decode"]):
        p = sphinx.peel(hx(key), onion, ad)
        assert p.payload == hops[i][1]
        assert p.is_final == (i == len(hops) - 1)
        onion = p.next_onion
    assert onion is None


def test_failure_vector():
    hops = ERROR["generate"]["hops"]
    secrets = [hx(h["hop_shared_secret"]) for h in hops]
    # The vector predates attribution data: its nodes act without it.
    f = sphinx.failure_create(secrets[4], hx(ERROR["generate"]["failure_message"]), attribution=False)
    assert f.attribution_data is None
    packet = f.packet
    for s in reversed(secrets[:4]):
        packet = sphinx.failure_wrap(s, packet, attribution=False).packet
    assert packet == hx(ERROR["errorpacket"])
    u = sphinx.failure_unwrap(secrets, packet)
    # Hops count from 1, as on the command line: hops[4] is hop 5.
    assert (u.hop, u.message, u.hold_times_ms, u.attribution, u.blamed_hop) == (5, hx("2002"), [], "absent", None)
    bad = bytearray(packet)
    bad[40] ^= 1
    u = sphinx.failure_unwrap(secrets, bytes(bad))
    assert (u.hop, u.message, u.attribution, u.blamed_hop) == (None, None, "absent", 1)


def attribution_vector():
    """The attributable vector's shared secrets (from `onion-error-test.json`,
    same nodes and session key) and hold times in path order: the vector lists
    them in the order the nodes return the failure."""
    assert [h["pubkey"] for h in ATTR["hops"]] == [h["pubkey"] for h in ERROR["generate"]["hops"]]
    secrets = [hx(h["hop_shared_secret"]) for h in ERROR["generate"]["hops"]]
    hold_ms = [t * 100 for t in reversed(ATTR["htlc_hold_time"])]
    return secrets, hold_ms


def test_attribution_vector_wraps_and_unwraps():
    secrets, hold_ms = attribution_vector()
    steps = {s["node"]: s for s in ATTR["returning"]}
    packet, data = hx(steps[4]["error_packet"]), hx(steps[4]["attribution_data"])
    for node in (3, 2, 1, 0):
        f = sphinx.failure_wrap(secrets[node], packet, attribution_data=data, hold_time_ms=hold_ms[node])
        packet, data = f.packet, f.attribution_data
        assert packet == hx(steps[node]["error_packet"])
        assert data == hx(steps[node]["attribution_data"])
    u = sphinx.failure_unwrap(secrets, packet, data)
    length = int.from_bytes(hx(ATTR["create"]["payload"])[:2], "big")
    assert u.hop == 5
    assert u.message == hx(ATTR["encoded_failure_message"])[:length]
    assert u.hold_times_ms == [500, 400, 300, 200, 100]
    assert (u.attribution, u.blamed_hop) == ("valid", None)
    # Success: every node's fulfill attribution data, then the hold times.
    data = None
    for s in ATTR["success"]:
        node = s["node"]
        data = sphinx.fulfill_wrap(secrets[node], attribution_data=data, hold_time_ms=hold_ms[node])
        assert data == hx(s["attribution_data"])
    h = sphinx.fulfill_unwrap(secrets, data)
    assert (h.hold_times_ms, h.attribution, h.blamed_hop) == ([500, 400, 300, 200, 100], "valid", None)
    assert sphinx.fulfill_unwrap(secrets).attribution == "absent"


def test_attribution_blames_garbling_and_missing_support():
    rng = random.Random(11)
    secrets = [rng.randbytes(32) for _ in range(6)]
    f = sphinx.failure_create(secrets[5], b"\x40\x0f", hold_time_ms=1234)
    assert len(f.attribution_data) == sphinx.ATTRIBUTION_LEN
    packet, data = f.packet, f.attribution_data
    for i in (4, 3, 2):
        f = sphinx.failure_wrap(secrets[i], packet, attribution_data=data, hold_time_ms=100 * i)
        packet, data = f.packet, f.attribution_data
    # Hop 2 (index 1) has no attribution support; hop 1 starts a new block.
    packet = sphinx.failure_wrap(secrets[1], packet, attribution=False).packet
    f = sphinx.failure_wrap(secrets[0], packet, hold_time_ms=99)
    u = sphinx.failure_unwrap(secrets, f.packet, f.attribution_data)
    assert (u.hop, u.message, u.hold_times_ms, u.attribution, u.blamed_hop) == (6, b"\x40\x0f", [0], "broken", 2)
    # Garbled on the link into hop 1: nothing authenticates, hop 1 is blamed.
    g = bytearray(f.packet)
    g[100] ^= 4
    u = sphinx.failure_unwrap(secrets, bytes(g), f.attribution_data)
    assert (u.hop, u.message, u.attribution, u.blamed_hop) == (None, None, "broken", 1)
    # Attribution data of the wrong length: a result, blaming hop 1.
    u = sphinx.failure_unwrap(secrets, f.packet, f.attribution_data[:-1])
    assert (u.hop, u.attribution, u.blamed_hop) == (6, "broken", 1)
    with pytest.raises(wireseal.TruncatedError):
        sphinx.failure_wrap(secrets[0], f.packet, attribution_data=b"\x00" * 919)
    with pytest.raises(wireseal.TruncatedError):
        sphinx.failure_wrap(secrets[0], b"\x00" * 35)


def test_failure_unwrap_batch_equals_one_at_a_time():
    rng = random.Random(13)
    items = []
    for i in range(30):
        secrets = [rng.randbytes(32) for _ in range(1 + i % 27)]
        f = sphinx.failure_create(secrets[i % len(secrets)], bytes([i, 1]), hold_time_ms=i * 100)
        packet, data = f.packet, f.attribution_data
        for s in reversed(secrets[: i % len(secrets)]):
            f = sphinx.failure_wrap(s, packet, attribution_data=data, hold_time_ms=500)
            packet, data = f.packet, f.attribution_data
        if i % 5 == 2:
            packet = packet[:60] + bytes([packet[60] ^ 1]) + packet[61:]
        items.append((secrets, packet, data if i % 4 else None))
    items.append((items[0][0], b"\x00" * 10, None))
    res = sphinx.failure_unwrap_batch(items, batch=wireseal.Batch(2))
    for (secrets, packet, data), r in zip(items, res):
        try:
            u = sphinx.failure_unwrap(secrets, packet, data)
        except wireseal.Error as e:
            assert type(r) is type(e)
        else:
            assert (r.hop, r.message, r.hold_times_ms, r.attribution, r.blamed_hop) == (
                u.hop, u.message, u.hold_times_ms, u.attribution, u.blamed_hop
            )


def test_hop_shared_secret_matches_peel():
    onion = hx(ONION["onion"])
    ad = hx(ONION["generate"]["associated_data"])
    key = hx(ONION["decode"][0])
    p = sphinx.peel(key, onion, ad)
    assert sphinx.hop_shared_secret(key, onion[1:34]) == p.shared_secret


def random_route(rng, n):
    """n hops with payloads of one random length (pyln-proto's filler
    assumes no hop frame is longer than the next one)."""
    keys = [rng.randbytes(32) for _ in range(n)]
    size = rng.randint(8, min(40, 1300 // n - 33))
    hops = [(sphinx.public_key_of(k), rng.randbytes(size)) for k in keys]
    return keys, hops


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 20), seed=st.integers(0, 2**32))
def test_pyln_both_ways(n, seed):
    require("pyln.proto.onion")
    from pyln.proto import onion as po
    from pyln.proto.primitives import PrivateKey, PublicKey, Secret

    rng = random.Random(seed)
    keys, hops = random_route(rng, n)
    session, ad = rng.randbytes(32), rng.randbytes(32)
    ours, _ = sphinx.build(session, hops, ad, padding="deterministic")
    path = po.SphinxPath(
        hops=[po.SphinxHop(PublicKey(pk), with_bigsize(p)) for pk, p in hops],
        assocdata=ad,
        session_key=Secret(session),
    )
    theirs = path.compile().to_bin()
    assert ours == theirs
    # pyln peels ours, we peel theirs, hop by hop.
    o_ours, o_theirs = po.RoutingOnion.from_bin(ours), theirs
    for i, k in enumerate(keys):
        payload, nxt = o_ours.unwrap(PrivateKey(k), ad)
        assert payload.to_bytes(include_prefix=False) == hops[i][1]
        p = sphinx.peel(k, o_theirs, ad)
        assert p.payload == hops[i][1]
        assert (nxt is None) == p.is_final == (i == n - 1)
        if nxt is not None:
            assert nxt.to_bin() == p.next_onion
            o_ours, o_theirs = nxt, p.next_onion


def test_public_key_matches_coincurve():
    coincurve = require("coincurve")
    for _ in range(20):
        k = os.urandom(32)
        assert sphinx.public_key_of(k) == coincurve.PrivateKey(k).public_key.format(compressed=True)


def test_negative_cases():
    onion = hx(ONION["onion"])
    ad = hx(ONION["generate"]["associated_data"])
    key = hx(ONION["decode"][0])
    with pytest.raises(wireseal.AuthError):
        sphinx.peel(key, onion, ad[:-1] + b"\x00")
    for at in (40, 700, 1365):
        bad = bytearray(onion)
        bad[at] ^= 0x10
        with pytest.raises(wireseal.AuthError):
            sphinx.peel(key, bytes(bad), ad)
    with pytest.raises(wireseal.TruncatedError):
        sphinx.peel(key, onion[:-1], ad)
    with pytest.raises(wireseal.TooLongError):
        sphinx.peel(key, onion + b"\x00", ad)
    with pytest.raises(wireseal.UnsupportedVersionError):
        sphinx.peel(key, b"\x01" + onion[1:], ad)
    with pytest.raises(wireseal.InvalidKeyError):
        sphinx.peel(key, onion[:1] + b"\x05" + onion[2:], ad)
    with pytest.raises(wireseal.InvalidKeyError):
        sphinx.peel(bytes(32), onion, ad)
    with pytest.raises(wireseal.InvalidKeyError):
        sphinx.build(key, [(b"\x05" + bytes(32), b"\x01")], ad)
    with pytest.raises(wireseal.InvalidInputError):
        sphinx.build(key, [], ad)
    with pytest.raises(wireseal.InvalidInputError, match="hop 2: empty payload"):
        sphinx.build(key, [(sphinx.public_key_of(key), b"\x01"), (sphinx.public_key_of(key), b"")], ad)
    with pytest.raises(wireseal.TooLongError):
        sphinx.build(key, [(sphinx.public_key_of(key), bytes(1300))], ad)


def test_peel_batch_equals_one_at_a_time():
    rng = random.Random(7)
    node = rng.randbytes(32)
    node_pub = sphinx.public_key_of(node)
    items = []
    for i in range(40):
        ad = rng.randbytes(32)
        o, _ = sphinx.build(rng.randbytes(32), [(node_pub, b"\x02\x01" + bytes([i]))], ad)
        if i % 7 == 3:
            o = o[:100] + bytes([o[100] ^ 1]) + o[101:]
        if i % 11 == 5:
            o = o[:-3]
        items.append((o, ad))
    res = sphinx.peel_batch(node, items, batch=wireseal.Batch(2))
    for (o, ad), r in zip(items, res):
        try:
            p = sphinx.peel(node, o, ad)
        except wireseal.Error as e:
            assert type(r) is type(e)
        else:
            assert (r.payload, r.shared_secret, r.is_final) == (p.payload, p.shared_secret, p.is_final)


def test_blinded_path_roundtrip():
    rng = random.Random(3)
    nodes = [rng.randbytes(32) for _ in range(3)]
    data = [b"\x04\x21" + b"\x02" * 33, b"\x04\x21" + b"\x03" * 33, b"\x06\x03abc"]
    path = sphinx.blind_path(rng.randbytes(32), [(sphinx.public_key_of(n), d) for n, d in zip(nodes, data)])
    path_key = path.first_path_key
    for i, n in enumerate(nodes):
        u = sphinx.unblind(n, path_key)
        assert sphinx.public_key_of(u.blinded_private_key) == path.blinded_node_ids[i]
        assert u.decrypt(path.encrypted_data[i]) == data[i]
        with pytest.raises(wireseal.AuthError):
            u.decrypt(path.encrypted_data[i][:-1] + b"\x00")
        path_key = u.next_path_key(data[i])


def test_onion_message_large():
    rng = random.Random(5)
    k = rng.randbytes(32)
    payload = bytes(2000)  + b"\x01"
    o, _ = sphinx.build(rng.randbytes(32), [(sphinx.public_key_of(k), b"\x02\x01\x01" + payload)], b"", area="message-large")
    assert len(o) == sphinx.onion_len("message-large") == sphinx.onion_len(sphinx.MESSAGE_AREA_LARGE) == 32834
    for bad in ("Payment", "1301", 1301, 0):
        with pytest.raises(wireseal.InvalidInputError):
            sphinx.onion_len(bad)
    with pytest.raises(wireseal.InvalidInputError):
        sphinx.build(k, [(sphinx.public_key_of(k), b"\x01")], b"", padding="Random")
    p = sphinx.peel(k, o, b"", message=True)
    assert p.is_final and p.payload.endswith(payload)


CASES = load_json("sphinx/driver_cases.json")
KINDS = {"invalid_input": wireseal.InvalidInputError}


@pytest.mark.parametrize("case", CASES["areas"], ids=lambda c: c["text"])
def test_areas_follow_the_shared_table(case):
    """vectors/sphinx/driver_cases.json, the table the library and the CLI run."""
    key = bytes([0x41] * 32)
    hops = [(sphinx.public_key_of(key), b"\x01\x02")]
    if "error" in case:
        with pytest.raises(KINDS[case["error"]]) as e:
            sphinx.build(key, hops, b"", area=case["text"])
        assert "`payment` (1300 bytes) or `message-large` (32768 bytes)" in str(e.value)
    else:
        onion, _ = sphinx.build(key, hops, b"", area=case["text"])
        assert len(onion) == case["onion_len"]


@pytest.mark.parametrize("case", CASES["paddings"], ids=lambda c: c["text"])
def test_paddings_follow_the_shared_table(case):
    key = bytes([0x41] * 32)
    hops = [(sphinx.public_key_of(key), b"\x01\x02")]
    if "error" in case:
        with pytest.raises(KINDS[case["error"]]) as e:
            sphinx.build(key, hops, b"", padding=case["text"])
        assert "`deterministic` or `random`" in str(e.value)
    else:
        onion, _ = sphinx.build(key, hops, b"", padding=case["text"])
        assert len(onion) == 1366
