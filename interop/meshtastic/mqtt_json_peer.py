#!/usr/bin/env python3
"""meshtastic-mqtt-json (PyPI 3.0.0) decoding the envelopes wireseal's bench
gives it, timed inside Python; embedded in `wireseal bench` (section
`meshtastic-gateway`) and written to the cache directory on first use.

  mqtt_json_peer.py check            exit 0 when meshtastic_mqtt_json imports
  mqtt_json_peer.py serve            the bench protocol on stdin / stdout:

    envelopes N        then N lines of hex envelopes (LongFast, key AQ==)
    sample             decode every envelope once; prints the seconds taken
    fields             prints one JSON line: a list, per envelope, of the
                       fields it decoded (or null when it decoded nothing)
    quit

Each envelope goes through MeshtasticMQTT.event_mqtt_recv, the library's own
path from an MQTT message to its JSON object (parse, AES-CTR, Data, portnum
dispatch, JSON conversion); callbacks registered for every portnum collect the
objects instead of printing them.
"""
import base64
import json
import sys
import time


class Message:
    """The two attributes of paho's MQTTMessage that the library reads."""

    __slots__ = ("topic", "payload")

    def __init__(self, topic, payload):
        self.topic = topic
        self.payload = payload


def client(sink):
    from meshtastic import portnums_pb2
    from meshtastic_mqtt_json import MeshtasticMQTT

    c = MeshtasticMQTT()
    # What MeshtasticMQTT.connect does with --key AQ==, without a broker.
    c.key = "1PG7OiApB1nwvP+rz05pAQ=="
    c.key_bytes = base64.b64decode(c.key)
    for name in portnums_pb2.PortNum.keys():
        c.register_callback(name, sink)
    return c


def payload_hex(portnum, payload):
    """The Data.payload bytes behind the library's JSON `payload` value."""
    from google.protobuf import json_format
    from meshtastic import mesh_pb2

    if isinstance(payload, str) and portnum == 1:
        return payload.encode("utf-8").hex()
    if isinstance(payload, dict):
        cls = {3: mesh_pb2.Position, 4: mesh_pb2.User}.get(portnum)
        if cls is None:
            return None
        return json_format.ParseDict(payload, cls()).SerializeToString().hex()
    return None


def fields(obj):
    """The fields wireseal's bench compares, from one JSON object."""
    from meshtastic import portnums_pb2

    d = obj.get("decoded", {})
    portnum = portnums_pb2.PortNum.Value(d.get("portnum", "UNKNOWN_APP"))
    return {
        "from": obj.get("from", 0),
        "to": obj.get("to", 0),
        "id": obj.get("id", 0),
        "channel": obj.get("channel", 0),
        "rx_time": obj.get("rxTime", 0),
        "hop_limit": obj.get("hopLimit", 0),
        "hop_start": obj.get("hopStart", 0),
        "portnum": portnum,
        "payload_hex": payload_hex(portnum, d.get("payload")),
        "want_response": d.get("wantResponse", False),
        "bitfield": d.get("bitfield", 0),
    }


def serve():
    out = []
    c = client(out.append)
    msgs = []
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "envelopes":
            n = int(cmd[1])
            msgs = [
                Message("msh/US/2/e/LongFast/!b3c4d5e6", bytes.fromhex(sys.stdin.readline().strip()))
                for _ in range(n)
            ]
            print("ok", flush=True)
        elif cmd[0] == "sample":
            out.clear()
            recv = c.event_mqtt_recv
            t = time.perf_counter()
            for m in msgs:
                recv(None, None, m)
            el = time.perf_counter() - t
            if len(out) != len(msgs):
                print(f"error decoded {len(out)} of {len(msgs)}", flush=True)
            else:
                print(repr(el), flush=True)
        elif cmd[0] == "fields":
            got = []
            for m in msgs:
                out.clear()
                c.event_mqtt_recv(None, None, m)
                got.append(fields(out[0]) if out else None)
            print(json.dumps(got), flush=True)
        elif cmd[0] == "quit":
            return
        else:
            print(f"error unknown command {cmd[0]!r}", flush=True)


def main():
    if sys.argv[1:] == ["check"]:
        import meshtastic_mqtt_json  # noqa: F401

        client(lambda _: None)
    elif sys.argv[1:] == ["serve"]:
        serve()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
