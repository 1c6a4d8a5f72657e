// `wireseal bench --section js`: the npm package `wireseal` against the
// same jobs composed by hand from @noble/* (pure JavaScript, audited) and
// from node:crypto (Node's OpenSSL), in one process, samples alternated
// (ours, noble, node:crypto, rotating who goes first), medians reported.
//
//   node bench.mjs [--full] [--only ID,ID...]
//
// prints one JSON object per workload on stdout (crates/wireseal-bench/src/js
// turns each into two rows: ours against @noble/*, ours against
// node:crypto):
//
//   { "id", "workload", "unit", "better": "lower" | "higher", "ours",
//     "peers": { "noble": { "name", "value" | "skipped", "note"? },
//                "node":  { ... } },
//     "note"?, "failed"?, "left_out"? }
//
// `left_out` says why a workload did not run (the package lacks its
// module); `failed`, that a check failed.
//
// Every contender's output is checked before it is timed (plaintexts,
// verdicts, bytes against the other contenders'); a mismatch is `failed`.
// `node bench.mjs --load ours|noble|node` is the child the load-time
// workload starts: it imports one side in a fresh process and prints the
// milliseconds until it is ready.
//
// It needs `wireseal` (the packed package) and the peers pinned in
// package.json in a node_modules folder above it.
import { performance } from 'node:perf_hooks';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import * as nc from 'node:crypto';

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};

// ---------------------------------------------------------------- load child

/** One side's import until ready, in a fresh process (the child's job). */
async function loadChild(side) {
  const key = new Uint8Array(32).fill(7);
  const t0 = performance.now();
  if (side === 'ours') {
    const { meshtastic } = await import('wireseal');
    meshtastic.publicKey(key);
  } else if (side === 'noble') {
    const [{ x25519 }] = await Promise.all([
      import('@noble/curves/ed25519.js'),
      import('@noble/curves/secp256k1.js'),
      import('@noble/ciphers/aes.js'),
      import('@noble/ciphers/chacha.js'),
      import('@noble/hashes/sha2.js'),
      import('@noble/hashes/hmac.js'),
      import('@noble/hashes/pbkdf2.js'),
    ]);
    x25519.getPublicKey(key);
  } else if (side === 'node') {
    const c = await import('node:crypto');
    c.createHash('sha256').update(key).digest();
  } else {
    throw new Error(`unknown side ${side}`);
  }
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - t0 })}\n`);
}

if (value('--load')) {
  await loadChild(value('--load'));
  process.exit(0);
}

// ---------------------------------------------------------------- harness

const FULL = flag('--full');
const ONLY = value('--only')?.split(',');
/** Milliseconds per measurement and contender, and samples per median. */
const BUDGET_MS = FULL ? 1500 : 600;
const SAMPLES = FULL ? 15 : 11;
/**
 * Calls each contender makes before it is measured: V8 compiles hot
 * functions again (JavaScript with TurboFan, and WebAssembly from its
 * baseline compiler to TurboFan, on a background thread), and on a busy
 * machine a short sample can land before that.
 */
const WARM_MS = FULL ? 300 : 100;
/** Whole-job samples (AES Crypt's large files, fresh processes). */
const JOB_SAMPLES = FULL ? 7 : 3;
const LOAD_SAMPLES = FULL ? 15 : 7;

const wireseal = await import('wireseal');
const { meshtastic, WiresealError } = wireseal;
const { x25519, ed25519 } = await import('@noble/curves/ed25519.js');
const { secp256k1 } = await import('@noble/curves/secp256k1.js');
const { ctr, cbc, ecb } = await import('@noble/ciphers/aes.js');
const { chacha20, chacha20poly1305 } = await import('@noble/ciphers/chacha.js');
const { sha256, sha512 } = await import('@noble/hashes/sha2.js');
const { hmac } = await import('@noble/hashes/hmac.js');
const { pbkdf2 } = await import('@noble/hashes/pbkdf2.js');
const { create, toBinary, fromBinary } = await import('@bufbuild/protobuf');
const { Mesh, Mqtt, Portnums } = await import('@meshtastic/protobufs');

/** A package's version, from the package.json beside one of its files. */
function versionOf(spec) {
  let dir = new URL('.', import.meta.resolve(spec));
  for (let i = 0; i < 4; i++, dir = new URL('..', dir)) {
    try {
      return JSON.parse(readFileSync(new URL('package.json', dir))).version;
    } catch {
      // keep climbing
    }
  }
  return '?';
}

const NOBLE = `@noble/* ${versionOf('@noble/curves/ed25519.js')}`;
const NODE = `node:crypto (OpenSSL ${process.versions.openssl})`;

/** Results the timed calls feed, so no call is dead code. */
let sink = 0;
const keep = (x) => {
  sink ^= typeof x === 'object' && x !== null ? (x.length ?? 1) : Number(x) | 0;
  return x;
};

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

/**
 * How many calls of `f` fill `ms` (grown 4x until a quarter, then scaled),
 * after `WARM_MS` of calls.
 */
function calibrate(f, ms) {
  for (const t0 = performance.now(); performance.now() - t0 < WARM_MS; ) keep(f());
  for (let n = 1; ; n *= 4) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) keep(f());
    const dt = performance.now() - t0;
    if (dt >= ms / 4) return Math.max(1, Math.ceil((n * ms) / Math.max(dt, 1e-3)));
  }
}

/**
 * Median milliseconds per call of each contender, sampled alternately (the
 * first contender rotates each round), every sample `budget / samples`
 * long.
 */
function alternate(fns) {
  const per = BUDGET_MS / SAMPLES;
  const ns = fns.map((f) => calibrate(f, per));
  const v = fns.map(() => []);
  for (let s = 0; s < SAMPLES; s++) {
    for (let k = 0; k < fns.length; k++) {
      const i = (s + k) % fns.length;
      const f = fns[i];
      const t0 = performance.now();
      for (let j = 0; j < ns[i]; j++) keep(f());
      v[i].push((performance.now() - t0) / ns[i]);
    }
  }
  return v.map(median);
}

/** Median milliseconds of whole jobs, alternated `JOB_SAMPLES` times. */
function alternateJobs(fns) {
  const v = fns.map(() => []);
  for (let s = 0; s < JOB_SAMPLES; s++) {
    for (let k = 0; k < fns.length; k++) {
      const i = (s + k) % fns.length;
      const t0 = performance.now();
      keep(fns[i]());
      v[i].push(performance.now() - t0);
    }
  }
  return v.map(median);
}

const hex = (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
const same = (a, b) => a.length === b.length && hex(a) === hex(b);
const check = (cond, what) => {
  if (!cond) throw new Error(`check failed: ${what}`);
};

const workloads = [];
/** Registers workload `id`; `run` returns its JSON object (minus the id). */
const workload = (id, run) => workloads.push({ id, run });

/** A workload this package cannot run (its module is not in it), and why. */
const leftOut = (workloadName, unit, why) => ({
  workload: workloadName,
  unit,
  better: 'lower',
  ours: 0,
  peers: {},
  left_out: why,
});

/** µs per op for the three contenders, as the object's figures. */
/**
 * The workload's object from milliseconds per op: `extra` names the peers
 * and adds notes; `nobleShort` is said when ours is short of its target
 * against @noble/* (2x), `nodeFaster` when node:crypto beats ours (its
 * target is 1x): why, in each case.
 */
function perOp(workloadName, [ours, noble, node], extra = {}) {
  const note = (always, why, theirs, target) =>
    [always, theirs < target * ours ? why : undefined].filter(Boolean).join('; ') || undefined;
  return {
    workload: workloadName,
    unit: 'µs',
    better: 'lower',
    ours: ours * 1e3,
    peers: {
      noble: {
        name: extra.nobleName ?? NOBLE,
        value: noble * 1e3,
        note: note(extra.nobleNote, extra.nobleShort, noble, 2),
      },
      node: {
        name: extra.nodeName ?? NODE,
        value: node * 1e3,
        note: note(extra.nodeNote, extra.nodeFaster, node, 1),
      },
    },
    note: extra.note,
  };
}

/** Why node:crypto's AES beats ours, and why ours is short of 2x noble's. */
const AES_NATIVE = 'native AES-NI in OpenSSL beats AES in wasm (no AES instructions in wasm)';
const AES_TABLES =
  "noble's T-table AES (not constant-time, as its README says) against the constant-time bitsliced AES in wasm (no AES instructions there)";
/** What an envelope decode does beyond the compositions. */
const RECORD =
  'ours also builds the whole record the gateway writes (18 fields here, from the library\'s tape), the compositions 7';
/** Where ours runs on node:crypto itself: the Node entry registers it under
 * the library's bulk primitives (wireseal::host; docs/javascript.md,
 * "Native primitives in Node"), from 1 KiB per call or stream. */
const HOST_NOTE = (what) => `ours in Node: ${what} through node:crypto (OpenSSL) under the library, which keeps every format rule`;
/** What a channel payload hands to node:crypto. */
const CTR_HOST = 'the CTR keystream\'s AES blocks (payloads of 128 B or more, one AES-ECB context per channel key; counters and XOR in the library)';

// ---------------------------------------------------------------- Meshtastic

/**
 * DER prefixes of raw X25519 / Ed25519 keys, for node:crypto KeyObjects.
 * A peer's X25519 key is imported from JWK instead: Node decodes that
 * itself in about 5 µs, where OpenSSL 3's DER decoder takes about 75 µs.
 */
const X25519_PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const ED25519_SPKI = Buffer.from('302a300506032b6570032100', 'hex');
const x25519Private = (raw) =>
  nc.createPrivateKey({ key: Buffer.concat([X25519_PKCS8, raw]), format: 'der', type: 'pkcs8' });
const x25519Public = (raw) =>
  nc.createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });

/** The PKC nonce: LE32(id) | extraNonce(4) | LE32(from) | 0. */
function pkcNonce(from, id, extra) {
  const n = new Uint8Array(13);
  const v = new DataView(n.buffer);
  v.setUint32(0, id, true);
  n.set(extra, 4);
  v.setUint32(8, from, true);
  return n;
}

/**
 * AES-256-CCM open (8-byte tag, 13-byte nonce, no associated data)
 * composed from @noble/ciphers' AES modes, which have no CCM: CBC-MAC with
 * `cbc` (zero IV) and the counter blocks with `ecb` and `ctr`, as RFC 3610
 * defines them. Returns the plaintext, or throws on a bad tag.
 */
function nobleCcmOpen(key, nonce, ct, tag) {
  const a0 = new Uint8Array(16);
  a0[0] = 1; // L - 1, L = 2
  a0.set(nonce, 1);
  const a1 = a0.slice();
  a1[15] = 1;
  const pt = ctr(key, a1).decrypt(ct);
  const padded = new Uint8Array(16 + Math.ceil(pt.length / 16) * 16);
  padded[0] = 0x19; // no AAD, M = 8, L = 2
  padded.set(nonce, 1);
  padded[14] = pt.length >> 8;
  padded[15] = pt.length & 0xff;
  padded.set(pt, 16);
  const macs = cbc(key, new Uint8Array(16), { disablePadding: true }).encrypt(padded);
  const s0 = ecb(key, { disablePadding: true }).encrypt(a0);
  let diff = 0;
  for (let i = 0; i < 8; i++) diff |= macs[macs.length - 16 + i] ^ s0[i] ^ tag[i];
  if (diff !== 0) throw new Error('ccm: bad tag');
  return pt;
}

/** The same open with node:crypto's aes-256-ccm. */
function nodeCcmOpen(key, nonce, ct, tag) {
  const d = nc.createDecipheriv('aes-256-ccm', key, nonce, { authTagLength: 8 });
  d.setAuthTag(tag);
  const pt = d.update(ct);
  d.final();
  return pt;
}

/** Splits a PKC payload: ciphertext, tag, extra nonce. */
function pkcParts(payload) {
  const n = payload.length;
  return [payload.subarray(0, n - 12), payload.subarray(n - 12, n - 4), payload.subarray(n - 4)];
}

/** `count` senders, each with one sealed 64-byte text to `ourPub`. */
function pkcTraffic(ourPub, count) {
  const msgs = [];
  for (let i = 0; i < count; i++) {
    const priv = meshtastic.generatePrivateKey();
    const engine = new meshtastic.PkcEngine(priv);
    const plaintext = nc.randomBytes(64);
    const from = 0x1000 + i;
    const id = 0x10000 + i;
    const payload = engine.seal(0, ourPub, from, id, plaintext);
    msgs.push({ pub: engine.publicKey, from, id, payload, plaintext });
  }
  return msgs;
}

function pkcContenders(ourPriv, msgs, cached) {
  const ours = new meshtastic.PkcEngine(ourPriv, { capacity: cached ? 64 : 1 });
  const nodePriv = x25519Private(Buffer.from(ourPriv));
  const nodeKeys = new Map();
  const nobleKeys = new Map();
  const nobleKey = (m) => sha256(x25519.getSharedSecret(ourPriv, m.pub));
  const nodeKey = (m) =>
    nc
      .createHash('sha256')
      .update(nc.diffieHellman({ privateKey: nodePriv, publicKey: x25519Public(Buffer.from(m.pub)) }))
      .digest();
  const open = {
    ours: (m) => ours.open(0, m.pub, m.from, m.id, m.payload),
    noble: (m) => {
      const [ct, tag, extra] = pkcParts(m.payload);
      let key;
      if (cached) {
        const k = hex(m.pub);
        key = nobleKeys.get(k);
        if (!key) nobleKeys.set(k, (key = nobleKey(m)));
      } else key = nobleKey(m);
      return nobleCcmOpen(key, pkcNonce(m.from, m.id, extra), ct, tag);
    },
    node: (m) => {
      const [ct, tag, extra] = pkcParts(m.payload);
      let key;
      if (cached) {
        const k = hex(m.pub);
        key = nodeKeys.get(k);
        if (!key) nodeKeys.set(k, (key = nodeKey(m)));
      } else key = nodeKey(m);
      return nodeCcmOpen(key, pkcNonce(m.from, m.id, extra), ct, tag);
    },
  };
  for (const m of msgs) {
    for (const [who, f] of Object.entries(open)) check(same(f(m), m.plaintext), `${who} opens the PKC message`);
  }
  const cycle = (f) => {
    let i = 0;
    return () => f(msgs[i++ % msgs.length]);
  };
  return { ours, fns: [cycle(open.ours), cycle(open.noble), cycle(open.node)] };
}

workload('meshtastic_pkc_uncached', () => {
  const ourPriv = meshtastic.generatePrivateKey();
  const msgs = pkcTraffic(meshtastic.publicKey(ourPriv), 64);
  const { ours, fns } = pkcContenders(ourPriv, msgs, false);
  // The floor under both Node rows: the agreement alone, as both make it.
  const nodePriv = x25519Private(Buffer.from(ourPriv));
  let i = 0;
  const agreement = () => {
    const m = msgs[i++ % msgs.length];
    return nc.diffieHellman({ privateKey: nodePriv, publicKey: x25519Public(m.pub) });
  };
  const [o, noble, node, floor] = alternate([...fns, agreement]);
  check(ours.cacheStats().hits === 0, 'every uncached open missed the cache');
  return perOp('Meshtastic PKC open, a new peer each time', [o, noble, node], {
    note: 'X25519 + SHA-256 + AES-256-CCM, 64 B; noble has no CCM: composed from its cbc/ecb/ctr',
    nodeNote: `${HOST_NOTE('X25519 (its private key held in a KeyObject)')}; OpenSSL's X25519 alone (a JWK import and diffieHellman): ${(floor * 1e3).toFixed(2)} µs`,
    nodeFaster: 'the same OpenSSL X25519 runs under ours',
  });
});

workload('meshtastic_pkc_cached', () => {
  const ourPriv = meshtastic.generatePrivateKey();
  // Eight peers talking repeatedly: every open after the first is a hit.
  const msgs = pkcTraffic(meshtastic.publicKey(ourPriv), 8);
  const uncached = pkcContenders(ourPriv, pkcTraffic(meshtastic.publicKey(ourPriv), 64), false);
  const { ours, fns } = pkcContenders(ourPriv, msgs, true);
  // Ours cached, noble uncached (what a first message costs there), node:crypto with
  // its derived keys in a Map; noble with a Map too, for the note.
  const [o, nobleUncached, nodeMap, nobleMap] = alternate([fns[0], uncached.fns[1], fns[2], fns[1]]);
  const s = ours.cacheStats();
  check(s.misses === msgs.length, `only the first open per peer missed (${s.misses} misses)`);
  return perOp('Meshtastic PKC open, a repeat peer (cached)', [o, nobleUncached, nodeMap], {
    nobleName: `${NOBLE}, uncached`,
    nobleNote: `target >= 20x; noble with its keys in a Map: ${(nobleMap * 1e3).toFixed(2)} µs`,
    nodeName: `${NODE}, keys in a Map`,
    nodeFaster: AES_NATIVE,
  });
});

/** Channel nonce: LE64(id) | LE32(from) | 0 (big-endian block counter). */
function channelNonce(from, id) {
  const n = new Uint8Array(16);
  const v = new DataView(n.buffer);
  v.setUint32(0, id, true);
  v.setUint32(8, from, true);
  return n;
}

workload('meshtastic_channel', () => {
  const psk = nc.randomBytes(32);
  const key = new meshtastic.ChannelKey(psk);
  const plaintext = nc.randomBytes(200);
  const from = 0x12345678;
  const id = 0x0bad0bad;
  const ct = key.encrypt(from, id, plaintext);
  const fns = [
    () => key.decrypt(from, id, ct),
    () => ctr(psk, channelNonce(from, id)).decrypt(ct),
    () => {
      const d = nc.createDecipheriv('aes-256-ctr', psk, channelNonce(from, id));
      return Buffer.concat([d.update(ct), d.final()]);
    },
  ];
  for (const f of fns) check(same(f(), plaintext), 'channel decrypt');
  return perOp('Meshtastic channel decrypt, AES-256-CTR 200 B', alternate(fns), {
    note: HOST_NOTE(CTR_HOST),
    nobleShort: `ours crosses into wasm and out to node:crypto for 13 AES blocks, against ${AES_TABLES}`,
    nodeFaster: 'the same OpenSSL AES runs under ours, which also crosses into wasm and back',
  });
});

workload('meshtastic_envelope', () => {
  const psk = nc.randomBytes(32);
  const decoder = new meshtastic.EnvelopeDecoder();
  decoder.addChannel('LongFast', psk);
  const text = new TextEncoder().encode('x'.repeat(180));
  const data = toBinary(
    Mesh.DataSchema,
    create(Mesh.DataSchema, { portnum: Portnums.PortNum.TEXT_MESSAGE_APP, payload: text }),
  );
  const from = 0x11223344;
  const id = 4242;
  const hash = meshtastic.channelHash('LongFast', psk);
  const packet = create(Mesh.MeshPacketSchema, {
    from,
    to: 0xffffffff,
    id,
    channel: hash,
    hopLimit: 3,
    hopStart: 3,
    payloadVariant: { case: 'encrypted', value: ctr(psk, channelNonce(from, id)).encrypt(data) },
  });
  const env = toBinary(
    Mqtt.ServiceEnvelopeSchema,
    create(Mqtt.ServiceEnvelopeSchema, { packet, channelId: 'LongFast', gatewayId: '!12345678' }),
  );
  // The composition: parse, pick the channel by name, decrypt, parse Data,
  // the record's fields (payload as hex, as ours gives it).
  const channels = new Map([['LongFast', psk]]);
  const compose = (decrypt) => () => {
    const e = fromBinary(Mqtt.ServiceEnvelopeSchema, env);
    const p = e.packet;
    const k = channels.get(e.channelId);
    if (!p || p.payloadVariant.case !== 'encrypted' || !k) throw new Error('not decodable');
    const d = fromBinary(Mesh.DataSchema, decrypt(k, channelNonce(p.from, p.id), p.payloadVariant.value));
    return {
      from: p.from,
      to: p.to,
      id: p.id,
      channel_id: e.channelId,
      gateway_id: e.gatewayId,
      portnum: d.portnum,
      payload_hex: hex(d.payload),
    };
  };
  const fns = [
    () => decoder.decode(1_700_000_000_000, env),
    compose((k, n, c) => ctr(k, n).decrypt(c)),
    compose((k, n, c) => {
      const d = nc.createDecipheriv('aes-256-ctr', k, n);
      return Buffer.concat([d.update(c), d.final()]);
    }),
  ];
  for (const f of fns) {
    const r = f();
    check(r.payload_hex === hex(text) && r.from === from && r.portnum === 1, 'envelope decode');
  }
  return perOp('Meshtastic envelope decode (protobuf+CTR+Data)', alternate(fns), {
    note: HOST_NOTE(CTR_HOST),
    nobleShort: RECORD,
    nodeFaster: `the same OpenSSL AES runs under ours; ${RECORD}`,
    nobleName: `${NOBLE} + @meshtastic/protobufs ${versionOf('@meshtastic/protobufs')}`,
    nodeName: `${NODE} + @meshtastic/protobufs`,
  });
});

/** XEdDSA's Edwards form of an X25519 key (sign bit 0): y = (u-1)/(u+1). */
function edwardsOf(montgomery) {
  const Fp = ed25519.Point.Fp;
  const m = montgomery.slice();
  m[31] &= 0x7f;
  let u = 0n;
  for (let i = 31; i >= 0; i--) u = (u << 8n) | BigInt(m[i]);
  u = Fp.create(u);
  return Fp.toBytes(Fp.div(Fp.sub(u, 1n), Fp.add(u, 1n)));
}

workload('meshtastic_xeddsa', () => {
  const priv = meshtastic.generatePrivateKey();
  const pub = meshtastic.publicKey(priv);
  const payload = nc.randomBytes(100);
  const [from, id, portnum] = [0x929, 7, 1];
  const sig = meshtastic.xeddsaSign(priv, from, id, portnum, payload);
  const message = new Uint8Array(12 + payload.length);
  const view = new DataView(message.buffer);
  view.setUint32(0, from, true);
  view.setUint32(4, id, true);
  view.setUint32(8, portnum, true);
  message.set(payload, 12);
  const fns = [
    () => meshtastic.xeddsaVerify(pub, from, id, portnum, payload, sig),
    () => ed25519.verify(sig, message, edwardsOf(pub)),
    () => {
      const key = nc.createPublicKey({
        key: Buffer.concat([ED25519_SPKI, edwardsOf(pub)]),
        format: 'der',
        type: 'spki',
      });
      return nc.verify(null, message, key, sig);
    },
  ];
  for (const f of fns) check(f() === true, 'the signature verifies');
  return perOp('Meshtastic XEdDSA verify', alternate(fns), {
    note: "X25519 key converted to Ed25519 on each call; the compositions convert with noble's field arithmetic",
    nodeFaster: 'native Ed25519 in OpenSSL',
  });
});

// ---------------------------------------------------------------- BIP324

const REKEY = 224;
const EMPTY = new Uint8Array(0);

/** A ChaCha20 nonce: LE32(low) || LE64(epoch). */
function bipNonce(low, epoch) {
  const n = new Uint8Array(12);
  const v = new DataView(n.buffer);
  v.setUint32(0, low, true);
  v.setBigUint64(4, BigInt(epoch), true);
  return n;
}

/**
 * One direction of BIP324's packet layer composed by hand from the BIP's
 * text: FSChaCha20 for the 3-byte length (an epoch's 704 keystream bytes
 * computed when it starts: 224 lengths, then the next key) and
 * FSChaCha20Poly1305 for header and contents, both rekeyed every 224
 * packets. `c`: `lengthStream(key, epoch)`, `seal(key, nonce, aad, pt)`,
 * `open(key, nonce, aad, ct)`. Sender and receiver are each one of these.
 */
function bip324Cipher(c, lengthKey, packetKey) {
  let [lKey, pKey, epoch, idx] = [lengthKey, packetKey, 0, 0];
  let stream = c.lengthStream(lKey, epoch);
  const advance = () => {
    if (++idx < REKEY) return;
    pKey = c.seal(pKey, bipNonce(0xffffffff, epoch), EMPTY, new Uint8Array(32)).subarray(0, 32);
    lKey = stream.slice(REKEY * 3, REKEY * 3 + 32);
    epoch += 1;
    idx = 0;
    stream = c.lengthStream(lKey, epoch);
  };
  return {
    skip: advance,
    seal(contents, aad = EMPTY, ignore = false) {
      const out = new Uint8Array(3 + 1 + contents.length + 16);
      const at = idx * 3;
      for (let i = 0; i < 3; i++) out[i] = ((contents.length >> (8 * i)) & 0xff) ^ stream[at + i];
      const pt = new Uint8Array(1 + contents.length);
      pt[0] = ignore ? 0x80 : 0;
      pt.set(contents, 1);
      out.set(c.seal(pKey, bipNonce(idx, epoch), aad, pt), 3);
      advance();
      return out;
    },
    open(packet, aad = EMPTY) {
      const at = idx * 3;
      let len = 0;
      for (let i = 0; i < 3; i++) len |= (packet[i] ^ stream[at + i]) << (8 * i);
      if (packet.length !== 3 + 1 + len + 16) throw new Error('bip324: bad length');
      const pt = c.open(pKey, bipNonce(idx, epoch), aad, packet.subarray(3));
      advance();
      return pt.subarray(1);
    },
  };
}

const nobleBip324 = {
  lengthStream: (key, epoch) => chacha20(key, bipNonce(0, epoch), new Uint8Array(REKEY * 3 + 32)),
  seal: (key, nonce, aad, pt) => chacha20poly1305(key, nonce, aad).encrypt(pt),
  open: (key, nonce, aad, ct) => chacha20poly1305(key, nonce, aad).decrypt(ct),
};
const nodeBip324 = {
  lengthStream: (key, epoch) => {
    const iv = new Uint8Array(16);
    iv.set(bipNonce(0, epoch), 4);
    return nc.createCipheriv('chacha20', key, iv).update(new Uint8Array(REKEY * 3 + 32));
  },
  seal: (key, nonce, aad, pt) => {
    const e = nc.createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
    e.setAAD(aad, { plaintextLength: pt.length });
    return Buffer.concat([e.update(pt), e.final(), e.getAuthTag()]);
  },
  open: (key, nonce, aad, ct) => {
    const d = nc.createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
    d.setAAD(aad, { plaintextLength: ct.length - 16 });
    d.setAuthTag(ct.subarray(ct.length - 16));
    return Buffer.concat([d.update(ct.subarray(0, ct.length - 16)), d.final()]);
  },
};

/** Both compositions against the BIP's packet encoding vectors. */
function checkBip324Vectors() {
  const text = readFileSync(BIP324_VECTORS, 'utf8');
  const [head, ...lines] = text.trim().split(/\r?\n/);
  const cols = head.split(',');
  const unhex = (h) => Uint8Array.from(Buffer.from(h, 'hex'));
  for (const line of lines) {
    const v = Object.fromEntries(line.split(',').map((x, i) => [cols[i], x]));
    const side = v.in_initiating === '1' ? 'initiator' : 'responder';
    const one = unhex(v.in_contents);
    const contents = new Uint8Array(one.length * Number(v.in_multiply));
    for (let i = 0; i < Number(v.in_multiply); i++) contents.set(one, i * one.length);
    for (const [who, c] of [['noble', nobleBip324], ['node:crypto', nodeBip324]]) {
      const cipher = bip324Cipher(c, unhex(v[`mid_${side}_l`]), unhex(v[`mid_${side}_p`]));
      for (let i = 0; i < Number(v.in_idx); i++) cipher.skip();
      const out = hex(cipher.seal(contents, unhex(v.in_aad), v.in_ignore === '1'));
      const ok = v.out_ciphertext ? out === v.out_ciphertext : out.endsWith(v.out_ciphertext_endswith);
      check(ok, `${who}'s BIP324 composition matches the BIP's vector ${v.in_idx}`);
    }
  }
}

/** The BIP's packet vectors: `$WIRESEAL_BIP324_VECTORS` (the Rust side
 * writes them beside this script), else the checkout's. */
const BIP324_VECTORS =
  process.env.WIRESEAL_BIP324_VECTORS ??
  new URL('../../vectors/bip324/packet_encoding_test_vectors.csv', import.meta.url);

function bip324Workload(size) {
  const { bip324 } = wireseal;
  if (typeof bip324?.Connection !== 'function') {
    return leftOut(`BIP324 packet seal + open, ${size} B`, 'µs', 'this package has no bip324.Connection');
  }
  checkBip324Vectors();
  const a = new bip324.Connection('initiator');
  const b = new bip324.Connection('responder');
  for (let i = 0; i < 10 && !(a.established && b.established); i++) {
    b.receiveData(a.dataToSend());
    a.receiveData(b.dataToSend());
  }
  check(a.established && b.established, 'the handshake completes');
  const [lKey, pKey] = [nc.randomBytes(32), nc.randomBytes(32)];
  const pair = (c) => [bip324Cipher(c, lKey, pKey), bip324Cipher(c, lKey, pKey)];
  const [ns, nr] = pair(nobleBip324);
  const [cs, cr] = pair(nodeBip324);
  const contents = nc.randomBytes(size);
  const fns = [
    () => {
      a.send(contents);
      return b.receiveData(a.dataToSend())[0];
    },
    () => nr.open(ns.seal(contents)),
    () => cr.open(cs.seal(contents)),
  ];
  for (const f of fns) check(same(f(), contents), 'the packet opens to its contents');
  const label = size >= 1024 ? `${size >> 10} KiB` : `${size} B`;
  const native = size >= 1024;
  return perOp(`BIP324 packet seal + open, ${label}`, alternate(fns), {
    note: [
      'ours: two Connections after a handshake; compositions checked against the BIP\'s packet vectors',
      native ? HOST_NOTE('ChaCha20-Poly1305 (packets of 1 KiB or more)') : 'ours: ChaCha20-Poly1305 in wasm (under 1 KiB)',
    ].join('; '),
    nodeFaster: native
      ? 'the same OpenSSL ChaCha20-Poly1305 runs under ours; ours also copies the packet across the JS/wasm boundary (send, dataToSend, receiveData)'
      : "OpenSSL's vectorised ChaCha20-Poly1305 (native SIMD) beats wasm's",
    nobleShort:
      "noble's JIT-compiled ChaCha20-Poly1305 is quick on bulk (the wasm is built without simd128; contents cross the JS/wasm boundary in send, dataToSend and receiveData)",
  });
}

workload('bip324_packet_small', () => bip324Workload(256));
workload('bip324_packet_large', () => bip324Workload(64 << 10));

// ---------------------------------------------------------------- Sphinx

/** Hops and payload area of the Sphinx workload (a payment onion). */
const SPHINX_HOPS = 20;
const SPHINX_AREA = 1300;

/**
 * A BOLT #4 payment onion over `hops` ([{ pub, payload }]) composed by
 * hand, as a careful user writes it from the spec: the ephemeral keys
 * blinded hop by hop (linear), the filler, the backwards wrap. `c` gives
 * the primitives: `ecdh(priv, pub)` (SHA-256 of the compressed point),
 * `pub(priv)`, `hmac(key, msg)`, `sha256(msg)`, `stream(key, len)`
 * (ChaCha20, zero nonce).
 */
function sphinxBuild(c, sessionKey, hops, assoc) {
  const Fn = secp256k1.Point.Fn;
  const te = new TextEncoder();
  const [RHO, MU, PAD] = ['rho', 'mu', 'pad'].map((k) => te.encode(k));
  const secrets = [];
  let e = sessionKey;
  let firstPub;
  for (let i = 0; i < hops.length; i++) {
    const ePub = c.pub(e);
    if (i === 0) firstPub = ePub;
    const ss = c.ecdh(e, hops[i].pub);
    secrets.push(ss);
    if (i + 1 < hops.length) {
      const b = c.sha256(Buffer.concat([ePub, ss]));
      e = Fn.toBytes(Fn.mul(Fn.fromBytes(e), Fn.create(bytesToBig(b))));
    }
  }
  const size = (h) => 1 + h.payload.length + 32; // one-byte bigsize below 253
  let filler = new Uint8Array(0);
  for (let i = 0; i < hops.length - 1; i++) {
    let start = SPHINX_AREA;
    for (let j = 0; j < i; j++) start -= size(hops[j]);
    const end = SPHINX_AREA + size(hops[i]);
    const stream = c.stream(c.hmac(RHO, secrets[i]), 2 * SPHINX_AREA);
    const f = new Uint8Array(filler.length + size(hops[i]));
    f.set(filler);
    for (let k = 0; k < f.length; k++) f[k] ^= stream[start + k];
    filler = f;
    check(end - start === f.length, 'filler length');
  }
  let area = c.stream(c.hmac(PAD, sessionKey), SPHINX_AREA);
  let next = new Uint8Array(32);
  for (let i = hops.length - 1; i >= 0; i--) {
    const h = hops[i];
    const shifted = new Uint8Array(SPHINX_AREA);
    shifted[0] = h.payload.length;
    shifted.set(h.payload, 1);
    shifted.set(next, 1 + h.payload.length);
    shifted.set(area.subarray(0, SPHINX_AREA - size(h)), size(h));
    const rho = c.stream(c.hmac(RHO, secrets[i]), SPHINX_AREA);
    for (let k = 0; k < SPHINX_AREA; k++) shifted[k] ^= rho[k];
    if (i === hops.length - 1) shifted.set(filler, SPHINX_AREA - filler.length);
    area = shifted;
    next = c.hmac(c.hmac(MU, secrets[i]), Buffer.concat([area, assoc]));
  }
  const onion = new Uint8Array(1 + 33 + SPHINX_AREA + 32);
  onion.set(firstPub, 1);
  onion.set(area, 34);
  onion.set(next, 34 + SPHINX_AREA);
  return { onion, sharedSecrets: secrets };
}

function bytesToBig(b) {
  let x = 0n;
  for (const v of b) x = (x << 8n) | BigInt(v);
  return x;
}

const ZERO_NONCE = new Uint8Array(12);
const nobleSphinx = {
  ecdh: (priv, pub) => sha256(secp256k1.getSharedSecret(priv, pub, true)),
  pub: (priv) => secp256k1.getPublicKey(priv, true),
  hmac: (key, msg) => hmac(sha256, key, msg),
  sha256,
  stream: (key, len) => chacha20(key, ZERO_NONCE, new Uint8Array(len)),
};
const nodeSphinx = {
  // node:crypto's ECDH gives x alone, and BOLT #4 hashes the compressed
  // point: the point multiplications stay with @noble/curves.
  ecdh: (priv, pub) => nc.createHash('sha256').update(secp256k1.getSharedSecret(priv, pub, true)).digest(),
  pub: (priv) => {
    const ecdh = nc.createECDH('secp256k1');
    ecdh.setPrivateKey(priv);
    return ecdh.getPublicKey(null, 'compressed');
  },
  hmac: (key, msg) => nc.createHmac('sha256', key).update(msg).digest(),
  sha256: (msg) => nc.createHash('sha256').update(msg).digest(),
  stream: (key, len) => nc.createCipheriv('chacha20', key, new Uint8Array(16)).update(new Uint8Array(len)),
};

workload('sphinx_build', () => {
  const { sphinx } = wireseal;
  const nodes = Array.from({ length: SPHINX_HOPS }, () => secp256k1.utils.randomSecretKey());
  // Each hop's payload a TLV stream: amt_to_forward, outgoing_cltv_value,
  // short_channel_id (26 bytes).
  const hops = nodes.map((k, i) => ({
    pub: secp256k1.getPublicKey(k, true),
    payload: Uint8Array.from([2, 8, 0, 0, 0, 0, 0, 1, 0x86, 0xa0 + i, 4, 4, 0, 0, 0x90, i, 6, 8, 0, 0, 1, 0, 0, 2, 0, i]),
  }));
  const pairs = hops.map((h) => [h.pub, h.payload]);
  const assoc = nc.randomBytes(32);
  const newKey = () => secp256k1.utils.randomSecretKey();
  const fns = [
    () => sphinx.build(pairs, assoc),
    () => sphinxBuild(nobleSphinx, newKey(), hops, assoc),
    () => sphinxBuild(nodeSphinx, newKey(), hops, assoc),
  ];
  // Every onion peels hop by hop (with ours) to its payloads, and each
  // hop's shared secret is the one its builder reports.
  for (const f of fns) {
    const built = f();
    let onion = built.onion;
    for (let i = 0; i < SPHINX_HOPS; i++) {
      const p = sphinx.peel(nodes[i], onion, assoc);
      check(same(p.payload, hops[i].payload), `hop ${i} payload`);
      check(same(p.sharedSecret, built.sharedSecrets[i]), `hop ${i} shared secret`);
      check(p.isFinal === (i === SPHINX_HOPS - 1), `hop ${i} finality`);
      onion = p.nextOnion;
    }
  }
  return perOp(`Sphinx ${SPHINX_HOPS}-hop payment onion build`, alternate(fns), {
    note: 'fresh session key each; ephemeral keys blinded hop by hop; every onion checked by peeling it',
    nodeName: `${NODE} + @noble/curves points`,
    nodeNote: "node:crypto's ECDH gives x alone (BOLT #4 hashes the compressed point): the points via @noble/curves",
  });
});

// ---------------------------------------------------------------- AES Crypt

const AESCRYPT_MIB = 64;

/**
 * Decrypts an AES Crypt version 3 stream composed by hand: the header,
 * PBKDF2-HMAC-SHA512 over the password, the session block's HMAC-SHA256
 * then AES-256-CBC, the body's HMAC-SHA256 checked before its AES-256-CBC
 * (PKCS#7) is decrypted. `c`: `pbkdf2(pw, salt, n)`, `hmac(key, ...parts)`,
 * `cbcRaw(key, iv, ct)`, `cbcPkcs7(key, iv, ct)`, `equal(a, b)`.
 */
function aescryptV3Decrypt(c, password, file) {
  const v = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (file[0] !== 0x41 || file[1] !== 0x45 || file[2] !== 0x53 || file[3] !== 3) throw new Error('not v3');
  const at = kdfOffset(file);
  const iterations = v.getUint32(at);
  const iv = file.subarray(at + 4, at + 20);
  const block = file.subarray(at + 20, at + 68);
  const blockTag = file.subarray(at + 68, at + 100);
  const body = file.subarray(at + 100, file.length - 32);
  const tag = file.subarray(file.length - 32);
  const key = c.pbkdf2(new TextEncoder().encode(password), iv, iterations);
  if (!c.equal(c.hmac(key, block, Uint8Array.of(3)), blockTag)) throw new Error('wrong password');
  const session = c.cbcRaw(key, iv, block);
  const sessionKey = session.subarray(16, 48);
  if (!c.equal(c.hmac(sessionKey, body), tag)) throw new Error('body hmac');
  return c.cbcPkcs7(sessionKey, session.subarray(0, 16), body);
}

const nobleAescrypt = {
  pbkdf2: (pw, salt, c) => pbkdf2(sha512, pw, salt, { c, dkLen: 32 }),
  hmac: (key, ...parts) => {
    const h = hmac.create(sha256, key);
    for (const p of parts) h.update(p);
    return h.digest();
  },
  cbcRaw: (key, iv, ct) => cbc(key, iv, { disablePadding: true }).decrypt(ct),
  cbcPkcs7: (key, iv, ct) => cbc(key, iv).decrypt(ct),
  equal: (a, b) => a.length === b.length && a.every((x, i) => x === b[i]),
};
const nodeAescrypt = {
  pbkdf2: (pw, salt, c) => nc.pbkdf2Sync(pw, salt, c, 32, 'sha512'),
  hmac: (key, ...parts) => {
    const h = nc.createHmac('sha256', key);
    for (const p of parts) h.update(p);
    return h.digest();
  },
  cbcRaw: (key, iv, ct) => {
    const d = nc.createDecipheriv('aes-256-cbc', key, iv).setAutoPadding(false);
    return Buffer.concat([d.update(ct), d.final()]);
  },
  cbcPkcs7: (key, iv, ct) => {
    const d = nc.createDecipheriv('aes-256-cbc', key, iv);
    return Buffer.concat([d.update(ct), d.final()]);
  },
  equal: (a, b) => a.length === b.length && nc.timingSafeEqual(a, b),
};

workload('aescrypt_decrypt', () => {
  const { aescrypt } = wireseal;
  const password = 'correct horse battery staple';
  const plaintext = nc.randomBytes(AESCRYPT_MIB << 20);
  const file = aescrypt.encrypt(password, plaintext, { version: 3 });
  const fns = [
    () => aescrypt.decrypt(password, file),
    () => aescryptV3Decrypt(nobleAescrypt, password, file),
    () => aescryptV3Decrypt(nodeAescrypt, password, file),
  ];
  for (const f of fns) check(Buffer.compare(f(), plaintext) === 0, 'the file decrypts to its plaintext');
  const iterations = new DataView(file.buffer, file.byteOffset).getUint32(kdfOffset(file));
  const [ours, noble, node] = alternateJobs(fns);
  const mb = (AESCRYPT_MIB << 20) / 1e6;
  const rate = (ms) => mb / (ms / 1e3);
  return {
    workload: `AES Crypt v3 decrypt, ${AESCRYPT_MIB} MiB`,
    unit: 'MB/s',
    better: 'higher',
    ours: rate(ours),
    peers: {
      noble: { name: NOBLE, value: rate(noble), note: noble < ours ? AES_TABLES : undefined },
      node: {
        name: NODE,
        value: rate(node),
        note: node < ours
          ? 'the same OpenSSL primitives run under ours; ours also copies the body across the JS/wasm boundary and into 1 MiB pieces'
          : undefined,
      },
    },
    note: `whole file in memory: PBKDF2-HMAC-SHA512 (${iterations} rounds), HMAC-SHA256 then AES-256-CBC of the body; ${HOST_NOTE('PBKDF2, HMAC-SHA256 and AES-256-CBC')}`,
  };
});

/** Where a v3 header's iteration count sits (after its extensions). */
function kdfOffset(file) {
  const v = new DataView(file.buffer, file.byteOffset, file.byteLength);
  let at = 5;
  for (;;) {
    const n = v.getUint16(at);
    at += 2 + n;
    if (n === 0) return at;
  }
}

// ---------------------------------------------------------------- size, load

/** Files an ES module imports, followed statically (noble's and ours). */
function importGraph(entries) {
  const seen = new Set();
  const todo = entries.map((e) => import.meta.resolve(e));
  const re = /(?:^|[;\s])(?:import|export)\s*(?:[\w*{}\s,$]*?\sfrom\s*)?['"]([^'"]+)['"]/g;
  while (todo.length) {
    const url = todo.pop();
    if (seen.has(url) || !url.startsWith('file:')) continue;
    seen.add(url);
    const text = readFileSync(new URL(url), 'utf8');
    for (const m of text.matchAll(re)) {
      const spec = m[1];
      if (spec.startsWith('node:')) continue;
      todo.push(spec.startsWith('.') ? new URL(spec, url).href : import.meta.resolve(spec));
    }
  }
  return [...seen];
}

const gzipBytes = (url) => gzipSync(readFileSync(new URL(url)), { level: 9 }).length;

workload('package_size', () => {
  const ours = importGraph(['wireseal']);
  const wasm = new URL('../wasm/wireseal_wasm_bg.wasm', import.meta.resolve('wireseal')).href;
  const wasmGz = gzipBytes(wasm);
  const oursGz = wasmGz + ours.reduce((s, f) => s + gzipBytes(f), 0);
  const noble = importGraph([
    '@noble/curves/ed25519.js',
    '@noble/curves/secp256k1.js',
    '@noble/ciphers/aes.js',
    '@noble/ciphers/chacha.js',
    '@noble/hashes/sha2.js',
    '@noble/hashes/hmac.js',
    '@noble/hashes/pbkdf2.js',
  ]);
  const nobleGz = noble.reduce((s, f) => s + gzipBytes(f), 0);
  return {
    workload: 'package size: files import loads, gzip -9',
    unit: 'bytes',
    better: 'lower',
    ours: oursGz,
    peers: {
      noble: {
        name: `${NOBLE} curves+ciphers+hashes (${noble.length} files)`,
        value: nobleGz,
        note: `ours: .wasm ${wasmGz} B + ${ours.length} JS files; noble's ESM as shipped (unminified)`,
      },
      node: { name: NODE, skipped: 'built into Node: nothing to download' },
    },
    wasm_gzip: wasmGz,
  };
});

workload('package_load', () => {
  const script = fileURLToPath(import.meta.url);
  const sides = ['ours', 'noble', 'node'];
  const v = sides.map(() => []);
  const once = (side) => {
    const r = spawnSync(process.execPath, [script, '--load', side], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`load ${side}: ${r.stderr.trim().split('\n').pop()}`);
    return JSON.parse(r.stdout.trim().split('\n').pop()).ms;
  };
  sides.forEach(once); // warm the file cache
  for (let s = 0; s < LOAD_SAMPLES; s++) {
    for (let k = 0; k < sides.length; k++) {
      const i = (s + k) % sides.length;
      v[i].push(once(sides[i]));
    }
  }
  const [ours, noble, node] = v.map(median);
  return {
    workload: 'package load: fresh node, import until ready',
    unit: 'ms',
    better: 'lower',
    ours,
    peers: {
      noble: { name: `${NOBLE} curves+ciphers+hashes`, value: noble, note: 'each side imports, then makes one call (wasm compiled; noble\'s tables built lazily)' },
      node: { name: `${NODE}, import + one hash`, value: node, note: 'built into Node: already loaded' },
    },
  };
});

// ---------------------------------------------------------------- main

for (const { id, run } of workloads) {
  if (ONLY && !ONLY.includes(id)) continue;
  let out;
  try {
    out = { id, ...run() };
  } catch (e) {
    const kind = e instanceof WiresealError ? ` (${e.kind})` : '';
    out = { id, workload: id, unit: '-', better: 'lower', ours: 0, peers: {}, failed: `${e.message}${kind}` };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
// The sink is read once, so the timed calls' results are live.
if (sink === 0.5) process.stderr.write('');
