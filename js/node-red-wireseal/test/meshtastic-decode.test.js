// The `meshtastic decode` node in a real Node-RED runtime (node-red with
// node-red-node-test-helper): envelopes from the repository's vectors (the
// table the gateway's and the npm package's tests use), credentials given
// the way the editor's deploy gives them, never in the flow.
'use strict';

const { test, before, after, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const helper = require('node-red-node-test-helper');
const decodeNode = require('../wireseal-meshtastic-decode.js');
const catchNode = require('@node-red/nodes/core/common/25-catch.js');

helper.init(require.resolve('node-red'));

const table = JSON.parse(
  fs.readFileSync(path.join(__dirname, '../../../vectors/meshtastic/firmware-json.json'), 'utf8'),
);
const find = (what) => table.vectors.find((x) => x.what.startsWith(what));
const envelope = (what) => Buffer.from(find(what).envelope, 'hex');
const DEFAULT_CHANNEL = 'channel packet decrypted with the first channel';
const DIRECT = 'PKC direct message we decrypt';
const OUR_NODE = `!${table.our_node.toString(16).padStart(8, '0')}`;

/** The node, a helper node on its output, a catch node for its errors. */
function flow(settings = {}) {
  return [
    { id: 'tab', type: 'tab', label: 'test' },
    {
      id: 'dec',
      z: 'tab',
      type: 'wireseal-meshtastic-decode',
      name: 'decode',
      output: 'record',
      signaturePolicy: 'compatible',
      wires: [['out']],
      ...settings,
    },
    { id: 'out', z: 'tab', type: 'helper' },
    { id: 'c1', z: 'tab', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'tab', type: 'helper' },
  ];
}

/** Every credential: both vector channels, our node and its key. */
const fullCredentials = () => ({
  dec: {
    channels: table.channels.join('\n'),
    ourNode: OUR_NODE,
    privateKey: table.our_private_hex,
  },
});

/** The next message `id` receives (rejects after `ms`). */
function next(id, ms = 5000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${id} received nothing`)), ms);
    helper.getNode(id).once('input', (msg) => {
      clearTimeout(timer);
      resolve(msg);
    });
  });
}

/** Resolves when `id` has received nothing for `ms`. */
function silence(id, ms = 300) {
  return new Promise((resolve, reject) => {
    const fail = (msg) => reject(new Error(`${id} received ${JSON.stringify(msg.payload)}`));
    helper.getNode(id).once('input', fail);
    setTimeout(() => {
      helper.getNode(id).off('input', fail);
      resolve();
    }, ms);
  });
}

before(() => new Promise((resolve) => helper.startServer(resolve)));
after(() => new Promise((resolve) => helper.stopServer(resolve)));
afterEach(() => helper.unload());

test('a channel packet under the default key: the record with its text', async () => {
  await helper.load([decodeNode, catchNode], flow(), { dec: { channels: 'LongFast=AQ==' } });
  const got = next('out');
  helper.getNode('dec').receive({ payload: envelope(DEFAULT_CHANNEL), topic: find(DEFAULT_CHANNEL).topic });
  const msg = await got;
  assert.equal(msg.payload.text, 'on the default channel');
  assert.equal(msg.payload.decryption, 'channel');
  assert.equal(msg.payload.channel_name, 'LongFast');
  assert.equal(msg.payload.from, 4110);
  assert.equal(msg.topic, find(DEFAULT_CHANNEL).topic, 'the rest of the message is kept');
});

test('no channels given: LongFast with the default key, as the gateway', async () => {
  await helper.load([decodeNode, catchNode], flow(), {});
  const got = next('out');
  helper.getNode('dec').receive({ payload: envelope(DEFAULT_CHANNEL) });
  assert.equal((await got).payload.text, 'on the default channel');
});

test('a Uint8Array payload works as a Buffer does', async () => {
  await helper.load([decodeNode, catchNode], flow(), {});
  const got = next('out');
  helper.getNode('dec').receive({ payload: new Uint8Array(envelope(DEFAULT_CHANNEL)) });
  assert.equal((await got).payload.text, 'on the default channel');
});

test('output "firmware-json": the 2.7 firmware object, a direct message to our node', async () => {
  await helper.load([decodeNode, catchNode], flow({ output: 'firmware-json' }), fullCredentials());
  const x = find(DIRECT);
  const got = next('out');
  helper.getNode('dec').receive({ payload: envelope(DIRECT) });
  const msg = await got;
  assert.deepEqual(msg.payload, { ...JSON.parse(x.json), ...x.extra });
  assert.equal(msg.payload.payload.text, 'a direct message');
  assert.equal(msg.payload.wireseal_our_node, '!0a0b0c0d');
});

test('output "firmware-json": every vector in order, nothing sent where the firmware published nothing', async () => {
  await helper.load([decodeNode, catchNode], flow({ output: 'firmware-json' }), fullCredentials());
  const dec = helper.getNode('dec');
  for (const x of table.vectors) {
    if (x.json === null) {
      const quiet = silence('out');
      dec.receive({ payload: Buffer.from(x.envelope, 'hex') });
      await quiet;
    } else {
      const got = next('out');
      dec.receive({ payload: Buffer.from(x.envelope, 'hex') });
      assert.deepEqual((await got).payload, { ...JSON.parse(x.json), ...x.extra }, x.what);
    }
  }
});

test('a malformed payload: node.error with the kind, caught with msg.error.code, a red status', async () => {
  await helper.load([decodeNode, catchNode], flow(), {});
  const dec = helper.getNode('dec');
  const statuses = [];
  dec.on('call:status', (call) => statuses.push(call.args[0]));
  const errored = new Promise((resolve) => dec.on('call:error', (call) => resolve(call)));
  const caught = next('caught');
  const quiet = silence('out');
  dec.receive({ payload: Buffer.from([0xff, 0xff, 0xff]), _marker: 1 });
  const call = await errored;
  assert.equal(call.args[0].kind, 'malformed', call.args[0].message);
  assert.match(call.args[0].message, new RegExp(`^${call.args[0].kind}: `));
  assert.equal(call.args[1]._marker, 1, 'the message is passed to node.error');
  const c = await caught;
  assert.equal(c.error.code, call.args[0].kind);
  assert.equal(c.error.source.id, 'dec');
  const s = statuses.at(-1);
  assert.equal(s.fill, 'red');
  assert.equal(s.text, call.args[0].kind);
  await quiet;
});

test('a truncated envelope, one over 1024 bytes and a string payload: malformed, too_long, invalid_input', async () => {
  await helper.load([decodeNode, catchNode], flow(), {});
  const dec = helper.getNode('dec');
  const kinds = [];
  dec.on('call:error', (call) => kinds.push(call.args[0].kind));
  const three = new Promise((resolve) => {
    let n = 0;
    helper.getNode('caught').on('input', () => (n += 1) === 3 && resolve());
  });
  dec.receive({ payload: envelope(DEFAULT_CHANNEL).subarray(0, 20) });
  dec.receive({ payload: Buffer.alloc(2048, 0x0a) });
  dec.receive({ payload: find(DEFAULT_CHANNEL).envelope });
  await three;
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(kinds, ['malformed', 'too_long', 'invalid_input']);
});

test('unusable credentials: an error with the kind and a red status, no output', async () => {
  await helper.load([decodeNode, catchNode], flow(), {
    dec: { channels: 'LongFast=AQ==', ourNode: OUR_NODE, privateKey: 'not a key' },
  });
  const dec = helper.getNode('dec');
  const errored = new Promise((resolve) => dec.on('call:error', (call) => resolve(call)));
  const quiet = silence('out');
  dec.receive({ payload: envelope(DEFAULT_CHANNEL) });
  const call = await errored;
  assert.equal(call.args[0].kind, 'invalid_key');
  assert.ok(!call.args[0].message.includes('not a key'), 'the key is not repeated');
  await quiet;
});

test('a channel PSK that does not parse: invalid_key naming the channel, never the PSK', async () => {
  await helper.load([decodeNode, catchNode], flow(), { dec: { channels: 'LongFast=AQ==\nOps=hex:zz0102' } });
  const dec = helper.getNode('dec');
  const errored = new Promise((resolve) => dec.on('call:error', (call) => resolve(call)));
  dec.receive({ payload: envelope(DEFAULT_CHANNEL) });
  const call = await errored;
  assert.equal(call.args[0].kind, 'invalid_key');
  assert.match(call.args[0].message, /^invalid_key: channel Ops: /);
  assert.ok(!call.args[0].message.includes('zz0102'));
});

test('the saved flow holds no channel key, node number or private key', async () => {
  await helper.load([decodeNode, catchNode], flow(), {});
  // A deploy as the editor sends it: the credentials inside the node.
  const deployed = flow({ output: 'firmware-json' });
  deployed[1].credentials = fullCredentials().dec;
  await helper.setFlows(deployed, 'full');
  const saved = JSON.stringify(helper._redNodes.getFlows().flows);
  for (const secret of [table.our_private_hex, 'hex:030405060708090a0b0c0d0e0f101112', 'AQ==', OUR_NODE]) {
    assert.ok(!saved.includes(secret), `the flow holds ${secret}`);
  }
  assert.ok(!saved.includes('"credentials"'));
  assert.ok(saved.includes('"output":"firmware-json"'), 'the settings are in the flow');
  // The credentials reached the node: it opens the direct message.
  const got = next('out');
  helper.getNode('dec').receive({ payload: envelope(DIRECT) });
  assert.equal((await got).payload.payload.text, 'a direct message');
});
