#!/usr/bin/env python3
"""A consumer of the firmware's MQTT JSON as Home Assistant's MQTT sensors
read it: each message's payload parsed as `value_json` (and kept as
`value`), then rendered through Jinja2 `value_template`s.

  ha_consumer.py < settings.json

settings: {"port", "topic", "count", "templates": {name: template}}. Prints
`ready` once subscribed, then, after `count` messages (or 60 s), one JSON
object {name: [each non-empty rendering, in message order]}.
"""
import json
import sys
import threading

import jinja2
import paho.mqtt.client as mqtt


def main():
    s = json.load(sys.stdin)
    env = jinja2.Environment(undefined=jinja2.ChainableUndefined)
    templates = {k: env.from_string(v) for k, v in s["templates"].items()}
    got = []
    done = threading.Event()

    def on_subscribe(client, userdata, mid, reason_codes, properties):
        print("ready", flush=True)

    def on_message(client, userdata, msg):
        got.append(msg.payload.decode("utf-8"))
        if len(got) >= s["count"]:
            done.set()

    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="ha-consumer")
    c.on_subscribe = on_subscribe
    c.on_message = on_message
    c.connect("127.0.0.1", s["port"], 30)
    c.subscribe(s["topic"], qos=0)
    c.loop_start()
    done.wait(60)
    c.loop_stop()
    c.disconnect()
    out = {k: [] for k in templates}
    for value in got:
        value_json = json.loads(value)
        for k, t in templates.items():
            r = t.render(value=value, value_json=value_json).strip()
            if r:
                out[k].append(r)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
