// AES Crypt as Web Streams, on top of the WebAssembly module's Encryptor
// and Decryptor (merged into `wireseal/aescrypt` by js/build.mjs).
import { aescrypt_Decryptor, aescrypt_Encryptor } from '../wasm/wireseal_wasm.js';
import { WiresealError } from '../errors.js';

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
 * was decrypted.
 * @param {string | Uint8Array} password
 * @param {object} [options]
 * @returns {TransformStream<Uint8Array, Uint8Array>}
 */
export function decryptStream(password, options) {
  /** @type {aescrypt_Decryptor | null} */
  let dec = new aescrypt_Decryptor(password, options);
  const fail = (/** @type {unknown} */ e) => {
    release(dec);
    dec = null;
    throw e;
  };
  return new TransformStream(
    {
      transform(chunk) {
        try {
          for (const p of pieces(chunk)) /** @type {aescrypt_Decryptor} */ (dec).update(p);
        } catch (e) {
          fail(e);
        }
      },
      flush(controller) {
        /** @type {Uint8Array[]} */
        let verified = [];
        try {
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
