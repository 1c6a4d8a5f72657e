// Version 3 AES Crypt keys stretched by the platform. The browser entry
// registers WebCrypto's PBKDF2-HMAC-SHA512 here: native code, run off the
// calling thread, where the module's own runs in WebAssembly and blocks
// the page. Node registers nothing (its entry already sends PBKDF2 to
// OpenSSL from inside the library, synchronously). The asynchronous
// readers (`decryptStream`, `decryptBlob`) hold a stream's first chunks
// until its header names the salt and rounds (`aescrypt.stretchRequest`),
// stretch with the platform, and offer the key to the library
// (`offerKey`), which uses it only for the stream it was stretched for and
// checks it as it checks a password. If the platform fails, the library
// stretches the password itself.

/** @typedef {(password: Uint8Array, salt: Uint8Array, iterations: number) => Promise<Uint8Array>} Pbkdf2 */

/** @type {Pbkdf2 | null} */
let platform = null;

/**
 * Registers the platform's PBKDF2-HMAC-SHA512 (32 bytes out), or removes it (`null`).
 * @param {Pbkdf2 | null} f
 */
export function setPlatformPbkdf2(f) {
  platform = f;
}

/**
 * The platform's stretch of `password` (as the library encodes it for
 * version 3: UTF-8), or null where there is none.
 * @param {string | Uint8Array} password
 * @returns {((salt: Uint8Array, iterations: number) => Promise<Uint8Array | null>) | null}
 */
export function platformStretch(password) {
  const f = platform;
  if (f === null) return null;
  return async (salt, iterations) => {
    const bytes = typeof password === 'string' ? new TextEncoder().encode(password) : password.slice();
    try {
      const key = await f(bytes, salt, iterations);
      return key instanceof Uint8Array && key.length === 32 ? key : null;
    } catch {
      return null;
    } finally {
      bytes.fill(0);
    }
  };
}
