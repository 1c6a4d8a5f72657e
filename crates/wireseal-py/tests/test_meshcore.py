"""wireseal.meshcore: keys, the builders against the decoder, the firmware's
test client key, every packet the firmware drops raising the exception of
its kind with the library's reason, and the record equal to the command
line's JSON."""

import json
import os
import pathlib
import subprocess

import pytest

import wireseal
from wireseal import meshcore as mc
from conftest import VECTORS, hx, skip_or_fail

TEST_CLIENT_PRV = (
    "7065e18fd9fabb70c1ed90dca19907de698c88b709ea146eafd93d9b830c7b60"
    "c4681193c79bbc39945ba8064104bb618f8fd7a84a0af6f57033d6e8ddcd6471"
)
TEST_CLIENT_PUB = hx("1ec77175b0918ed206f9ae04ec136d6d5d4315bb26305427f645b492e9350c10")
RFC8032_SEED = hx("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC8032_PUB = hx("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")


def test_channel_keys():
    public = mc.ChannelKey.public()
    assert public.hash == 0x11 and public.key_len == 16
    assert mc.ChannelKey.from_base64("izOH6cXN6mrJ5e26oRXNcg==").hash == 0x11
    assert mc.ChannelKey.from_bytes(mc.PUBLIC_CHANNEL_KEY).hash == 0x11
    test = hx("9cd8fcf22a47333b591d96a2b848b73f")
    assert mc.ChannelKey.hashtag("#test").hash == mc.ChannelKey.from_bytes(test).hash
    assert mc.ChannelKey.hashtag("test").hash == mc.ChannelKey.from_bytes(test).hash
    assert mc.ChannelKey.from_bytes(bytes(32)).key_len == 32
    for bad in (b"", bytes(15), bytes(17), bytes(33)):
        with pytest.raises(wireseal.InvalidKeyError):
            mc.ChannelKey.from_bytes(bad)
    with pytest.raises(wireseal.InvalidKeyError) as e:
        mc.ChannelKey.from_base64("secret!!")
    assert "secret" not in str(e.value) and e.value.reason == "invalid_key"
    with pytest.raises(wireseal.InvalidInputError):
        mc.ChannelKey.hashtag("a b")
    assert "8b3387" not in repr(public) and "0x11" in repr(public)


def test_identities():
    tc = mc.LocalIdentity.from_hex(TEST_CLIENT_PRV)
    assert tc.public_key == TEST_CLIENT_PUB
    assert tc.private_key().hex() == TEST_CLIENT_PRV
    assert mc.LocalIdentity.from_private_key(hx(TEST_CLIENT_PRV)).public_key == TEST_CLIENT_PUB
    seed = mc.LocalIdentity.from_seed(RFC8032_SEED)
    assert seed.public_key == RFC8032_PUB
    assert mc.LocalIdentity.from_hex(RFC8032_SEED.hex()).public_key == RFC8032_PUB
    # RFC 8032 test 1: the signature of the empty message.
    assert seed.sign(b"") == hx(
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    )
    assert mc.LocalIdentity.from_private_key(seed.private_key()).sign(b"x") == seed.sign(b"x")
    fresh = mc.LocalIdentity.generate()
    assert len(fresh.public_key) == 32 and fresh.public_key[0] not in (0, 0xFF)
    assert len(fresh.private_key()) == 64
    assert TEST_CLIENT_PRV[:16] not in repr(tc) and TEST_CLIENT_PUB.hex() in repr(tc)
    unclamped = bytearray(hx(TEST_CLIENT_PRV))
    unclamped[0] |= 1
    with pytest.raises(wireseal.InvalidKeyError, match="not clamped"):
        mc.LocalIdentity.from_private_key(bytes(unclamped))
    for bad in ("", "00", "zz" * 32):
        with pytest.raises(wireseal.InvalidKeyError):
            mc.LocalIdentity.from_hex(bad)
    with pytest.raises(wireseal.InvalidKeyError):
        mc.LocalIdentity.from_seed(bytes(31))
    with pytest.raises(wireseal.InvalidKeyError):
        mc.LocalIdentity.from_private_key(bytes(63))


def test_group_text_round_trip_and_only_given_keys():
    ch = mc.ChannelKey.hashtag("#test")
    packet = mc.encrypt_group(ch, 1_700_000_000, "Alice: hi ☁️")
    r = mc.Decoder(channels=[mc.ChannelKey.public(), ch]).decode(packet)
    assert r["payload_type"] == "grp_txt" and r["route_type"] == "flood"
    g = r["grp_txt"]
    assert (g["decrypted"], g["channel"], g["timestamp"], g["text"]) == (
        True, 1, 1_700_000_000, "Alice: hi ☁️")
    assert g["channel_hash"] == f"{ch.hash:02x}"
    assert r["hash"] == mc.packet_hash(packet).hex()
    # No channel is implied.
    g = mc.Decoder().decode(packet)["grp_txt"]
    assert g["decrypted"] is False and g["text"] is None
    with pytest.raises(wireseal.InvalidInputError, match="160"):
        mc.encrypt_group(ch, 1, "A: " + "x" * 158)


def test_advert_round_trip_and_names_cut_at_a_whole_character():
    tc = mc.LocalIdentity.from_hex(TEST_CLIENT_PRV)
    packet = mc.advert(tc, "Test Client", 1_700_000_000, lat=52.370216, lon=-4.895168)
    a = mc.Decoder().decode(packet)["advert"]
    assert a["public_key"] == TEST_CLIENT_PUB.hex()
    assert (a["signature"], a["node_type"], a["name"]) == ("valid", "chat", "Test Client")
    assert (a["lat"], a["lon"]) == (int(52.370216e6) / 1e6, int(-4.895168e6) / 1e6)
    name = "n" * 30 + "🌲tail"
    a = mc.Decoder().decode(mc.advert(tc, name, 1))["advert"]
    assert a["name"] == "n" * 30 and a["signature"] == "valid" and a["lat"] is None
    broken = bytearray(packet)
    broken[40] ^= 1
    assert mc.Decoder().decode(bytes(broken))["advert"]["signature"] == "invalid"
    with pytest.raises(wireseal.InvalidInputError):
        mc.advert(tc, "x", 1, lat=5.0)
    with pytest.raises(wireseal.InvalidInputError, match="latitude"):
        mc.advert(tc, "x", 1, lat=91.0, lon=0.0)


def test_direct_message_round_trip():
    tc = mc.LocalIdentity.from_hex(TEST_CLIENT_PRV)
    us = mc.LocalIdentity.generate()
    for attempt in (0, 3, 5):
        packet = mc.text_message(tc, us.public_key, 1_700_000_100, "Hello there", attempt)
        r = mc.Decoder(identities=[us], peers=[tc.public_key]).decode(packet)
        t = r["txt_msg"]
        assert t["decrypted"] is True
        assert (t["from"], t["to"]) == (tc.public_key.hex(), us.public_key.hex())
        assert (t["text"], t["attempt"], t["text_type"]) == ("Hello there", attempt, "plain")
        assert mc.Decoder(identities=[us]).decode(packet)["txt_msg"]["decrypted"] is False
    d = mc.Decoder()
    d.add_identity(us)
    assert d.add_peer(tc.public_key) is True
    assert d.add_peer(tc.public_key) is False
    assert d.decode(packet, now=1000)["txt_msg"]["decrypted"] is True
    with pytest.raises(wireseal.InvalidKeyError):
        mc.text_message(tc, bytes(31), 1, "x")


def test_parse_gives_the_header_fields():
    ch = mc.ChannelKey.public()
    packet = bytearray(mc.encrypt_group(ch, 1, "a: b"))
    # Relayed over two hops of 2-byte hashes.
    relayed = bytes([packet[0], 0x42]) + hx("a1b2c3d4") + bytes(packet[2:])
    p = mc.parse(relayed)
    assert p["route_type"] == "flood" and p["payload_type"] == "grp_txt"
    assert p["transport_codes"] is None and p["path_hash_size"] == 2
    assert p["path"] == [hx("a1b2"), hx("c3d4")]
    assert p["payload"] == bytes(packet[2:])
    assert p["hash"] == mc.packet_hash(bytes(packet))
    r = mc.Decoder(channels=[ch]).decode(relayed)
    assert r["path"] == ["a1b2", "c3d4"] and r["grp_txt"]["text"] == "a: b"


MALFORMED = [
    ("55" + "00" + "11" * 21, wireseal.UnsupportedVersionError, "version"),
    ("15c0" + "11" * 21, wireseal.MalformedError, "reserved_hash_size"),
    ("1561" + "ab" * 66 + "11" * 21, wireseal.TooLongError, "path_too_long"),
    ("1505aabbcc", wireseal.TruncatedError, "truncated"),
    ("1500" + "11" * 185, wireseal.TooLongError, "payload_too_long"),
    ("1100" + "22" * 99, wireseal.TruncatedError, "payload_too_short"),
    ("1500112233", wireseal.TruncatedError, "payload_too_short"),
    ("", wireseal.TruncatedError, "truncated"),
    ("1500" + "11" * 254, wireseal.TooLongError, "too_long"),
]


@pytest.mark.parametrize("packet,cls,reason", MALFORMED, ids=[m[2] for m in MALFORMED])
def test_malformed_packets_raise_their_kind_and_reason(packet, cls, reason):
    raw = hx(packet)
    for call in (lambda: mc.Decoder().decode(raw), lambda: mc.parse(raw),
                 lambda: mc.packet_hash(raw)):
        with pytest.raises(cls) as e:
            call()
        assert e.value.reason == reason
        assert isinstance(e.value, wireseal.Error)


def test_the_dict_is_the_command_lines_json():
    """This checkout's `wireseal` binary (or WIRESEAL_BIN) prints, with --json,
    the very object the dict is, and `decode_json` its very line."""
    env = os.environ.get("WIRESEAL_BIN")
    exe = pathlib.Path(env) if env else VECTORS.parent / "target" / "release" / "wireseal"
    if not exe.is_file():
        skip_or_fail(f"the wireseal command line is not built at {exe} "
                     "(cargo build --release -p wireseal-cli, or set WIRESEAL_BIN)")
        return
    ch = mc.ChannelKey.public()
    packet = mc.encrypt_group(ch, 1_700_000_000, "Alice: hello ☁️")
    out = subprocess.run(
        [exe, "--json", "meshcore", "decode", "--public-channel", packet.hex()],
        check=True, capture_output=True, text=True,
    ).stdout
    d = mc.Decoder(channels=[ch])
    assert json.loads(out) == d.decode(packet)
    assert out.strip() == d.decode_json(packet)
