// AES Crypt as Web Streams, on top of the WebAssembly module's Encryptor,
// Decryptor, VerifyPass and ReleasePass (merged into `wireseal/aescrypt`
// by js/build.mjs). Where the platform stretches keys (WebCrypto in
// browsers, see stretch.js) the readers offer them a version 3 key it
// stretched.
import {
  aescrypt_Decryptor,
  aescrypt_Encryptor,
  aescrypt_ReleasePass,
  aescrypt_VerifyPass,
  aescrypt_stretchRequest,
} from '../wasm/wireseal_wasm.js';
import { WiresealError } from '../errors.js';
import { platformStretch } from '../stretch.js';

/** PBKDF2 iterations a version 3 stream is written with unless told otherwise (AES Crypt 4's default). */
export const DEFAULT_V3_ITERATIONS = 300_000;

/** The largest piece the streams hand to the module at once, and so the bound on each output chunk (1 MiB). */
export const CHUNK = 1 << 20;

/**
 * The pieces of a stream chunk, at most CHUNK bytes each.
 * @param {unknown} chunk
 * @returns {Generator<Uint8Array>}
 */
function* pieces(chunk) {
  if (!(chunk instanceof Uint8Array)) {
    throw new WiresealError('invalid_input', 'stream chunks must be Uint8Arrays');
  }
  for (let at = 0; at < chunk.length; at += CHUNK) {
    yield chunk.subarray(at, Math.min(at + CHUNK, chunk.length));
  }
}

/** The most of a stream's first bytes held for its header: AES Crypt's
 * own headers take about 200; a header longer than this is left to the
 * library's stretch. */
const HEAD_HELD = 16 * 1024;

/**
 * A stream's first chunks, held (where the platform stretches keys) until
 * its header says what a version 3 key is stretched with; then the key the
 * platform stretched is offered to the reader and the chunks go on to it.
 */
class Stretching {
  /**
   * @param {string | Uint8Array} password
   * @param {object | undefined} options
   */
  constructor(password, options) {
    this.stretch = platformStretch(password);
    this.options = options;
    /** @type {Uint8Array[] | null} */
    this.head = this.stretch === null ? null : [];
    /** Bytes held. */
    this.held = 0;
    /** Bytes the header's next step needs (the parser is not asked before). */
    this.need = 0;
  }

  /**
   * The chunks to feed now, `chunk` among them: none while the header is
   * incomplete; once it is, the key offered to `reader` first.
   * @param {unknown} chunk
   * @param {() => { offerKey(publicIv: Uint8Array, iterations: number, key: Uint8Array): void } | null} reader
   *   the reader, or null once it was cancelled
   * @returns {Promise<Uint8Array[]>}
   */
  async take(chunk, reader) {
    if (this.head === null || this.stretch === null) return [/** @type {Uint8Array} */ (chunk)];
    if (!(chunk instanceof Uint8Array)) {
      throw new WiresealError('invalid_input', 'stream chunks must be Uint8Arrays');
    }
    this.head.push(chunk);
    this.held += chunk.length;
    if (this.held < this.need) return [];
    const ask = aescrypt_stretchRequest(first(this.head, HEAD_HELD), this.options);
    if (typeof ask === 'number') {
      if (ask > HEAD_HELD) return this.rest();
      this.need = ask;
      return [];
    }
    const held = this.rest();
    if (ask !== null) {
      const key = await this.stretch(ask.publicIv, ask.iterations);
      if (key !== null) {
        try {
          reader()?.offerKey(ask.publicIv, ask.iterations, key);
        } finally {
          key.fill(0);
        }
      }
    }
    return held;
  }

  /**
   * The chunks still held (at the end of the stream), and no more holding.
   * @returns {Uint8Array[]}
   */
  rest() {
    const held = this.head ?? [];
    this.head = null;
    return held;
  }
}

/**
 * The first `n` bytes of the chunks, as one array (the first chunk itself
 * when it holds them).
 * @param {Uint8Array[]} chunks
 * @param {number} n
 * @returns {Uint8Array}
 */
function first(chunks, n) {
  if (chunks[0].length >= n || chunks.length === 1) return chunks[0].subarray(0, n);
  const out = new Uint8Array(Math.min(n, chunks.reduce((k, c) => k + c.length, 0)));
  let at = 0;
  for (const c of chunks) {
    if (at === out.length) break;
    const take = c.subarray(0, out.length - at);
    out.set(take, at);
    at += take.length;
  }
  return out;
}

/** Queues measured in bytes: the readable side holds about one CHUNK before it pushes back on the writable side. */
const byBytes = () => ({ highWaterMark: CHUNK, size: (/** @type {Uint8Array} */ c) => c.byteLength });

/**
 * Frees a module object, once.
 * @param {{ free(): void } | null} o
 */
function release(o) {
  try {
    o?.free();
  } catch {
    // Already freed.
  }
}

/**
 * Encrypts a byte stream into an AES Crypt stream (version 2 by default,
 * or 3), in bounded memory: each input chunk is encrypted a MiB at a time
 * and its ciphertext passed on as it is ready. The password key is
 * derived when this is called (for version 3, slow by design).
 * @param {string | Uint8Array} password
 * @param {object} [options]
 * @returns {TransformStream<Uint8Array, Uint8Array>}
 */
export function encryptStream(password, options) {
  /** @type {aescrypt_Encryptor | null} */
  let enc = new aescrypt_Encryptor(password, options);
  const fail = (/** @type {unknown} */ e) => {
    release(enc);
    enc = null;
    throw e;
  };
  return new TransformStream(
    {
      transform(chunk, controller) {
        try {
          for (const p of pieces(chunk)) {
            const out = /** @type {aescrypt_Encryptor} */ (enc).update(p);
            if (out.length > 0) controller.enqueue(out);
          }
        } catch (e) {
          fail(e);
        }
      },
      flush(controller) {
        try {
          controller.enqueue(/** @type {aescrypt_Encryptor} */ (enc).finish());
        } catch (e) {
          fail(e);
        }
        release(enc);
        enc = null;
      },
      cancel() {
        release(enc);
        enc = null;
      },
    },
    { highWaterMark: 1 },
    byBytes(),
  );
}

/**
 * Decrypts an AES Crypt stream (any version 0-3) without ever passing on
 * unverified plaintext: nothing comes out of the readable side until the
 * whole stream is in and its HMAC matched; then the plaintext follows in
 * chunks of 64 KiB to 1 MiB. The plaintext is held meanwhile (outside the
 * WebAssembly module's memory, which stays at a few MiB), so decrypting a
 * stream holds its whole plaintext in memory once, in chunks; the format's
 * one HMAC at the very end allows nothing less. Any failure errors the
 * stream (a `WiresealError`: `auth` for a wrong password or a failed
 * HMAC, `truncated`, `malformed`, `unsupported`, `limit`) and wipes what
 * was decrypted. Where the platform stretches keys, a version 3 stream's
 * first chunks are held until its header is in, and the key the platform
 * stretched for it is offered to the decryptor.
 * @param {string | Uint8Array} password
 * @param {object} [options]
 * @returns {TransformStream<Uint8Array, Uint8Array>}
 */
export function decryptStream(password, options) {
  /** @type {aescrypt_Decryptor | null} */
  let dec = new aescrypt_Decryptor(password, options);
  const stretching = new Stretching(password, options);
  const fail = (/** @type {unknown} */ e) => {
    release(dec);
    dec = null;
    throw e;
  };
  const feed = (/** @type {Uint8Array[]} */ chunks) => {
    for (const c of chunks) for (const p of pieces(c)) /** @type {aescrypt_Decryptor} */ (dec).update(p);
  };
  return new TransformStream(
    {
      async transform(chunk) {
        try {
          const ready = await stretching.take(chunk, () => dec);
          if (dec === null) return; // cancelled meanwhile
          feed(ready);
        } catch (e) {
          fail(e);
        }
      },
      flush(controller) {
        /** @type {Uint8Array[]} */
        let verified = [];
        try {
          feed(stretching.rest());
          verified = /** @type {aescrypt_Decryptor} */ (dec).finishChunks();
        } catch (e) {
          fail(e);
        }
        release(dec);
        dec = null;
        for (const c of verified) controller.enqueue(c);
      },
      cancel() {
        // Freeing wipes the plaintext held so far.
        release(dec);
        dec = null;
      },
    },
    { highWaterMark: 1 },
    byBytes(),
  );
}

/**
 * A failure while reading the blob (not the module's own) as a
 * WiresealError of kind `io`, the original as its `cause`.
 * @param {unknown} e
 * @returns {WiresealError}
 */
function readError(e) {
  if (e instanceof WiresealError) return e;
  const err = new WiresealError('io', `reading the blob failed: ${e instanceof Error ? e.message : String(e)}`);
  err.cause = e;
  return err;
}

/**
 * Cancels a stream reader, ignoring its failure.
 * @param {ReadableStreamDefaultReader<Uint8Array> | null} r
 */
function drop(r) {
  r?.cancel().catch(() => {});
}

/**
 * A fresh reader over `blob.stream()`.
 * @param {{ stream(): ReadableStream<Uint8Array> }} blob
 * @returns {ReadableStreamDefaultReader<Uint8Array>}
 */
function readerOf(blob) {
  try {
    return blob.stream().getReader();
  } catch (e) {
    throw readError(e);
  }
}

/**
 * The next chunk of a blob's stream (`undefined` at its end).
 * @param {ReadableStreamDefaultReader<Uint8Array>} r
 * @returns {Promise<Uint8Array | undefined>}
 */
async function next(r) {
  try {
    const { done, value } = await r.read();
    return done ? undefined : value;
  } catch (e) {
    throw readError(e);
  }
}

/**
 * Decrypts an AES Crypt file held in a `Blob` (a browser's `File`, Node's
 * `fs.openAsBlob(path)`, `new Blob([...])`, or any object whose `stream()`
 * gives the same bytes each time) into a stream of verified plaintext, in
 * bounded memory whatever the file's size: it reads `blob.stream()` once
 * to check the password and the HMAC (keeping a digest of every MiB of
 * ciphertext), and only then a second time, decrypting and passing on
 * each MiB of plaintext once its ciphertext matched the first read's
 * digest. Nothing comes out before the first read verified the file.
 * Reading starts at the first read of the returned stream. Any failure
 * errors the stream with a WiresealError: `auth` for a wrong password or a
 * failed HMAC, `truncated`, `malformed` (also for a blob whose second read
 * differs from the first: nothing from the changed chunk is passed on),
 * `unsupported`, `limit`, `io` when reading the blob fails.
 * @param {string | Uint8Array} password
 * @param {{ stream(): ReadableStream<Uint8Array> }} blob
 * @param {object} [options]
 * @returns {ReadableStream<Uint8Array>}
 */
export function decryptBlob(password, blob, options) {
  const stream = blob !== null && typeof blob === 'object' ? /** @type {{ stream?: unknown }} */ (blob).stream : undefined;
  if (typeof stream !== 'function') {
    throw new WiresealError('invalid_input', 'blob must be a Blob (an object with a stream() method)');
  }
  /** @type {aescrypt_VerifyPass | null} */
  let first = new aescrypt_VerifyPass(password, options);
  /** @type {aescrypt_ReleasePass | null} */
  let second = null;
  /** @type {ReadableStreamDefaultReader<Uint8Array> | null} */
  let reader = null;
  const close = () => {
    drop(reader);
    reader = null;
    release(first);
    first = null;
    // Freeing wipes the plaintext the module still holds.
    release(second);
    second = null;
  };
  return new ReadableStream(
    {
      async pull(controller) {
        try {
          if (first !== null) {
            // The first read: nothing is passed on.
            const v = first;
            const stretching = new Stretching(password, options);
            const feed = (/** @type {Uint8Array[]} */ chunks) => {
              for (const c of chunks) for (const p of pieces(c)) v.update(p);
            };
            const r1 = readerOf(blob);
            reader = r1;
            for (let c = await next(r1); c !== undefined; c = await next(r1)) {
              if (first === null) return; // cancelled
              const ready = await stretching.take(c, () => first);
              if (first === null) return;
              feed(ready);
            }
            if (first === null) return;
            feed(stretching.rest());
            reader = null;
            second = v.finish();
            release(v);
            first = null;
            reader = readerOf(blob);
          }
          const r = /** @type {ReadableStreamDefaultReader<Uint8Array>} */ (reader);
          const pass = /** @type {aescrypt_ReleasePass} */ (second);
          // The second read, until a chunk is verified or the stream ends.
          for (;;) {
            const c = await next(r);
            if (second === null) return; // cancelled
            if (c === undefined) {
              reader = null;
              pass.finish();
              close();
              controller.close();
              return;
            }
            if (!(c instanceof Uint8Array)) {
              throw new WiresealError('invalid_input', 'stream chunks must be Uint8Arrays');
            }
            // At most what completes the current chunk at a time, so each
            // verified chunk is passed on before a later one can fail.
            let passed = false;
            for (let at = 0; at < c.length; ) {
              const n = Math.min(pass.nextLen || CHUNK, CHUNK, c.length - at);
              for (const out of pass.update(c.subarray(at, at + n))) {
                controller.enqueue(out);
                passed = true;
              }
              at += n;
            }
            if (passed) return;
          }
        } catch (e) {
          close();
          throw e;
        }
      },
      cancel() {
        close();
      },
    },
    { highWaterMark: 0 },
  );
}
