// wireseal/aescrypt's decryptBlob (and the VerifyPass / ReleasePass it
// drives): the stored vectors read from Blobs and from files
// (fs.openAsBlob), a 64 MiB file in bounded module and JavaScript memory,
// nothing released before the first read verified the file, every failure
// as a WiresealError of the right kind, and a blob whose second read
// differs from its first releasing no changed plaintext.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, openAsBlob, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WiresealError } from 'wireseal';
import { CHUNK, ReleasePass, VerifyPass, decryptBlob, encrypt, encryptStream } from 'wireseal/aescrypt';
// The module instance the package loaded: its memory.
import { initSync } from './node_modules/wireseal/wireseal.js';
import { concat, drain, filler, hex, kindIs, live } from './support.mjs';

const DIR = new URL('../../vectors/aescrypt/', import.meta.url);
const RS = new URL('aescrypt-rs/', DIR);
const PY_PASSWORD = 'correct horse battery staple';
const MiB = 1 << 20;
const enc = new TextEncoder();
const memory = () => initSync(undefined).memory.buffer.byteLength;
const isKind = (e, kind) => e instanceof WiresealError && e.kind === kind;

/** The plaintext of decryptBlob, or its error thrown. */
async function plain(password, blob, options) {
  const { got, error } = await drain(decryptBlob(password, blob, options));
  if (error) throw error;
  return concat(got);
}

/**
 * A blob-like source that hands out `reads[i]` (split into pieces of
 * `piece` bytes) on its i-th `stream()`, and records what was read.
 */
function source(reads, piece = 4096) {
  const log = { streams: 0, ended: [] };
  return {
    log,
    stream() {
      const n = log.streams++;
      const data = reads[Math.min(n, reads.length - 1)];
      let at = 0;
      return new ReadableStream({
        pull(c) {
          if (at >= data.length) {
            log.ended.push(n);
            c.close();
            return;
          }
          c.enqueue(data.slice(at, at + piece));
          at += piece;
        },
      });
    },
  };
}

// ---------------------------------------------------------------------
// Memory first, while the module's memory is still small: WebAssembly
// memory only grows, so it records the most any call needed.

/**
 * Writes a version 2 AES Crypt file of `total` bytes (a multiple of 16)
 * with Node's own crypto (OpenSSL), following the format's description,
 * a piece at a time; returns the plaintext's SHA-256.
 */
async function writeV2(path, password, total, piece) {
  const publicIv = randomBytes(16);
  // The password key: 8192 rounds of SHA-256 over the IV (zero-padded to
  // 32 bytes) and the UTF-16LE password.
  let key = Buffer.concat([publicIv, Buffer.alloc(16)]);
  const pw = Buffer.from(password, 'utf16le');
  for (let i = 0; i < 8192; i++) key = createHash('sha256').update(key).update(pw).digest();
  const sessionIv = randomBytes(16);
  const sessionKey = randomBytes(32);
  const wrap = createCipheriv('aes-256-cbc', key, publicIv).setAutoPadding(false);
  const block = Buffer.concat([wrap.update(Buffer.concat([sessionIv, sessionKey])), wrap.final()]);
  const head = Buffer.concat([
    Buffer.from('AES\x02\x00\x00\x00', 'latin1'), // version 2, no extensions
    publicIv,
    block,
    createHmac('sha256', key).update(block).digest(),
  ]);
  const body = createCipheriv('aes-256-cbc', sessionKey, sessionIv).setAutoPadding(false);
  const mac = createHmac('sha256', sessionKey);
  const want = createHash('sha256');
  const file = await open(path, 'w');
  await file.write(head);
  for (let i = 0; i * piece < total; i++) {
    const p = filler(piece, i + 1);
    want.update(p);
    const c = body.update(p);
    mac.update(c);
    await file.write(c);
  }
  body.final();
  // Size octet 0 (whole blocks), then the HMAC of the body.
  await file.write(Buffer.concat([Buffer.of(0), mac.digest()]));
  await file.close();
  return want.digest('hex');
}

test('a 64 MiB file through fs.openAsBlob: module and JavaScript memory stay small', async (t) => {
  const total = 64 * MiB;
  const dir = mkdtempSync(join(tmpdir(), 'wireseal-blob-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'big.aes');
  // Written by an independent writer, so the module has done nothing yet.
  const want = await writeV2(path, 'big file', total, 256 * 1024);

  const before = memory();
  const base = await live();
  let peak = -Infinity;
  const got = createHash('sha256');
  let n = 0;
  let chunks = 0;
  for await (const c of decryptBlob('big file', await openAsBlob(path))) {
    assert.ok(c.length <= CHUNK, `plaintext chunk of ${c.length}`);
    got.update(c);
    n += c.length;
    if (++chunks % 4 === 0) peak = Math.max(peak, (await live()) - base);
  }
  assert.equal(n, total);
  assert.equal(got.digest('hex'), want);
  // 64 chunks of 1 MiB, each handed out alone.
  assert.equal(chunks, 64);
  // The module: a chunk or two of ciphertext and plaintext, whatever the
  // file's size (WebAssembly memory never shrinks: this is the most it
  // ever needed).
  assert.ok(memory() - before <= 8 * MiB, `module memory grew by ${memory() - before}`);
  // JavaScript: what is alive at any time is a few chunks, not the file.
  assert.ok(peak < 8 * MiB, `live JavaScript memory grew by ${peak}`);
  t.diagnostic(
    `module memory ${(before / MiB).toFixed(1)} -> ${(memory() / MiB).toFixed(1)} MiB; ` +
      `live JavaScript memory ${(base / MiB).toFixed(1)} MiB, at most ${(peak / MiB).toFixed(1)} MiB more while reading`,
  );
});

// ---------------------------------------------------------------------
// Stored vectors.

test('pyAesCrypt 6.1.1 samples: files through fs.openAsBlob and Blobs; a wrong password is auth', async () => {
  const names = readdirSync(DIR).filter((n) => n.endsWith('.plain.aes'));
  assert.equal(names.length, 6);
  for (const name of names) {
    const want = new Uint8Array(readFileSync(new URL(name.slice(0, -4), DIR)));
    const file = await openAsBlob(new URL(name, DIR));
    assert.deepEqual(await plain(PY_PASSWORD, file), want, name);
    const ct = new Uint8Array(readFileSync(new URL(name, DIR)));
    assert.deepEqual(await plain(enc.encode(PY_PASSWORD), new Blob([ct])), want, name);
    // One byte at a time, both reads.
    assert.deepEqual(await plain(PY_PASSWORD, source([ct], 1)), want, name);
    await assert.rejects(plain('correct horse battery stapl', file), kindIs('auth'), name);
  }
});

test('aescrypt-rs sets: versions 0-3 through decryptBlob (AES Crypt 3.16 and 4.0 streams)', async () => {
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
      assert.deepEqual(await plain('Hello', new Blob([ct.subarray(0, 7), ct.subarray(7)])), want, `${file} #${i}`);
      // Version 0 has no password check of its own: only the body HMAC.
      await assert.rejects(plain('hello', new Blob([ct])), kindIs('auth'), `${file} #${i}`);
    }
  }
});

// ---------------------------------------------------------------------
// Round trips across chunk edges, and the order of the two reads.

test('plaintexts around the chunk edges, any read sizes, chunks of at most 1 MiB', async () => {
  for (const n of [0, 1, 15, 16, 17, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 17]) {
    const data = filler(n, n + 5);
    for (const opts of [{ version: 2 }, { version: 3, iterations: 10 }]) {
      const ct = encrypt('pw', data, opts);
      for (const piece of [15, 16, 17, 65536, CHUNK - 1, CHUNK + 1]) {
        // Tiny reads of long streams are slow here (a promise a read) and
        // covered by the library's tests.
        if (piece < 1000 && n > 1000) continue;
        const { got, error } = await drain(decryptBlob('pw', source([ct], piece)));
        assert.equal(error, null);
        assert.deepEqual(concat(got), data, `${n} bytes, reads of ${piece}`);
        assert.ok(got.every((c) => c.length > 0 && c.length <= CHUNK));
        assert.equal(got.length, Math.ceil(n / CHUNK));
      }
    }
  }
});

test('nothing comes out before the first read ended and verified; reading starts at the first read', async () => {
  const data = filler(3 * CHUNK + 5, 3);
  const ct = encrypt('pw', data);
  const src = source([ct], 65536);
  const stream = decryptBlob('pw', src);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(src.log.streams, 0, 'no read before the stream is read');
  const reader = stream.getReader();
  const first = await reader.read();
  assert.deepEqual(src.log.ended, [0], 'the first read ended before any plaintext');
  assert.equal(src.log.streams, 2);
  assert.deepEqual(first.value, data.subarray(0, CHUNK));
  // Pull-driven: the second read advanced only about as far as asked.
  assert.deepEqual(src.log.ended, [0]);
  await reader.cancel();

  // A failed HMAC: the second read never starts.
  const bad = ct.slice();
  bad[bad.length - 1] ^= 1;
  const src2 = source([bad], 65536);
  const { got, error } = await drain(decryptBlob('pw', src2));
  assert.ok(isKind(error, 'auth'), String(error));
  assert.equal(got.length, 0);
  assert.equal(src2.log.streams, 1);
});

// ---------------------------------------------------------------------
// Failures.

test('tampered, truncated, wrong password, not AES Crypt: WiresealErrors, no plaintext', async () => {
  const data = filler(CHUNK + 100, 11);
  for (const opts of [{ version: 2 }, { version: 3, iterations: 10 }]) {
    const ct = encrypt('pw', data, opts);
    const trailer = opts.version === 3 ? 32 : 33;
    // A bit flipped in the first body chunk, the last block, the size
    // octet's neighbour, the HMAC.
    for (const at of [ct.length - trailer - CHUNK, ct.length - trailer - 1, ct.length - 20, ct.length - 1]) {
      const bad = ct.slice();
      bad[at] ^= 0x40;
      const { got, error } = await drain(decryptBlob('pw', new Blob([bad])));
      assert.ok(isKind(error, 'auth'), `flip at ${at}: ${error}`);
      assert.equal(got.length, 0);
    }
    // Cut in the header, the session block, the body, the trailer.
    const body = ct.length - trailer - (CHUNK + 112);
    for (const n of [0, 2, 10, body - 1, body, body + 16, ct.length - trailer - 1, ct.length - 1]) {
      const { got, error } = await drain(decryptBlob('pw', new Blob([ct.subarray(0, n)])));
      assert.ok(isKind(error, 'truncated'), `cut at ${n}: ${error}`);
      assert.equal(got.length, 0);
    }
    // Cut on a block edge inside the body: the HMAC is read from the body.
    const { error } = await drain(decryptBlob('pw', new Blob([ct.subarray(0, ct.length - 48)])));
    assert.ok(isKind(error, 'auth') || isKind(error, 'truncated'), String(error));
    await assert.rejects(plain('wrong', new Blob([ct])), kindIs('auth'));
    await assert.rejects(plain(enc.encode('wrong'), new Blob([ct])), kindIs('auth'));
  }
  await assert.rejects(plain('pw', new Blob(['PK\x03\x04 not an AES Crypt file'])), kindIs('malformed'));
  const v3 = encrypt('pw', data, { version: 3, iterations: 2000 });
  await assert.rejects(plain('pw', new Blob([v3]), { maxIterations: 1000 }), kindIs('limit'));
});

test('wrong argument types are invalid_input, thrown at once', () => {
  const ct = encrypt('pw', Uint8Array.of(1, 2, 3));
  for (const blob of ['a string', 42, [1, 2, 3], undefined, null, ct, {}, { stream: 1 }]) {
    assert.throws(() => decryptBlob('pw', blob), kindIs('invalid_input'), String(blob));
  }
  for (const password of [42, undefined, null, [1], {}]) {
    assert.throws(() => decryptBlob(password, new Blob([ct])), kindIs('invalid_input'), String(password));
  }
  assert.throws(() => decryptBlob('pw', new Blob([ct]), { maxIterations: 'many' }), kindIs('invalid_input'));
  assert.throws(() => decryptBlob('pw', new Blob([ct]), 'not options'), kindIs('invalid_input'));
});

test('a stream of other things than bytes is invalid_input; a failing read is io', async () => {
  const ct = encrypt('pw', Uint8Array.of(1, 2, 3));
  const strings = { stream: () => new Blob(['AES']).stream().pipeThrough(new TextDecoderStream()) };
  await assert.rejects(plain('pw', strings), kindIs('invalid_input'));
  const failing = {
    stream: () =>
      new ReadableStream({
        start(c) {
          c.enqueue(ct.subarray(0, 10));
        },
        pull(c) {
          c.error(new Error('disk gone'));
        },
      }),
  };
  await assert.rejects(plain('pw', failing), (e) => {
    kindIs('io')(e);
    assert.equal(e.cause.message, 'disk gone');
    return true;
  });
  const throwing = {
    stream() {
      throw new Error('no stream');
    },
  };
  await assert.rejects(plain('pw', throwing), kindIs('io'));
});

// ---------------------------------------------------------------------
// A blob whose second read differs from its first.

test('a second read that differs from the first: malformed, and no changed plaintext comes out', async () => {
  const data = filler(3 * CHUNK + 100, 21);
  const ct = encrypt('pw', data);
  const body = ct.length - 33 - (3 * CHUNK + 112);
  for (const [at, released] of [
    [10, 0], // the header
    [body - 1, 0], // the session block
    [body, 0], // the first chunk
    [body + CHUNK + 5, CHUNK], // the second chunk
    [ct.length - 40, 3 * CHUNK], // the last block
    [ct.length - 1, data.length], // the HMAC: the whole (verified) body came out
  ]) {
    for (const piece of [4096, 3 * 65536 + 1]) {
      const again = ct.slice();
      again[at] ^= 1;
      const src = source([ct, again], piece);
      const { got, error } = await drain(decryptBlob('pw', src));
      assert.ok(isKind(error, 'malformed'), `change at ${at}: ${error}`);
      assert.match(error.message, /changed/);
      const out = concat(got);
      assert.equal(out.length, released, `change at ${at}, reads of ${piece}`);
      assert.ok(Buffer.from(out).equals(Buffer.from(data.subarray(0, released))), 'only the original plaintext');
      assert.equal(src.log.streams, 2);
    }
  }
  // Shorter and longer second reads.
  for (const again of [ct.subarray(0, ct.length - 1), ct.subarray(0, body + CHUNK), concat([ct, Uint8Array.of(0)])]) {
    const { got, error } = await drain(decryptBlob('pw', source([ct, again])));
    assert.ok(isKind(error, 'malformed'), String(error));
    const out = concat(got);
    assert.ok(Buffer.from(out).equals(Buffer.from(data.subarray(0, out.length))));
  }
  // Another valid stream of the same length (same password, other
  // plaintext) the second time: refused at its first byte that differs.
  const other = encrypt('pw', filler(data.length, 99));
  const { got, error } = await drain(decryptBlob('pw', source([ct, other])));
  assert.ok(isKind(error, 'malformed'), String(error));
  assert.equal(got.length, 0);
});

test('a file rewritten between the reads (fs.openAsBlob) releases no changed plaintext', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wireseal-blob-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'changing.aes');
  const data = filler(2 * CHUNK + 3, 5);
  const ct = encrypt('pw', data);
  writeFileSync(path, ct);
  const blob = await openAsBlob(path);
  let streams = 0;
  const changing = {
    stream() {
      if (streams++ === 1) {
        const again = ct.slice();
        again[ct.length - 100] ^= 1;
        writeFileSync(path, again);
      }
      return blob.stream();
    },
  };
  const { got, error } = await drain(decryptBlob('pw', changing));
  // Node refuses to read a file changed after openAsBlob (io), or the
  // digests catch it (malformed); either way nothing changed comes out.
  assert.ok(isKind(error, 'io') || isKind(error, 'malformed'), String(error));
  const out = concat(got);
  assert.ok(out.length < data.length);
  assert.ok(Buffer.from(out).equals(Buffer.from(data.subarray(0, out.length))));
  t.diagnostic(`rewritten file: ${error.kind} after ${out.length} bytes`);
});

// ---------------------------------------------------------------------
// The classes underneath.

test('VerifyPass and ReleasePass: per-chunk release, state after finish or failure', () => {
  const data = filler(CHUNK + 40, 8);
  const ct = encrypt('pw', data, { version: 3, iterations: 10 });
  const v = new VerifyPass('pw');
  v.update(ct.subarray(0, 100));
  v.update(ct.subarray(100));
  const r = v.finish();
  assert.throws(() => v.update(ct), kindIs('state'));
  assert.throws(() => v.finish(), kindIs('state'));
  assert.equal(r.plaintextLen, data.length);
  assert.equal(r.version, 3);
  const body = ct.length - 32 - (CHUNK + 48);
  assert.deepEqual(r.update(ct.subarray(0, body + CHUNK - 1)), []);
  const [c1, ...rest] = r.update(ct.subarray(body + CHUNK - 1));
  assert.equal(rest.length, 1);
  assert.deepEqual(concat([c1, ...rest]), data);
  assert.equal(c1.length, CHUNK);
  r.finish();
  assert.throws(() => r.finish(), kindIs('state'));
  assert.throws(() => r.update(ct), kindIs('state'));
  for (const bad of ['x', 1, [1], undefined]) {
    assert.throws(() => new VerifyPass('pw').update(bad), kindIs('invalid_input'));
  }
  // A wrong password fails at the session block, then the pass is spent.
  const w = new VerifyPass('wrong');
  assert.throws(() => w.update(ct), kindIs('auth'));
  assert.throws(() => w.update(ct), kindIs('state'));
  // A changed byte ends the second pass.
  const v2 = new VerifyPass('pw');
  v2.update(ct);
  const r2 = v2.finish();
  const again = ct.slice();
  again[body + 3] ^= 1;
  assert.throws(() => r2.update(again), kindIs('malformed'));
  assert.throws(() => r2.update(ct), kindIs('state'));
  assert.ok(r instanceof ReleasePass);
});
