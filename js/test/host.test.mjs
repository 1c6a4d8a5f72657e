// Node's native primitives under the library's bulk crypto (init-node.js
// registers node:crypto; the library hands it AES-256-CBC, HMAC-SHA256,
// ChaCha20-Poly1305 and PBKDF2 above its thresholds, and every X25519
// agreement): large inputs take
// the host path (the tests' build counts the calls), give the bytes the
// WebAssembly path gives (the same file or packet made both ways, in one
// process) and that @noble/* reads independently; small inputs and the
// browser entry stay in WebAssembly; tampering still fails with `auth`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecipheriv } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cbc, ctr } from '@noble/ciphers/aes.js';
import { chacha20, chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { x25519 } from '@noble/curves/ed25519.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { WiresealError } from 'wireseal';
import * as aescrypt from 'wireseal/aescrypt';
import { PacketCipher } from 'wireseal/bip324';
import { ChannelKey, EnvelopeDecoder, PkcEngine, generatePrivateKey } from 'wireseal/meshtastic';
import { channelNonce } from './support.mjs';

// The module's glue, inside the one file the package's entries import (the
// same module instance): the tests' build adds hostCryptoActive /
// hostCryptoCalls / hostCryptoPause beside setHostCrypto, none of them in
// the package's API.
const glueUrl = new URL('../wireseal.js', import.meta.resolve('wireseal'));
const glue = await import(glueUrl.href);

const kind = (k) => (e) => {
  assert.ok(e instanceof WiresealError, `not a WiresealError: ${e}`);
  assert.equal(e.kind, k, e.message);
  return true;
};

/** Deterministic bytes (xorshift32). */
function bytes(n, seed) {
  let s = seed >>> 0 || 1;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = s & 0xff;
  }
  return out;
}

const same = (a, b) => Buffer.from(a).equals(Buffer.from(b));

/** The calls made to the host during `f`, per operation. */
function hostCalls(f) {
  const before = glue.hostCryptoCalls();
  const result = f();
  const after = glue.hostCryptoCalls();
  const delta = Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
  return [result, delta];
}

/** `f` run on the WebAssembly path (the host paused), then resumed. */
function wasmOnly(f) {
  glue.hostCryptoPause(true);
  try {
    return f();
  } finally {
    glue.hostCryptoPause(false);
  }
}

const NONE = { cbcEncrypt: 0, cbcDecrypt: 0, hmac: 0, aeadSeal: 0, aeadOpen: 0, pbkdf2: 0, aesBlocks: 0, x25519: 0 };

// ---- AES Crypt version 3 read by @noble/* (the format, transcribed) ----

function nobleAescryptV3(password, file) {
  const v = new DataView(file.buffer, file.byteOffset, file.byteLength);
  assert.deepEqual([...file.subarray(0, 4)], [0x41, 0x45, 0x53, 3]);
  let at = 5;
  for (;;) {
    const n = v.getUint16(at);
    at += 2 + n;
    if (n === 0) break;
  }
  const iterations = v.getUint32(at);
  const iv = file.subarray(at + 4, at + 20);
  const block = file.subarray(at + 20, at + 68);
  const blockTag = file.subarray(at + 68, at + 100);
  const body = file.subarray(at + 100, file.length - 32);
  const tag = file.subarray(file.length - 32);
  const key = pbkdf2(sha512, utf8ToBytes(password), iv, { c: iterations, dkLen: 32 });
  assert.ok(same(hmac(sha256, key, concatBytes(block, Uint8Array.of(3))), blockTag), 'session block HMAC');
  const session = cbc(key, iv, { disablePadding: true }).decrypt(block);
  const sessionKey = session.subarray(16, 48);
  assert.ok(same(hmac(sha256, sessionKey, body), tag), 'body HMAC');
  return cbc(sessionKey, session.subarray(0, 16)).decrypt(body);
}

const PASSWORD = 'correct horse battery staple';
// 1 MiB and a bit: one library chunk through the host, the last block in
// WebAssembly (the CBC chain handed back).
const BIG = bytes((1 << 20) + 100, 1);
const MATERIAL = [bytes(16, 2), bytes(16, 3), bytes(32, 4)];

test('the Node entry registers node:crypto under the bulk primitives', () => {
  assert.equal(glue.hostCryptoActive(), true);
  assert.equal(wasmOnly(() => glue.hostCryptoActive()), false);
  assert.equal(glue.hostCryptoActive(), true);
});

test('a large AES Crypt file: host path, the same bytes as WebAssembly, read by @noble', () => {
  const make = () => aescrypt.encryptWithMaterial(PASSWORD, BIG, ...MATERIAL, { version: 3, iterations: 1000 });
  const [viaHost, enc] = hostCalls(make);
  assert.ok(enc.cbcEncrypt >= 1 && enc.hmac >= 1 && enc.pbkdf2 >= 1, JSON.stringify(enc));
  const [viaWasm, encWasm] = hostCalls(() => wasmOnly(make));
  assert.deepEqual(encWasm, NONE);
  assert.ok(same(viaHost, viaWasm), 'the same file both ways');
  assert.ok(same(nobleAescryptV3(PASSWORD, viaHost), BIG), '@noble reads it');

  const [plain, dec] = hostCalls(() => aescrypt.decrypt(PASSWORD, viaHost));
  assert.ok(dec.cbcDecrypt >= 1 && dec.hmac >= 1 && dec.pbkdf2 >= 1, JSON.stringify(dec));
  assert.ok(same(plain, BIG));
  const [plainWasm, decWasm] = hostCalls(() => wasmOnly(() => aescrypt.decrypt(PASSWORD, viaHost)));
  assert.deepEqual(decWasm, NONE);
  assert.ok(same(plainWasm, BIG));
});

test('AES Crypt in odd pieces: HMAC held back then moved, CBC alternating host and WebAssembly', () => {
  const pieces = [5, 1000, 17, 3000, 70_000, 1 << 20, 333];
  const pt = bytes(pieces.reduce((a, b) => a + b), 5);
  const encryptInPieces = () => {
    const e = new aescrypt.Encryptor(PASSWORD, { version: 3, iterations: 100 });
    const out = [];
    let at = 0;
    for (const n of pieces) {
      out.push(e.update(pt.subarray(at, at + n)));
      at += n;
    }
    out.push(e.finish());
    return concatBytes(...out);
  };
  const [file, enc] = hostCalls(encryptInPieces);
  assert.ok(enc.cbcEncrypt >= 1 && enc.hmac >= 1, JSON.stringify(enc));
  assert.ok(same(nobleAescryptV3(PASSWORD, file), pt), '@noble reads it');

  const decryptInPieces = (f) => {
    const d = new aescrypt.Decryptor(PASSWORD);
    let at = 0;
    for (const n of [...pieces, 200, 48]) {
      d.update(f.subarray(at, at + n));
      at += n;
    }
    d.update(f.subarray(at));
    return d.finish();
  };
  const [plain, dec] = hostCalls(() => decryptInPieces(file));
  assert.ok(dec.cbcDecrypt >= 1 && dec.hmac >= 1, JSON.stringify(dec));
  assert.ok(same(plain, pt));
  assert.ok(same(wasmOnly(() => decryptInPieces(file)), pt));
  // A file made in WebAssembly reads through the host.
  const fromWasm = wasmOnly(encryptInPieces);
  assert.ok(same(aescrypt.decrypt(PASSWORD, fromWasm), pt));
});

test('a tampered large AES Crypt file fails with auth through the host, a wrong password too', () => {
  const file = aescrypt.encrypt(PASSWORD, BIG, { version: 3, iterations: 1000 });
  for (const at of [file.length - 5000, file.length - 40, file.length - 1]) {
    const bad = file.slice();
    bad[at] ^= 1;
    const [, calls] = hostCalls(() => assert.throws(() => aescrypt.decrypt(PASSWORD, bad), kind('auth')));
    assert.ok(calls.cbcDecrypt + calls.hmac >= 1, `byte ${at}: ${JSON.stringify(calls)}`);
  }
  assert.throws(() => aescrypt.decrypt('wrong', file), kind('auth'));
  const streamed = new aescrypt.Decryptor(PASSWORD);
  const bad = file.slice();
  bad[file.length - 40] ^= 1;
  streamed.update(bad);
  assert.throws(() => streamed.finish(), kind('auth'));
});

// ---- BIP324 packets ----

function bip324Keys(shared) {
  const salt = concatBytes(utf8ToBytes('bitcoin_v2_shared_secret'), Uint8Array.of(0xf9, 0xbe, 0xb4, 0xd9));
  const expand = (info) => hkdf(sha256, shared, salt, utf8ToBytes(info), 32);
  return { L: expand('initiator_L'), P: expand('initiator_P') };
}

test('a 64 KiB BIP324 packet: host path, the same bytes as WebAssembly, opened by @noble', () => {
  const shared = bytes(32, 6);
  const contents = bytes(64 << 10, 7);
  const aad = utf8ToBytes('garbage');
  const seal = () => new PacketCipher(shared, 'initiator').seal(contents, { aad });
  const [packet, s] = hostCalls(seal);
  assert.deepEqual(s, { ...NONE, aeadSeal: 1 });
  const [packetWasm, sWasm] = hostCalls(() => wasmOnly(seal));
  assert.deepEqual(sWasm, NONE);
  assert.ok(same(packet, packetWasm), 'the same packet both ways');

  // @noble: the length under ChaCha20 (initiator_L), the header and
  // contents under ChaCha20-Poly1305 (initiator_P), first nonce.
  const k = bip324Keys(shared);
  const zero = new Uint8Array(12);
  const len = chacha20(k.L, zero, packet.slice(0, 3));
  assert.equal(len[0] | (len[1] << 8) | (len[2] << 16), contents.length);
  const opened = chacha20poly1305(k.P, zero, aad).decrypt(packet.slice(3));
  assert.ok(same(opened, concatBytes(Uint8Array.of(0), contents)));

  const [[got, decoy, used], o] = hostCalls(() => new PacketCipher(shared, 'responder').open(packet, { aad }));
  assert.deepEqual(o, { ...NONE, aeadOpen: 1 });
  assert.ok(same(got, contents));
  assert.deepEqual([decoy, used], [false, packet.length]);
  const [gotWasm] = wasmOnly(() => new PacketCipher(shared, 'responder').open(packet, { aad }));
  assert.ok(same(gotWasm, contents));
});

test('a tampered 64 KiB BIP324 packet fails with auth through the host', () => {
  const shared = bytes(32, 8);
  const contents = bytes(64 << 10, 9);
  const packet = new PacketCipher(shared, 'initiator').seal(contents);
  for (const at of [3, 1000, packet.length - 20, packet.length - 1]) {
    const bad = packet.slice();
    bad[at] ^= 0x40;
    const [, calls] = hostCalls(() =>
      assert.throws(() => new PacketCipher(shared, 'responder').open(bad), kind('auth')),
    );
    assert.deepEqual(calls, { ...NONE, aeadOpen: 1 }, `byte ${at}`);
  }
  // The wrong associated data too.
  assert.throws(
    () => new PacketCipher(shared, 'responder').open(packet, { aad: Uint8Array.of(1) }),
    kind('auth'),
  );
});

// ---- Meshtastic channel packets: the CTR keystream's blocks ----

test('channel packets from 128 bytes: keystream blocks from the host, the bytes of WebAssembly and @noble', () => {
  const [from, id] = [0x11223344, 0xfffffff0];
  for (const psk of [bytes(32, 21), bytes(16, 22)]) {
    const key = new ChannelKey(psk);
    // Made while the host is paused: a key the host never saw.
    const wasmKey = wasmOnly(() => new ChannelKey(psk));
    for (const n of [0, 100, 127, 128, 200, 237]) {
      const pt = bytes(n, n + 5);
      const [ct, calls] = hostCalls(() => key.encrypt(from, id, pt));
      assert.deepEqual(calls, { ...NONE, aesBlocks: n >= 128 ? 1 : 0 }, `${n} bytes`);
      assert.ok(same(ct, wasmKey.encrypt(from, id, pt)), `${n} bytes: as WebAssembly`);
      assert.ok(same(ct, ctr(psk, channelNonce(from, id)).encrypt(pt)), `${n} bytes: as @noble`);
      const [back, opened] = hostCalls(() => key.decrypt(from, id, ct));
      assert.ok(same(back, pt));
      assert.equal(opened.aesBlocks, n >= 128 ? 1 : 0);
    }
    key.free();
    wasmKey.free();
  }
});

test('an envelope decoder opens channel packets through the host key', () => {
  const psk = bytes(32, 23);
  const decoder = new EnvelopeDecoder();
  decoder.addChannel('LongFast', psk);
  // A ServiceEnvelope by hand (lengths below 16,384): packet { from, to,
  // channel, encrypted, id },
  // channel_id, gateway_id; the payload a Data { portnum 1, payload }.
  const text = new TextEncoder().encode('y'.repeat(170));
  const data = Uint8Array.of(0x08, 0x01, 0x12, text.length & 0x7f | 0x80, text.length >>> 7, ...text);
  const [from, id] = [0x0a0b0c0d, 77];
  const enc = ctr(psk, channelNonce(from, id)).encrypt(data);
  const le32 = (v) => Uint8Array.of(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24);
  const hash = new ChannelKey(psk).hash('LongFast');
  const varint = (v) => (v < 128 ? [v] : [v & 0x7f | 0x80, v >>> 7]);
  const packet = Uint8Array.of(0x0d, ...le32(from), 0x15, ...le32(0xffffffff), 0x18, ...varint(hash),
    0x2a, ...varint(enc.length), ...enc, 0x35, ...le32(id));
  const str = (tag, s) => Uint8Array.of(tag, s.length, ...new TextEncoder().encode(s));
  const env = Uint8Array.of(0x0a, ...varint(packet.length), ...packet, ...str(0x12, 'LongFast'), ...str(0x1a, '!12345678'));
  const [record, calls] = hostCalls(() => decoder.decode(1_700_000_000_000, env));
  assert.equal(calls.aesBlocks, 1);
  assert.equal(record.text, 'y'.repeat(170));
  assert.equal(record.from, from);
  assert.equal(record.decryption, 'channel');
  decoder.free();
});

// ---- X25519 ----

/** A 64-byte PKC message from a new peer (@noble's key) to `engine`. */
function pkcFrom(engine, seed) {
  const peer = new PkcEngine(generatePrivateKey());
  const payload = wasmOnly(() => peer.seal(0, engine.publicKey, 0x929, seed, bytes(64, seed + 1)));
  const pub = peer.publicKey;
  peer.free();
  return { pub, id: seed, payload, plaintext: bytes(64, seed + 1) };
}

test('X25519 through the host: the secrets of WebAssembly and @noble, one call per new peer', () => {
  const ours = generatePrivateKey();
  const host = new PkcEngine(ours, { capacity: 64 });
  // An engine whose first agreement runs without a host keeps its own
  // X25519 from then on.
  const wasm = new PkcEngine(ours, { capacity: 64 });
  wasmOnly(() => assert.throws(() => wasm.open(0, x25519.getPublicKey(bytes(32, 1)), 1, 1, bytes(20, 1)), kind('auth')));
  for (let seed = 100; seed < 120; seed++) {
    const m = pkcFrom(host, seed);
    const [opened, calls] = hostCalls(() => host.open(0, m.pub, 0x929, m.id, m.payload));
    assert.deepEqual(calls, { ...NONE, x25519: 1 });
    assert.ok(same(opened, m.plaintext));
    const [again, none] = hostCalls(() => wasm.open(0, m.pub, 0x929, m.id, m.payload));
    assert.deepEqual(none, NONE);
    assert.ok(same(again, m.plaintext));
    // The cache: a repeat peer makes no agreement.
    assert.deepEqual(hostCalls(() => host.open(0, m.pub, 0x929, m.id, m.payload))[1], NONE);
  }
  // Sealed through the host, opened by @noble's X25519 and node:crypto's
  // AES-256-CCM: key SHA-256(X25519), nonce LE32(id) | extra | LE32(from) | 0.
  const bob = bytes(32, 7);
  const [sealed, calls] = hostCalls(() => host.seal(0, x25519.getPublicKey(bob), 5, 6, bytes(10, 8)));
  assert.equal(calls.x25519, 1);
  const key = sha256(x25519.getSharedSecret(bob, host.publicKey));
  const nonce = new Uint8Array(13);
  new DataView(nonce.buffer).setUint32(0, 6, true);
  nonce.set(sealed.subarray(sealed.length - 4), 4);
  new DataView(nonce.buffer).setUint32(8, 5, true);
  const d = createDecipheriv('aes-256-ccm', key, nonce, { authTagLength: 8 });
  d.setAuthTag(sealed.subarray(10, 18));
  const opened = d.update(sealed.subarray(0, 10));
  d.final();
  assert.ok(same(opened, bytes(10, 8)));
  host.free();
  wasm.free();
});

test('low-order peer keys are refused through the host as in WebAssembly', () => {
  const host = new PkcEngine(generatePrivateKey());
  const low = [
    '0000000000000000000000000000000000000000000000000000000000000000',
    '0100000000000000000000000000000000000000000000000000000000000000',
    'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800',
    '5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157',
    'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
    'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
    'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  ];
  for (const h of low) {
    const pub = Uint8Array.from(Buffer.from(h, 'hex'));
    const [, calls] = hostCalls(() => assert.throws(() => host.seal(0, pub, 1, 2, bytes(8, 1)), kind('invalid_key'), h));
    assert.equal(calls.x25519, 1, 'the host was asked, refused, and the library decided');
    wasmOnly(() => assert.throws(() => new PkcEngine(generatePrivateKey()).seal(0, pub, 1, 2, bytes(8, 1)), kind('invalid_key'), h));
  }
  host.free();
});

test('small inputs stay in WebAssembly', () => {
  const shared = bytes(32, 10);
  const [, small] = hostCalls(() => {
    const a = new PacketCipher(shared, 'initiator');
    const b = new PacketCipher(shared, 'responder');
    for (const n of [0, 1, 100, 256, 900]) {
      const c = bytes(n, n + 1);
      assert.ok(same(b.open(a.seal(c))[0], c));
    }
    const pt = bytes(300, 11);
    const file = aescrypt.encrypt(PASSWORD, pt, { version: 3, iterations: 16 });
    assert.ok(same(aescrypt.decrypt(PASSWORD, file), pt));
    assert.ok(same(nobleAescryptV3(PASSWORD, file), pt));
    // Version 2 (no PBKDF2) with a small body.
    const v2 = aescrypt.encrypt(PASSWORD, pt, { version: 2 });
    assert.ok(same(aescrypt.decrypt(PASSWORD, v2), pt));
  });
  assert.deepEqual(small, NONE);
});

// AES Crypt 4.0's files here use 5 PBKDF2 rounds, below the host's
// threshold: read and re-made byte for byte with the host registered.
test('AES Crypt 4.0 files (aescrypt-rs sets) with the host registered, as in WebAssembly', () => {
  const dir = new URL('../../vectors/aescrypt/aescrypt-rs/', import.meta.url);
  const hex = (h) => Uint8Array.from(Buffer.from(h, 'hex'));
  for (const file of ['test_vectors_v3.json', 'deterministic_test_vectors_v3.json']) {
    const set = JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
    for (const [i, t] of set.entries()) {
      const ct = hex(t.ciphertext_hex);
      const want = utf8ToBytes(t.plaintext);
      const [got, calls] = hostCalls(() => aescrypt.decrypt('Hello', ct));
      assert.deepEqual(calls, NONE, `${file} #${i}`);
      assert.ok(same(got, want), `${file} #${i}`);
      assert.ok(same(wasmOnly(() => aescrypt.decrypt('Hello', ct)), want), `${file} #${i}`);
      assert.throws(() => aescrypt.decrypt('hello', ct), kind('auth'));
    }
  }
  // Byte for byte as AES Crypt 4.0 wrote them, through the host.
  const set = JSON.parse(readFileSync(new URL('deterministic_test_vectors_v3.json', dir), 'utf8'));
  for (const t of set) {
    const [out, calls] = hostCalls(() =>
      aescrypt.encryptWithMaterial('Hello', utf8ToBytes(t.plaintext), hex(t.public_iv), hex(t.session_iv), hex(t.session_key), {
        version: 3,
        iterations: t.kdf_iterations,
        extensions: [{ identifier: 'CREATED_BY', value: 'aescrypt 4.0.0.0' }],
      }),
    );
    assert.deepEqual(calls, NONE);
    assert.equal(Buffer.from(out).toString('hex'), t.ciphertext_hex);
  }
});

// ---- the browser entry ----

test('the browser entry registers nothing: a module instance without a host stays in WebAssembly', async () => {
  const browserInit = readFileSync(new URL('./browser/init.js', glueUrl), 'utf8');
  assert.doesNotMatch(browserInit, /setHostCrypto|node:crypto/);
  const nodeInit = readFileSync(new URL('./node/init.js', glueUrl), 'utf8');
  assert.match(nodeInit, /setHostCrypto/);

  // A second instance of the module, started as the browser entry starts
  // it (without a host; compiled from the bytes, as Node's fetch cannot
  // read a file: URL).
  const fresh = await import(`${glueUrl.href}?browser`);
  fresh.initSync({ module: readFileSync(new URL('./wasm/wireseal_wasm_bg.wasm', glueUrl)) });
  assert.equal(fresh.hostCryptoActive(), false);
  const file = aescrypt.encryptWithMaterial(PASSWORD, BIG, ...MATERIAL, { version: 3, iterations: 1000 });
  const [plain, ours] = hostCalls(() => fresh.aescrypt_decrypt(PASSWORD, file));
  assert.deepEqual(ours, NONE, 'the Node instance was not involved');
  assert.deepEqual(fresh.hostCryptoCalls(), NONE);
  assert.ok(same(plain, BIG));
  const made = fresh.aescrypt_encryptWithMaterial(PASSWORD, BIG, ...MATERIAL, { version: 3, iterations: 1000 });
  assert.ok(same(made, file), 'the same file in both instances');
  assert.deepEqual(fresh.hostCryptoCalls(), NONE);
});

test('setHostCrypto checks what it is given and keeps the first host', () => {
  assert.throws(() => glue.setHostCrypto(42), kind('invalid_input'));
  assert.throws(() => glue.setHostCrypto('node:crypto'), kind('invalid_input'));
  assert.throws(() => glue.setHostCrypto({ cbcEncrypt() {} }), kind('invalid_input'));
  const names = ['cbcEncrypt', 'cbcDecrypt', 'hmacNew', 'hmacUpdate', 'hmacClone', 'hmacFinish', 'hmacFree', 'aeadSeal', 'aeadOpen', 'pbkdf2'];
  assert.throws(() => glue.setHostCrypto(Object.fromEntries(names.map((n) => [n, () => {}]))), kind('invalid_input'), 'without the AES functions');
  names.push('aesNew', 'aesEncryptBlocks', 'aesClone', 'aesFree');
  assert.throws(() => glue.setHostCrypto(Object.fromEntries(names.map((n) => [n, () => {}]))), kind('invalid_input'), 'without the X25519 functions');
  names.push('x25519New', 'x25519', 'x25519Free');
  const other = Object.fromEntries(names.map((n) => [n, () => {
    throw new Error('not this one');
  }]));
  assert.throws(() => glue.setHostCrypto(other), kind('invalid_input'));
  assert.equal(glue.hostCryptoActive(), true);
  try {
    glue.setHostCrypto(null);
    assert.equal(glue.hostCryptoActive(), false);
    const [, calls] = hostCalls(() => assert.ok(same(aescrypt.decrypt(PASSWORD, aescrypt.encrypt(PASSWORD, BIG, { iterations: 100 })), BIG)));
    assert.deepEqual(calls, NONE);
  } finally {
    glue.hostCryptoPause(false);
  }
  assert.equal(glue.hostCryptoActive(), true);
});
