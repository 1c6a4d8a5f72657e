"""wireseal.meshtastic.EnvelopeDecoder on MQTT ServiceEnvelopes encoded
here from the public protobuf schema (mqtt.proto, mesh.proto): channel and
PKC packets, wrong keys, replays, batch equals one at a time."""
import json
import struct

import wireseal
from wireseal import meshtastic as mt


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(tag, wire, value):
    key = varint(tag << 3 | wire)
    if wire == 0:
        return key + varint(value)
    if wire == 5:
        return key + struct.pack("<I", value)
    return key + varint(len(value)) + value


def data(portnum, payload):
    return field(1, 0, portnum) + field(2, 2, payload)


def envelope(*, from_, to, id, channel, encrypted, channel_id, public_key=None, gateway="!gateway1"):
    p = field(1, 5, from_) + field(2, 5, to) + field(3, 0, channel) + field(5, 2, encrypted)
    p += field(6, 5, id) + field(9, 0, 3) + field(15, 0, 3)
    if public_key is not None:
        p += field(16, 2, public_key) + field(17, 0, 1)
    return field(1, 2, p) + field(2, 2, channel_id.encode()) + field(3, 2, gateway.encode())


def channel_env(id, text, psk=b"\x01", name="LongFast", gateway="!gateway1"):
    key = mt.ChannelKey(psk)
    return envelope(
        from_=0x929, to=0xFFFFFFFF, id=id, channel=key.hash(name),
        encrypted=key.encrypt(0x929, id, data(1, text)), channel_id=name, gateway=gateway,
    )


def test_channel_and_pkc():
    ours, theirs = mt.generate_private_key(), mt.generate_private_key()
    dec = mt.EnvelopeDecoder()
    assert dec.add_channel("LongFast", b"\x01") == 0
    dec.set_node(0x42, ours)
    d = dec.decode(0, channel_env(7, b"hello channel"))
    assert (d["decryption"], d["channel"], d["text"], d["error"]) == ("channel", "LongFast", "hello channel", None)
    assert (d["from_"], d["id"], d["portnum"]) == (0x929, 7, 1)

    sealed = mt.PkcEngine(theirs).seal(0, mt.public_key(ours), 0x555, 9, data(1, b"hello pkc"))
    env = envelope(from_=0x555, to=0x42, id=9, channel=0, encrypted=sealed,
                   channel_id="PKI", public_key=mt.public_key(theirs))
    d = dec.decode(0, env)
    assert (d["decryption"], d["text"], d["error"]) == ("pkc", "hello pkc", None)

    wrong = mt.EnvelopeDecoder()
    wrong.add_channel("LongFast", b"\x02" * 16)
    assert wrong.decode(0, channel_env(8, b"x"))["error"] in ("no_channel", "wrong_channel_key")


def test_several_nodes_and_one_vocabulary_with_the_record():
    """Direct messages to any node of ours open and say which; the dict and
    the gateway's JSON record name every outcome alike."""
    a, b, sender = mt.generate_private_key(), mt.generate_private_key(), mt.generate_private_key()
    dec = mt.EnvelopeDecoder()
    dec.add_channel("LongFast", b"\x01")
    dec.set_node(0x42, a)
    dec.set_node(0x43, b)
    engine = mt.PkcEngine(sender)
    for i, (node, key) in enumerate([(0x42, a), (0x43, b)]):
        sealed = engine.seal(0, mt.public_key(key), 0x555, 20 + i, data(1, b"to %d" % node))
        env = envelope(from_=0x555, to=node, id=20 + i, channel=0, encrypted=sealed,
                       channel_id="PKI", public_key=mt.public_key(sender))
        d = dec.decode(0, env)
        assert (d["decryption"], d["our_node"], d["kind"]) == ("pkc", node, "text")
    for env in [channel_env(30, b"x"), b"\x0a\x02\x18\x00"]:
        for decoder in [dec, mt.EnvelopeDecoder()]:
            try:
                d = decoder.decode(0, env)
            except wireseal.Error:
                continue
            r = json.loads(decoder.decode_record(0, env))
            for k in ["decryption", "signature", "kind"]:
                assert d[k] == r[k], (k, d, r)
            assert d["error"] == r.get("error")


def test_replay_and_batch():
    dec = mt.EnvelopeDecoder()
    dec.add_channel("LongFast", b"\x01")
    dec.set_replay_window(64, 16)
    envs = [channel_env(i % 40, b"m%d" % i) for i in range(60)] + [b"\xff\xff not protobuf"]
    one = mt.EnvelopeDecoder()
    one.add_channel("LongFast", b"\x01")
    one.set_replay_window(64, 16)
    batch = dec.decode_batch(0, envs, batch=wireseal.Batch(2))
    for env, got in zip(envs, batch):
        try:
            want = one.decode(0, env)
        except wireseal.Error as e:
            assert type(got) is type(e)
        else:
            assert got == want
    assert [b["error"] for b in batch[40:60]] == ["replay"] * 20


def test_a_large_batch_equals_one_at_a_time():
    """A batch large enough to be decoded run after run while the dicts of
    the runs before are built: channel and PKC packets from senders learned
    along the way, replays, envelopes that do not decode."""
    ours = mt.generate_private_key()
    senders = [mt.generate_private_key() for _ in range(5)]
    engines = [mt.PkcEngine(k) for k in senders]

    def decoder():
        d = mt.EnvelopeDecoder()
        d.add_channel("LongFast", b"\x01")
        d.set_node(0x42, ours)
        d.set_replay_window(2048, 64)
        return d

    envs = []
    for i in range(1500):
        if i % 97 == 5:
            envs.append(b"\xff\xff not protobuf")
        elif i % 3 == 0:
            s = i % 5
            sealed = engines[s].seal(0, mt.public_key(ours), 0x500 + s, i, data(1, b"dm %d" % i))
            envs.append(envelope(from_=0x500 + s, to=0x42, id=i, channel=0, encrypted=sealed,
                                 channel_id="PKI", public_key=mt.public_key(senders[s])))
        else:
            envs.append(channel_env(i % 700, b"m%d" % i))
    one = decoder()
    want = []
    for env in envs:
        try:
            want.append(one.decode(0, env))
        except wireseal.Error as e:
            want.append(e)
    got = decoder().decode_batch(0, envs, batch=wireseal.Batch(2))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, wireseal.Error):
            assert type(g) is type(w)
        else:
            assert g == w
    assert sum(1 for w in want if isinstance(w, dict) and w["error"] == "replay") > 100
    assert sum(1 for w in want if isinstance(w, dict) and w["decryption"] == "pkc") > 400


def test_batches_cut_anywhere_and_many_gateways_equal_one_at_a_time():
    """Batches of lengths around the places a large batch is cut into runs,
    from more distinct gateways than the decoder keeps the names of: every
    dict is the one decoding alone gives, its gateway its envelope's."""
    envs = [
        channel_env(i, b"m%d" % i, gateway="!%08x" % (i % 1500), name=["LongFast", "Other"][i % 2])
        for i in range(2100)
    ]

    def decoder():
        d = mt.EnvelopeDecoder()
        d.add_channel("LongFast", b"\x01")
        return d

    one = decoder()
    want = [one.decode(0, env) for env in envs]
    assert len({w["gateway_id"] for w in want}) == 1500
    for n in [1, 64, 65, 512, 513, 960, 961, 2100]:
        got = decoder().decode_batch(0, envs[:n], batch=wireseal.Batch(2))
        assert got == want[:n], n
        assert [g["gateway_id"] for g in got] == ["!%08x" % (i % 1500) for i in range(n)]
