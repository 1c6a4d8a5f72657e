"""The shared case table (vectors/meshcore/driver_cases.json) through
wireseal.meshcore: every packet's record (one at a time and in batches, with
malformed packets among them), every malformed packet's and bad key's
exception class (by kind), reason and message, and the builders making the
table's packets. The library
(crates/wireseal/tests/library/meshcore_driver_cases.rs) and the command line
(crates/wireseal-cli/tests/cli/meshcore_cli_agree.rs) run the same table."""

import pytest

import wireseal
from wireseal import meshcore as mc
from conftest import hx, load_json

T = load_json("meshcore/driver_cases.json")
KINDS = {
    "truncated": wireseal.TruncatedError,
    "too_long": wireseal.TooLongError,
    "malformed": wireseal.MalformedError,
    "unsupported": wireseal.UnsupportedVersionError,
    "invalid_key": wireseal.InvalidKeyError,
    "invalid_input": wireseal.InvalidInputError,
}


def expect_error(case, call):
    want = case["error"]
    with pytest.raises(KINDS[want["kind"]]) as e:
        call()
    assert e.value.reason == want["reason"], case
    assert str(e.value) == want["message"], case


def decoder(case):
    channels = [mc.ChannelKey.from_base64(c["base64"]) if "base64" in c
                else mc.ChannelKey.hashtag(c["hashtag"]) for c in case.get("channels", [])]
    identities = [mc.LocalIdentity.from_hex(case["identity"])] if "identity" in case else []
    peers = [hx(p) for p in case.get("peers", [])]
    return mc.Decoder(channels=channels, identities=identities, peers=peers)


@pytest.mark.parametrize("case", T["packets"], ids=lambda c: c["what"])
def test_every_packet_gives_the_tables_record(case):
    assert decoder(case).decode(hx(case["packet_hex"])) == case["record"]


@pytest.mark.parametrize("case", T["malformed"], ids=lambda c: c["what"])
def test_every_malformed_packet_gives_the_tables_error(case):
    raw = hx(case["packet_hex"])
    expect_error(case, lambda: mc.Decoder(channels=[mc.ChannelKey.public()]).decode(raw))
    expect_error(case, lambda: mc.parse(raw))


@pytest.mark.parametrize("case", T["key_errors"], ids=lambda c: c["what"])
def test_every_bad_key_gives_the_tables_error(case):
    if "channel_base64" in case:
        expect_error(case, lambda: mc.ChannelKey.from_base64(case["channel_base64"]))
    elif "identity_hex" in case:
        expect_error(case, lambda: mc.LocalIdentity.from_hex(case["identity_hex"]))
    else:
        expect_error(case, lambda: mc.Decoder(peers=[hx(case["peer_hex"])]))


def test_the_builders_make_the_tables_packets():
    b = T["builders"]

    def packet(k):
        return hx(T["packets"][b[k]["case"]]["packet_hex"])

    g = b["group_text"]
    ch = mc.ChannelKey.from_base64(g["channel_base64"])
    assert mc.encrypt_group(ch, g["timestamp"], g["text"]) == packet("group_text")
    client = mc.LocalIdentity.from_hex(T["test_client"]["private_hex"])
    assert client.public_key.hex() == T["test_client"]["public_hex"]
    to = mc.LocalIdentity.from_hex(T["rfc8032_seed"]["seed_hex"])
    dm = b["direct_text"]
    got = mc.text_message(client, to.public_key, dm["timestamp"], dm["text"], dm["attempt"])
    assert got == packet("direct_text")
    for k in ("advert", "advert_long_name"):
        a = b[k]
        got = mc.advert(client, a["name"], a["timestamp"], a.get("lat"), a.get("lon"))
        assert got == packet(k), k


@pytest.mark.parametrize("batch", [None, 1], ids=["all-cores", "one-thread"])
def test_decode_batch_gives_the_tables_records_and_errors_in_input_order(batch):
    bad = T["malformed"]
    for i, case in enumerate(T["packets"]):
        raw = hx(case["packet_hex"])
        worse = bad[i % len(bad)]
        out = decoder(case).decode_batch(
            [raw, hx(worse["packet_hex"]), raw],
            batch=None if batch is None else wireseal.Batch(batch),
        )
        assert len(out) == 3
        assert out[0] == case["record"] and out[2] == case["record"], case["what"]
        e, want = out[1], worse["error"]
        assert isinstance(e, KINDS[want["kind"]]), (case["what"], e)
        assert e.reason == want["reason"] and str(e) == want["message"]
