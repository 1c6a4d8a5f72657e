// wireseal/aescrypt against the stored vectors (pyAesCrypt 6.1.1 samples,
// the aescrypt-rs crate's AES Crypt 3.16 / 4.0 sets for versions 0-3), an
// independent decryption of our output with @noble/ciphers and
// @noble/hashes following the format's description, Web Streams over odd
// chunk sizes, bounded module memory, and every failure as a WiresealError
// of the right kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { cbc } from '@noble/ciphers/aes.js';
import { hmac } from '@noble/hashes/hmac.js';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { WiresealError } from 'wireseal';
import {
  CHUNK,
  DEFAULT_V3_ITERATIONS,
  Decryptor,
  Encryptor,
  decrypt,
  decryptStream,
  encrypt,
  encryptStream,
  encryptWithMaterial,
} from 'wireseal/aescrypt';
// The module instance the package loaded (same file, same instance):
// `initSync` hands back its exports, memory included.
import { initSync } from './node_modules/wireseal/wireseal.js';
import { concat, filler, hex, kindIs, split, throughFailing } from './support.mjs';

const DIR = new URL('../../vectors/aescrypt/', import.meta.url);
const RS = new URL('aescrypt-rs/', DIR);
const enc = new TextEncoder();
/** Runs `chunks` through a TransformStream; returns the output chunks or throws the stream's error. */
async function through(ts, chunks) {
  const writer = ts.writable.getWriter();
  const writing = (async () => {
    for (const c of chunks) await writer.write(c);
    await writer.close();
  })();
  writing.catch(() => {});
  const got = [];
  for await (const c of ts.readable) got.push(c);
  await writing;
  return got;
}
// ---------------------------------------------------------------------
// An independent reader of versions 2 and 3, from the format description
// (aescrypt.com's stream format pages), with noble's primitives.

const utf16le = (s) => {
  const out = new Uint8Array(s.length * 2);
  for (let i = 0; i < s.length; i++) {
    out[2 * i] = s.charCodeAt(i) & 0xff;
    out[2 * i + 1] = s.charCodeAt(i) >> 8;
  }
  return out;
};
const equal = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Parses the header; returns { version, extensions, iterations, publicIv, at }. */
function peerHeader(s) {
  assert.deepEqual([...s.subarray(0, 3)], [0x41, 0x45, 0x53], 'magic');
  const version = s[3];
  let at = 5;
  const extensions = [];
  for (;;) {
    const len = (s[at] << 8) | s[at + 1];
    at += 2;
    if (len === 0) break;
    extensions.push(s.slice(at, at + len));
    at += len;
  }
  let iterations;
  if (version === 3) {
    iterations = new DataView(s.buffer, s.byteOffset + at, 4).getUint32(0);
    at += 4;
  }
  const publicIv = s.slice(at, at + 16);
  return { version, extensions, iterations, publicIv, at: at + 16 };
}

/** Decrypts a version 2 or 3 stream by hand; throws on any mismatch. */
function peerDecrypt(s, password) {
  const h = peerHeader(s);
  let key;
  if (h.version === 3) {
    key = pbkdf2(sha512, enc.encode(password), h.publicIv, { c: h.iterations, dkLen: 32 });
  } else {
    assert.equal(h.version, 2);
    let d = new Uint8Array(32);
    d.set(h.publicIv);
    const pw = utf16le(password);
    for (let i = 0; i < 8192; i++) d = sha256(concat([d, pw]));
    key = d;
  }
  const block = s.subarray(h.at, h.at + 48);
  const blockMac = s.subarray(h.at + 48, h.at + 80);
  const macInput = h.version === 3 ? concat([block, Uint8Array.of(3)]) : block;
  if (!equal(hmac(sha256, key, macInput), blockMac)) throw new Error('peer: wrong password');
  const session = cbc(key, h.publicIv, { disablePadding: true }).decrypt(block);
  const sessionIv = session.subarray(0, 16);
  const sessionKey = session.subarray(16, 48);
  const trailer = h.version === 3 ? 32 : 33;
  const body = s.subarray(h.at + 80, s.length - trailer);
  const tag = s.subarray(s.length - 32);
  if (!equal(hmac(sha256, sessionKey, body), tag)) throw new Error('peer: bad HMAC');
  if (h.version === 3) return cbc(sessionKey, sessionIv).decrypt(body); // PKCS#7
  const padded = cbc(sessionKey, sessionIv, { disablePadding: true }).decrypt(body);
  const sizeMod = s[s.length - 33];
  if (body.length === 0) return padded;
  return padded.subarray(0, body.length - 16 + (sizeMod === 0 ? 16 : sizeMod));
}

// ---------------------------------------------------------------------
// Memory first, while the module's memory is still small: WebAssembly
// memory only grows, so it records the most any call needed.

const memory = () => initSync(undefined).memory.buffer.byteLength;
const MiB = 1 << 20;

test('64 MiB through the streams and the one-call functions leaves the module memory small', async (t) => {
  const total = 64 * MiB;
  const piece = 256 * 1024;
  // Plaintext made on the fly: only its hash is kept.
  const want = createHash('sha256');
  const source = new ReadableStream({
    i: 0,
    pull(c) {
      if (this.i * piece >= total) return c.close();
      const p = filler(piece, this.i + 1);
      this.i++;
      want.update(p);
      c.enqueue(p);
    },
  });
  const got = createHash('sha256');
  let n = 0;
  let biggest = 0;
  const plain = source
    .pipeThrough(encryptStream('big stream'))
    .pipeThrough(
      new TransformStream({
        transform(c, ctl) {
          biggest = Math.max(biggest, c.length);
          ctl.enqueue(c);
        },
      }),
    )
    .pipeThrough(decryptStream('big stream'));
  for await (const c of plain) {
    got.update(c);
    n += c.length;
    assert.ok(c.length <= CHUNK + 64 * 1024, `plaintext chunk of ${c.length}`);
  }
  assert.equal(n, total);
  assert.equal(got.digest('hex'), want.digest('hex'));
  assert.ok(biggest <= CHUNK + 1024, `ciphertext chunk of ${biggest}`);
  assert.ok(memory() < 24 * MiB, `module memory ${memory()}`);

  // One call each on a 16 MiB buffer: read and written a chunk at a time
  // (a copy of the input and the output in the module would be 32 MiB).
  const data = new Uint8Array(16 * MiB);
  data.set(filler(4096, 9));
  data[data.length - 1] = 7;
  const sealed = encrypt('one call', data);
  const back = decrypt('one call', sealed);
  assert.equal(back.length, data.length);
  assert.ok(equal(back.subarray(0, 4096), data.subarray(0, 4096)));
  assert.equal(back[data.length - 1], 7);
  assert.ok(memory() < 24 * MiB, `module memory ${memory()}`);
  t.diagnostic(`module memory after both: ${(memory() / MiB).toFixed(1)} MiB`);
});

// ---------------------------------------------------------------------
// Stored vectors.

test('pyAesCrypt 6.1.1 samples decrypt; a wrong password is auth', async () => {
  const names = readdirSync(DIR).filter((n) => n.endsWith('.plain.aes'));
  assert.equal(names.length, 6);
  for (const name of names) {
    const ct = new Uint8Array(readFileSync(new URL(name, DIR)));
    const want = new Uint8Array(readFileSync(new URL(name.slice(0, -4), DIR)));
    assert.deepEqual(decrypt('correct horse battery staple', ct), want, name);
    assert.deepEqual(decrypt(enc.encode('correct horse battery staple'), ct), want, name);
    const d = new Decryptor('correct horse battery staple');
    for (const c of split(ct, [1, 7, 33])) assert.equal(d.update(c), undefined);
    assert.deepEqual(d.finish(), want, name);
    assert.deepEqual(concat(await through(decryptStream('correct horse battery staple'), split(ct, [5, 91]))), want);
    assert.throws(() => decrypt('correct horse battery stapl', ct), kindIs('auth'));
    // The independent reader agrees.
    assert.deepEqual(peerDecrypt(ct, 'correct horse battery staple'), want, name);
  }
});

test('aescrypt-rs sets: versions 0-3 decrypt (AES Crypt 3.16 and 4.0 streams)', () => {
  for (const [version, file] of [
    [0, 'test_vectors_v0.json'],
    [1, 'test_vectors_v1.json'],
    [2, 'test_vectors_v2.json'],
    [3, 'test_vectors_v3.json'],
    [3, 'deterministic_test_vectors_v3.json'],
  ]) {
    const set = JSON.parse(readFileSync(new URL(file, RS), 'utf8'));
    assert.equal(set.length, 21, file);
    for (const [i, t] of set.entries()) {
      const ct = hex(t.ciphertext_hex);
      assert.equal(ct[3], version);
      const want = enc.encode(t.plaintext);
      assert.deepEqual(decrypt('Hello', ct), want, `${file} #${i}`);
      const d = new Decryptor('Hello');
      for (const c of split(ct, [3, 16, 1])) d.update(c);
      assert.deepEqual(concat(d.finishChunks()), want, `${file} #${i}`);
      // Version 0 has no password check of its own: only the body HMAC.
      assert.throws(() => decrypt('hello', ct), kindIs('auth'), `${file} #${i}`);
    }
  }
});

test('version 3 encryption reproduces AES Crypt 4.0 byte for byte', () => {
  const set = JSON.parse(readFileSync(new URL('deterministic_test_vectors_v3.json', RS), 'utf8'));
  for (const t of set) {
    const out = encryptWithMaterial(
      'Hello', enc.encode(t.plaintext),
      hex(t.public_iv),
      hex(t.session_iv),
      hex(t.session_key),
      {
        version: 3,
        iterations: t.kdf_iterations,
        extensions: [{ identifier: 'CREATED_BY', value: 'aescrypt 4.0.0.0' }],
      },
    );
    assert.equal(Buffer.from(out).toString('hex'), t.ciphertext_hex);
  }
});

// ---------------------------------------------------------------------
// Round trips, the peer, streams.

const SIZES = [0, 1, 15, 16, 17, MiB];

test('round trips for versions 2 and 3, checked by the independent reader', () => {
  for (const opts of [{}, { version: 2 }, { version: 3, iterations: 1000 }]) {
    const version = opts.version ?? 2;
    for (const n of SIZES) {
      const data = filler(n, n + 3);
      const pw = 'pässwörd 🔑';
      const ct = encrypt(pw, data, opts);
      // The exact length from the format: header, session block, whole
      // blocks (version 3 always pads), trailer.
      const h = peerHeader(ct);
      assert.equal(h.version, version);
      const blocks = version === 3 ? Math.floor(n / 16) + 1 : Math.ceil(n / 16);
      assert.equal(ct.length, h.at + 80 + 16 * blocks + (version === 3 ? 32 : 33));
      if (version === 3) assert.equal(h.iterations, 1000);
      assert.deepEqual(peerDecrypt(ct, pw), data, `v${version} ${n}`);
      assert.deepEqual(decrypt(pw, ct), data);
      assert.deepEqual(decrypt(enc.encode(pw), ct), data);
      // Default extensions: CREATED_BY and a 128-byte container.
      assert.equal(h.extensions.length, 2);
      assert.ok(new TextDecoder().decode(h.extensions[0]).startsWith('CREATED_BY\0wireseal '));
      assert.ok(equal(h.extensions[1], new Uint8Array(128)));
    }
  }
});

test('Encryptor over odd pieces makes a stream the peer reads', () => {
  for (const version of [2, 3]) {
    for (const n of [0, 17, MiB + 5]) {
      const data = filler(n, 77);
      const e = new Encryptor('Hello', { version, iterations: 5 });
      const parts = split(data, [1, 15, 16, 17, 4099]).map((c) => e.update(c));
      if (n === 0) parts.push(e.update(new Uint8Array(0)));
      parts.push(e.finish());
      const ct = concat(parts);
      assert.deepEqual(peerDecrypt(ct, 'Hello'), data);
      assert.throws(() => e.update(new Uint8Array(1)), kindIs('state'));
      assert.throws(() => e.finish(), kindIs('state'));
    }
  }
});

test('version 3 by default writes DEFAULT_V3_ITERATIONS rounds', () => {
  assert.equal(DEFAULT_V3_ITERATIONS, 300_000);
  const ct = encrypt('pw', enc.encode('x'), { version: 3 });
  assert.equal(peerHeader(ct).iterations, DEFAULT_V3_ITERATIONS);
  assert.deepEqual(decrypt('pw', ct), enc.encode('x'));
});

test('extensions: chosen ones, none, containers', () => {
  const ct = encrypt('pw', new Uint8Array(3), {
    extensions: [{ identifier: 'CREATED_BY', value: enc.encode('me') }, { container: 7 }, { identifier: 'X' }],
  });
  const h = peerHeader(ct);
  assert.deepEqual(
    h.extensions.map((e) => Buffer.from(e).toString('latin1')),
    ['CREATED_BY\0me', '\0'.repeat(7), 'X\0'],
  );
  assert.deepEqual(peerHeader(encrypt('pw', new Uint8Array(0), { extensions: [] })).extensions, []);
  for (const bad of [
    [{ identifier: '' }],
    [{ identifier: 'A\0B' }],
    [{ container: 0 }],
    [{ container: 65536 }],
    [{}],
    ['CREATED_BY'],
    [{ identifier: 'A', value: 5 }],
    [{ identifier: 'A', container: 3 }],
  ]) {
    assert.throws(() => encrypt('pw', new Uint8Array(0), { extensions: bad }), kindIs('invalid_input'), JSON.stringify(bad));
  }
  assert.throws(() => encrypt('pw', new Uint8Array(0), { extensions: 'CREATED_BY' }), kindIs('invalid_input'));
});

test('streams over odd chunk sizes give the whole-buffer results', async () => {
  for (const opts of [{ version: 2 }, { version: 3, iterations: 7 }]) {
    for (const n of SIZES) {
      const data = filler(n, n + 11);
      for (const sizes of [[1], [7, 13], [4097], [MiB + 3]]) {
        if (n > 4096 && sizes[0] === 1) continue; // a million 1-byte writes: slow, nothing new
        const ct = concat(await through(encryptStream('stream pw', opts), split(data, sizes)));
        // Encryption is randomized: same length as one call, same plaintext back.
        assert.equal(ct.length, encrypt('stream pw', data, opts).length);
        const whole = decrypt('stream pw', ct);
        assert.deepEqual(whole, data);
        const back = await through(decryptStream('stream pw'), split(ct, sizes));
        assert.deepEqual(concat(back), whole);
        for (const c of back) assert.ok(c.length > 0 && c.length <= CHUNK + 64 * 1024);
      }
    }
  }
});

// ---------------------------------------------------------------------
// Failures.

const V2 = () => encrypt('right', filler(3 * MiB + 5, 5), { version: 2 });

test('a wrong password is auth, everywhere', async () => {
  const ct = encrypt('right', filler(100), { version: 3, iterations: 10 });
  assert.throws(() => decrypt('wrong', ct), kindIs('auth'));
  const d = new Decryptor('wrong');
  assert.throws(() => d.update(ct), kindIs('auth'));
  assert.throws(() => d.finish(), kindIs('state'));
  const { got, error } = await throughFailing(decryptStream('wrong'), split(ct, [10]));
  assert.deepEqual(got, []);
  kindIs('auth')(error);
});

test('a tampered HMAC or body is auth, and no unverified plaintext comes out', async () => {
  const ct = V2();
  for (const at of [ct.length - 1, ct.length - 32, ct.length - 40, 400, Math.floor(ct.length / 2)]) {
    const bad = ct.slice();
    bad[at] ^= 0x01;
    assert.throws(() => decrypt('right', bad), kindIs('auth'), `byte ${at}`);
    // The streaming class has decrypted megabytes before it finds out.
    const d = new Decryptor('right');
    d.update(bad);
    assert.throws(() => d.finishChunks(), kindIs('auth'));
    assert.throws(() => d.finish(), kindIs('state'));
    const { got, error } = await throughFailing(decryptStream('right'), split(bad, [100_003]));
    assert.deepEqual(got, [], 'no plaintext before the error');
    kindIs('auth')(error);
  }
});

test('truncated streams are truncated (or auth when cut on a block edge), never a trap', async () => {
  const ct = encrypt('pw', filler(100), { version: 2 });
  const h = peerHeader(ct);
  // Cut in the header, the session block, inside a body block, the trailer.
  for (const n of [0, 1, 3, 4, 20, h.at - 1, h.at, h.at + 79, h.at + 80, h.at + 81, h.at + 100, ct.length - 1]) {
    const cut = ct.subarray(0, n);
    assert.throws(() => decrypt('pw', cut), kindIs('truncated'), `cut at ${n}`);
    const d = new Decryptor('pw');
    d.update(cut);
    assert.throws(() => d.finish(), kindIs('truncated'), `cut at ${n}`);
    const { got, error } = await throughFailing(decryptStream('pw'), [cut]);
    assert.deepEqual(got, []);
    kindIs('truncated')(error);
  }
  // Every other length: some WiresealError, and never plaintext.
  for (let n = 0; n < ct.length; n++) {
    assert.throws(() => decrypt('pw', ct.subarray(0, n)), (e) => e instanceof WiresealError && ['truncated', 'auth'].includes(e.kind), `cut at ${n}`);
  }
  // Bytes appended: the length no longer fits (or the HMAC moved).
  assert.throws(() => decrypt('pw', concat([ct, new Uint8Array(5)])), (e) => e instanceof WiresealError && ['truncated', 'auth'].includes(e.kind));
});

test('bad version byte, bad magic, over-limit headers', () => {
  const ct = encrypt('pw', filler(20));
  for (const v of [4, 9, 0xff]) {
    const bad = ct.slice();
    bad[3] = v;
    assert.throws(() => decrypt('pw', bad), kindIs('unsupported'), `version ${v}`);
    assert.throws(() => new Decryptor('pw').update(bad), kindIs('unsupported'));
  }
  const notAes = ct.slice();
  notAes[0] = 0x61;
  assert.throws(() => decrypt('pw', notAes), kindIs('malformed'));
  assert.throws(() => decrypt('pw', enc.encode('hello, this is not an AES Crypt stream at all, really not')), kindIs('malformed'));
  // Version 3 asking for more rounds than allowed.
  const v3 = encrypt('pw', filler(20), { version: 3, iterations: 2000 });
  assert.throws(() => decrypt('pw', v3, { maxIterations: 1999 }), kindIs('limit'));
  assert.deepEqual(decrypt('pw', v3, { maxIterations: 2000 }), filler(20));
  assert.throws(() => new Decryptor('pw', { maxIterations: 10 }).update(v3), kindIs('limit'));
});

test('writing versions other than 2 and 3 is unsupported; 0 iterations invalid', () => {
  for (const version of [0, 1, 4, 255, 70000]) {
    assert.throws(() => encrypt('pw', new Uint8Array(1), { version }), kindIs('unsupported'), `${version}`);
    assert.throws(() => new Encryptor('pw', { version }), kindIs('unsupported'));
    assert.throws(() => encryptStream('pw', { version }), kindIs('unsupported'));
  }
  assert.throws(() => encrypt('pw', new Uint8Array(1), { version: 3, iterations: 0 }), kindIs('invalid_input'));
});

test('arguments of the wrong type are invalid_input, never a trap', async () => {
  const ok = encrypt('pw', new Uint8Array(1));
  const notBytes = ['abc', 5, [1, 2, 3], undefined, null, {}, new ArrayBuffer(4), new Uint16Array(2)];
  for (const v of notBytes) {
    assert.throws(() => encrypt('pw', v), kindIs('invalid_input'), String(v));
    assert.throws(() => decrypt('pw', v), kindIs('invalid_input'), String(v));
    assert.throws(() => new Encryptor('pw').update(v), kindIs('invalid_input'), String(v));
    assert.throws(() => new Decryptor('pw').update(v), kindIs('invalid_input'), String(v));
  }
  const notPasswords = [5, [1], undefined, null, {}, new Uint16Array(2), '\ud800', 'a\udc00b', Uint8Array.of(0xff, 0xfe)];
  for (const p of notPasswords) {
    assert.throws(() => encrypt(p, new Uint8Array(1)), kindIs('invalid_input'), String(p));
    assert.throws(() => decrypt(p, ok), kindIs('invalid_input'), String(p));
    assert.throws(() => new Encryptor(p), kindIs('invalid_input'));
    assert.throws(() => new Decryptor(p), kindIs('invalid_input'));
    assert.throws(() => encryptStream(p), kindIs('invalid_input'));
    assert.throws(() => decryptStream(p), kindIs('invalid_input'));
  }
  for (const o of [5, 'v3', true]) {
    assert.throws(() => encrypt('pw', new Uint8Array(1), o), kindIs('invalid_input'));
    assert.throws(() => decrypt('pw', ok, o), kindIs('invalid_input'));
  }
  for (const o of [{ version: '3' }, { version: 2.5 }, { version: -1 }, { iterations: 'many' }, { iterations: 2 ** 32 }, { iterations: 1.5 }]) {
    assert.throws(() => encrypt('pw', new Uint8Array(1), { version: 3, ...o }), kindIs('invalid_input'), JSON.stringify(o));
  }
  for (const o of [{ maxIterations: 'x' }, { maxIterations: -5 }, { maxIterations: 2 ** 32 }]) {
    assert.throws(() => decrypt('pw', ok, o), kindIs('invalid_input'), JSON.stringify(o));
  }
  // A stream fed something other than bytes errors with invalid_input.
  for (const make of [() => encryptStream('pw'), () => decryptStream('pw')]) {
    const { got, error } = await throughFailing(make(), ['text']);
    assert.deepEqual(got, []);
    kindIs('invalid_input')(error);
  }
  // Node Buffers are Uint8Arrays.
  assert.deepEqual(decrypt('pw', Buffer.from(ok)), new Uint8Array(1));
  // The empty password is a password.
  assert.deepEqual(decrypt('', encrypt('', Uint8Array.of(1))), Uint8Array.of(1));
  assert.deepEqual(decrypt(new Uint8Array(0), encrypt('', Uint8Array.of(1), { version: 3, iterations: 3 })), Uint8Array.of(1));
});

test('a Decryptor after finish() is state; an empty plaintext has no pieces', () => {
  const ct = encrypt('pw', filler(40));
  const d = new Decryptor('pw');
  d.update(ct);
  assert.deepEqual(d.finish(), filler(40));
  assert.throws(() => d.finish(), kindIs('state'));
  assert.throws(() => d.update(ct), kindIs('state'));
  assert.throws(() => d.finishChunks(), kindIs('state'));
  const empty = new Decryptor('pw');
  empty.update(encrypt('pw', new Uint8Array(0)));
  assert.deepEqual(empty.finishChunks(), []);
});
