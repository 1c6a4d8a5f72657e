// The `meshtastic decode` node: a Meshtastic MQTT ServiceEnvelope in
// (msg.payload, a Buffer from an MQTT-in node), the decoded packet out, as
// the gateway's record object or as the JSON object the 2.7 firmware
// published on MQTT. Channels, our node's number and its private key come
// from the node's credentials (kept out of the flow file).
//
// Node-RED loads nodes with require(): this file is CommonJS and imports
// the `wireseal` package (an ES module with WebAssembly inside) lazily, once.
'use strict';

let loading = null;

/** `wireseal/meshtastic`, imported on first use. */
function wireseal() {
  if (loading === null) loading = import('wireseal/meshtastic');
  return loading;
}

const POLICIES = ['compatible', 'balanced', 'strict'];
const OUTPUTS = ['record', 'firmware-json'];

/** An error of ours with the library's kind, as WiresealError gives it. */
function failure(kind, message) {
  const e = new Error(message);
  e.kind = kind;
  return e;
}

/**
 * The channels credential: one `NAME=PSK` per line (or separated by `;`),
 * the gateway's `--channel` form; the PSK is base64 as the apps show it,
 * `hex:…`, `default`, `none` or `simpleN`. Empty: `LongFast=AQ==`, as the
 * gateway.
 */
function parseChannels(text) {
  const list = String(text ?? '')
    .split(/[\r\n;]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && !s.startsWith('#'));
  if (list.length === 0) return [['LongFast', 'AQ==']];
  return list.map((spec, i) => {
    const cut = spec.indexOf('=');
    if (cut <= 0) {
      // The PSK is never repeated in a message.
      throw failure('invalid_input', `channel ${i + 1}: expected NAME=PSK`);
    }
    return [spec.slice(0, cut).trim(), spec.slice(cut + 1).trim()];
  });
}

/** Our node's number: `!0a0b0c0d` or a decimal number; `null` when empty. */
function parseNode(text) {
  const s = String(text ?? '').trim();
  if (s === '') return null;
  let n = NaN;
  if (/^![0-9a-fA-F]{8}$/.test(s)) n = parseInt(s.slice(1), 16);
  else if (/^(0x[0-9a-fA-F]{1,8}|[0-9]{1,10})$/.test(s)) n = Number(s);
  if (!(Number.isInteger(n) && n >= 0 && n <= 0xffffffff)) {
    throw failure('invalid_input', 'node number: expected !xxxxxxxx or a number up to 4294967295');
  }
  return n;
}

/** Our node's X25519 private key: 64 hex digits or base64 of 32 bytes. */
function parseKey(text) {
  const s = String(text ?? '').trim();
  if (s === '') return null;
  let key;
  if (/^[0-9a-fA-F]{64}$/.test(s)) key = Buffer.from(s, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(s)) key = Buffer.from(s, 'base64');
  if (key === undefined || key.length !== 32) {
    throw failure('invalid_key', 'private key: expected 64 hex digits or base64 of 32 bytes');
  }
  return new Uint8Array(key);
}

/** A decoder set up from the node's settings and credentials. */
function makeDecoder(mt, config, credentials) {
  const decoder = new mt.EnvelopeDecoder({ signaturePolicy: config.signaturePolicy });
  for (const [name, psk] of parseChannels(credentials.channels)) {
    try {
      decoder.addChannel(name, psk);
    } catch (err) {
      // Which channel, never its PSK.
      throw failure(err?.kind ?? 'invalid_key', `channel ${name}: ${err?.message ?? err}`);
    }
  }
  const node = parseNode(credentials.ourNode);
  const key = parseKey(credentials.privateKey);
  if ((node === null) !== (key === null)) {
    throw failure('invalid_input', 'our node needs both its number and its private key');
  }
  if (key !== null) {
    try {
      decoder.setNode(node, key);
    } finally {
      key.fill(0);
    }
  }
  return decoder;
}

/** The message of the error `node.error` reports: the kind first. */
function reported(err) {
  const kind = typeof err?.kind === 'string' ? err.kind : 'internal';
  const e = new Error(`${kind}: ${err?.message ?? String(err)}`);
  // Catch nodes get `msg.error.code`; the node's own callers `kind`.
  e.code = kind;
  e.kind = kind;
  return e;
}

module.exports = function register(RED) {
  function MeshtasticDecode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const settings = {
      output: OUTPUTS.includes(config.output) ? config.output : 'record',
      signaturePolicy: POLICIES.includes(config.signaturePolicy) ? config.signaturePolicy : 'compatible',
    };
    let decoder = null;
    let broken = null;
    let closed = false;

    const ready = wireseal().then(
      (mt) => {
        if (closed) return;
        try {
          decoder = makeDecoder(mt, settings, node.credentials ?? {});
          node.status({});
        } catch (err) {
          broken = reported(err);
          node.error(broken);
          node.status({ fill: 'red', shape: 'ring', text: `settings: ${broken.kind}` });
        }
      },
      (err) => {
        broken = reported(
          failure('unsupported', `the wireseal package could not be loaded (install it beside this node): ${err.message}`),
        );
        node.error(broken);
        node.status({ fill: 'red', shape: 'ring', text: 'wireseal missing' });
      },
    );

    function handle(msg, send, done) {
      if (broken !== null) {
        node.error(broken, msg);
        done();
        return;
      }
      if (decoder === null) {
        done();
        return;
      }
      try {
        if (settings.output === 'firmware-json') {
          const text = decoder.decodeFirmwareJson(Date.now(), msg.payload);
          if (text === undefined) {
            node.status({ fill: 'grey', shape: 'ring', text: 'no firmware JSON' });
          } else {
            msg.payload = JSON.parse(text);
            node.status({ fill: 'green', shape: 'dot', text: msg.payload.type || 'decoded' });
            send(msg);
          }
        } else {
          const record = decoder.decode(Date.now(), msg.payload);
          msg.payload = record;
          if (typeof record.error === 'string') {
            node.status({ fill: 'yellow', shape: 'ring', text: record.error });
          } else {
            node.status({ fill: 'green', shape: 'dot', text: String(record.decryption ?? 'decoded') });
          }
          send(msg);
        }
        done();
      } catch (err) {
        const e = reported(err);
        node.status({ fill: 'red', shape: 'ring', text: e.kind });
        node.error(e, msg);
        done();
      }
    }

    node.on('input', (msg, send, done) => {
      // Messages before the package has loaded wait for it, in order.
      if (decoder !== null || broken !== null) handle(msg, send, done);
      else ready.then(() => handle(msg, send, done));
    });

    node.on('close', (done) => {
      closed = true;
      if (decoder !== null) decoder.free();
      decoder = null;
      done();
    });
  }

  RED.nodes.registerType('wireseal-meshtastic-decode', MeshtasticDecode, {
    credentials: {
      channels: { type: 'password' },
      ourNode: { type: 'text' },
      privateKey: { type: 'password' },
    },
  });
};
