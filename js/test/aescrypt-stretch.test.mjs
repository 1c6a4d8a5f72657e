// Version 3 keys stretched by the platform (what the browser entry does
// with WebCrypto), driven here through Node's own WebCrypto registered the
// same way: decryptStream and decryptBlob ask for exactly the salt and
// rounds the header holds, once, wherever the header is cut; the stream
// decrypts to the right plaintext; a key that is not the password's is
// `auth`; a failing platform falls back to the library's own stretch; and
// every other stream (version 2, truncated, not AES Crypt) reads exactly
// as without a platform.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import { WiresealError } from 'wireseal';
import { decryptBlob, decryptStream, encrypt, stretchRequest } from 'wireseal/aescrypt';
// The package's registration point (not part of its API; the browser entry calls it).
import { setPlatformPbkdf2 } from './node_modules/wireseal/wireseal.js';
import { concat, drain, filler, hex, live, split, throughFailing } from './support.mjs';

const RS = new URL('../../vectors/aescrypt/aescrypt-rs/', import.meta.url);
const enc = new TextEncoder();

/** WebCrypto's PBKDF2-HMAC-SHA512, recording each call. */
function webCryptoPbkdf2(calls) {
  return async (password, salt, iterations) => {
    calls.push({ password: new TextDecoder().decode(password), salt: salt.slice(), iterations });
    const k = await webcrypto.subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
    const bits = await webcrypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-512', salt, iterations }, k, 256);
    return new Uint8Array(bits);
  };
}

/** Runs `f` with `pbkdf2` registered as the platform's. */
async function withPlatform(pbkdf2, f) {
  setPlatformPbkdf2(pbkdf2);
  try {
    return await f();
  } finally {
    setPlatformPbkdf2(null);
  }
}

/** decryptStream over `chunks`: the plaintext, or the error the stream ended with. */
async function viaStream(password, chunks, options) {
  const { got, error } = await throughFailing(decryptStream(password, options), chunks);
  return error ? { error } : { plain: concat(got) };
}

/** decryptBlob of `ct`: the plaintext, or the error the stream ended with. */
async function viaBlob(password, ct, options) {
  const { got, error } = await drain(decryptBlob(password, new Blob([ct]), options));
  return error ? { error } : { plain: concat(got) };
}

const kind = (r) => (r.error instanceof WiresealError ? r.error.kind : r.error ? String(r.error) : 'ok');

test('the platform stretches a version 3 stream once, for its header, however the header is cut', async () => {
  const pt = filler(3 * 65536 + 5, 7);
  const ct = encrypt('pässword', pt, { version: 3, iterations: 5000, extensions: [] });
  // With no extensions: "AES" 03 00 | 00 00 | iterations (BE) | public IV.
  const iterations = new DataView(ct.buffer, ct.byteOffset).getUint32(7);
  const salt = ct.slice(11, 27);
  assert.equal(iterations, 5000);
  assert.deepEqual(stretchRequest(ct), { publicIv: salt, iterations });
  for (const sizes of [[ct.length], [1], [3, 5, 9], [26], [27], [4096]]) {
    const calls = [];
    const r = await withPlatform(webCryptoPbkdf2(calls), () => viaStream('pässword', split(ct, sizes)));
    assert.deepEqual(r.plain, pt, `stream, cut ${sizes}`);
    assert.deepEqual(calls, [{ password: 'pässword', salt, iterations }], `stream, cut ${sizes}`);
  }
  const calls = [];
  const r = await withPlatform(webCryptoPbkdf2(calls), () => viaBlob(enc.encode('pässword'), ct));
  assert.deepEqual(r.plain, pt);
  assert.deepEqual(calls, [{ password: 'pässword', salt, iterations }]);
});

test('AES Crypt 4.0 streams open with the platform stretch', async () => {
  const set = JSON.parse(readFileSync(new URL('test_vectors_v3.json', RS), 'utf8'));
  for (const t of set.slice(0, 3)) {
    const ct = hex(t.ciphertext_hex);
    const ask = stretchRequest(ct);
    const calls = [];
    const s = await withPlatform(webCryptoPbkdf2(calls), () => viaStream('Hello', split(ct, [7, 64])));
    assert.deepEqual(s.plain, enc.encode(t.plaintext));
    const b = await withPlatform(webCryptoPbkdf2(calls), () => viaBlob('Hello', ct));
    assert.deepEqual(b.plain, enc.encode(t.plaintext));
    assert.equal(calls.length, 2);
    for (const c of calls) assert.deepEqual(c, { password: 'Hello', salt: ask.publicIv, iterations: ask.iterations });
  }
});

test('the key is checked as a password is; a failing platform leaves the stretch to the library', async () => {
  const pt = filler(1000, 3);
  const ct = encrypt('pw', pt, { version: 3, iterations: 3000 });
  const wrongKey = async () => new Uint8Array(32).fill(9);
  for (const via of [viaStream, (pw, chunks) => viaBlob(pw, concat(chunks))]) {
    assert.equal(kind(await withPlatform(wrongKey, () => via('pw', [ct]))), 'auth');
    // Throwing, or handing back something that is not a 32-byte key: the
    // library stretches the password itself.
    for (const bad of [
      async () => {
        throw new Error('no PBKDF2 here');
      },
      async () => new Uint8Array(31),
      async () => 'key',
    ]) {
      assert.deepEqual((await withPlatform(bad, () => via('pw', [ct]))).plain, pt);
    }
    const calls = [];
    assert.equal(kind(await withPlatform(webCryptoPbkdf2(calls), () => via('pW', [ct]))), 'auth');
    assert.equal(calls.length, 1);
  }
});

test('streams that need no stretch read exactly as without a platform', async () => {
  const v3 = encrypt('pw', filler(500, 5), { version: 3, iterations: 2000 });
  const v2 = encrypt('pw', filler(500, 5));
  const cases = [
    ['version 2', v2, [9]],
    ['cut inside the header', v3.subarray(0, 20), [3]],
    ['cut after the header', v3.subarray(0, v3.length - 40), [50]],
    ['not AES Crypt', enc.encode('PK\x03\x04 not an AES Crypt file at all'), [4]],
    ['empty', new Uint8Array(0), [1]],
    ['too many rounds', v3, [64], { maxIterations: 1999 }],
    ['a version from the future', Uint8Array.from([0x41, 0x45, 0x53, 9, 0, ...new Uint8Array(60)]), [5]],
  ];
  for (const [what, ct, sizes, options] of cases) {
    const calls = [];
    const without = await viaStream('pw', split(ct, sizes), options);
    const withIt = await withPlatform(webCryptoPbkdf2(calls), () => viaStream('pw', split(ct, sizes), options));
    assert.equal(kind(withIt), kind(without), what);
    assert.deepEqual(withIt.plain, without.plain, what);
    if (withIt.error) assert.equal(withIt.error.message, without.error.message, what);
    const blobWith = await withPlatform(webCryptoPbkdf2(calls), () => viaBlob('pw', ct, options));
    assert.equal(kind(blobWith), kind(await viaBlob('pw', ct, options)), what);
    const asked = what === 'cut after the header' ? 2 : 0;
    assert.equal(calls.length, asked, what);
  }
  // A header longer than the readers hold for the platform: the library
  // stretches, the file opens.
  const long = encrypt('pw', filler(300, 2), {
    version: 3,
    iterations: 2000,
    extensions: [{ identifier: 'note', value: filler(20_000, 4) }],
  });
  for (const sizes of [[long.length], [1000]]) {
    const calls = [];
    const r = await withPlatform(webCryptoPbkdf2(calls), () => viaStream('pw', split(long, sizes)));
    assert.deepEqual(r.plain, filler(300, 2));
    assert.equal(calls.length, 0);
  }
  // A chunk that is not bytes, while the header is being held.
  const r = await withPlatform(webCryptoPbkdf2([]), () => viaStream('pw', [v3.subarray(0, 3), 'AES']));
  assert.equal(kind(r), 'invalid_input');
});

test('a header too long to hold for the platform: decryptBlob does not hold the file either', async () => {
  const MiB = 1 << 20;
  const pt = filler(24 * MiB, 9);
  const ct = encrypt('pw', pt, {
    version: 3,
    iterations: 1000,
    extensions: [{ identifier: 'note', value: filler(20_000, 4) }],
  });
  const base = await live();
  let firstReadPeak = null;
  let reads = 0;
  // Fresh copies a MiB at a time, as a file's stream hands them out: any
  // chunk held stays alive.
  const blob = {
    stream() {
      const read = ++reads;
      let at = 0;
      return new ReadableStream({
        async pull(c) {
          if (at >= ct.length) {
            if (read === 1) firstReadPeak = (await live()) - base;
            c.close();
            return;
          }
          c.enqueue(ct.slice(at, at + MiB));
          at += MiB;
        },
      });
    },
  };
  const calls = [];
  const got = [];
  await withPlatform(webCryptoPbkdf2(calls), async () => {
    for await (const c of decryptBlob('pw', blob)) got.push(c);
  });
  assert.equal(calls.length, 0);
  assert.deepEqual(concat(got), pt);
  assert.ok(firstReadPeak !== null && firstReadPeak < 8 * MiB, `first read held ${firstReadPeak} bytes`);
});

test('cancelling while the platform stretches frees the reader', async () => {
  const ct = encrypt('pw', filler(100), { version: 3, iterations: 1000 });
  let release;
  const gate = new Promise((resolve) => {
    release = resolve;
  });
  const calls = [];
  const slow = async (...a) => {
    await gate;
    return webCryptoPbkdf2(calls)(...a);
  };
  await withPlatform(slow, async () => {
    const ts = decryptStream('pw');
    const writer = ts.writable.getWriter();
    const writing = writer.write(ct);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const reason = new Error('stop');
    const cancelled = ts.readable.cancel(reason);
    release();
    await cancelled;
    // The pending write settles once the stretch is done, and the stream
    // stays cancelled with the caller's reason.
    await writing.catch(() => {});
    assert.equal(await writer.closed.catch((e) => e), reason);
  });
  assert.equal(calls.length, 1);
});

test('stretchRequest: bad arguments are WiresealErrors', () => {
  assert.throws(() => stretchRequest('AES'), (e) => e instanceof WiresealError && e.kind === 'invalid_input');
  assert.throws(
    () => stretchRequest(new Uint8Array(4), { maxIterations: 'x' }),
    (e) => e instanceof WiresealError && e.kind === 'invalid_input',
  );
  // While the header is incomplete: how many bytes its next step needs.
  assert.equal(typeof stretchRequest(new Uint8Array(0)), 'number');
  const ct = encrypt('pw', filler(10), { version: 3, iterations: 1000 });
  for (let cut = 0; cut < 40; cut++) {
    const ask = stretchRequest(ct.subarray(0, cut));
    if (typeof ask === 'number') assert.ok(ask > cut, `cut at ${cut}: needs ${ask}`);
  }
  assert.equal(stretchRequest(enc.encode('not AES Crypt')), null);
});
