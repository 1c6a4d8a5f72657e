"""The shared case table (vectors/meshtastic/driver_cases.json) through
wireseal.meshtastic: PSK text, channel and PKC lengths, key clamping. The
library (crates/wireseal/tests/library/meshtastic_driver_cases.rs) and the command
line (crates/wireseal-cli/tests/cli/meshtastic_cli_agree.rs) run the same table:
the same bytes and the same error kinds (exception classes) everywhere."""

import pytest

import wireseal
from wireseal import meshtastic as mt
from conftest import hx, load_json

T = load_json("meshtastic/driver_cases.json")
KINDS = {
    "invalid_key": wireseal.InvalidKeyError,
    "too_long": wireseal.TooLongError,
}
PEER = hx("db18fc50eea47f00251cb784819a3cf5fc361882597f589f0d7ff820e8064457")


def expect_error(case, call):
    with pytest.raises(KINDS[case["error"]]) as e:
        call()
    assert case["says"] in str(e.value), (case, str(e.value))
    return e.value


@pytest.mark.parametrize("case", T["psk_text"], ids=lambda c: repr(c["text"]))
def test_psk_text(case):
    ch = T["channel"]
    plain = hx(ch["plaintext_hex"])
    if "error" in case:
        err = expect_error(case, lambda: mt.ChannelKey(case["text"]))
        if case["text"]:
            assert case["text"] not in str(err)
        return
    key = mt.ChannelKey(case["text"])
    want = mt.ChannelKey(hx(case["psk_hex"]))
    ct = key.encrypt(ch["from"], ch["id"], plain)
    assert ct == want.encrypt(ch["from"], ch["id"], plain)
    assert key.padded_from == case.get("padded_from")
    assert mt.channel_hash("LongFast", case["text"]) == want.hash("LongFast")
    if hx(case["psk_hex"]) in (b"\x01", hx("d4f1bb3a20290759f0bcffabcf4e6901")):
        assert ct == hx(ch["default_key_ciphertext_hex"])
    if not key.is_encrypted:
        assert ct == plain


@pytest.mark.parametrize("case", T["channel_lengths"], ids=lambda c: str(c["len"]))
def test_channel_lengths(case):
    key = mt.ChannelKey("AQ==")
    data = bytes([7]) * case["len"]
    if "error" in case:
        expect_error(case, lambda: key.encrypt(1, 2, data))
        expect_error(case, lambda: key.decrypt(1, 2, data))
    else:
        assert len(key.encrypt(1, 2, data)) == len(data)


@pytest.mark.parametrize("case", T["pkc_lengths"], ids=lambda c: str(c["len"]))
def test_pkc_lengths(case):
    e = mt.PkcEngine(mt.generate_private_key())
    data = bytes([7]) * case["len"]
    if "error" in case:
        expect_error(case, lambda: e.seal(0, PEER, 1, 2, data))
    else:
        assert len(e.seal(0, PEER, 1, 2, data)) == mt.sealed_len(len(data))


@pytest.mark.parametrize("case", T["clamping"], ids=lambda c: c["private_hex"][:4] + c["private_hex"][-2:])
def test_clamping(case):
    key = hx(case["private_hex"])
    if "error" in case:
        expect_error(case, lambda: mt.PkcEngine(key))
        dec = mt.EnvelopeDecoder()
        expect_error(case, lambda: dec.set_node(1, key))
    else:
        assert mt.PkcEngine(key).public_key == hx(case["public_hex"])
