/** PBKDF2 iterations a version 3 stream is written with unless told otherwise (AES Crypt 4's default). */
export declare const DEFAULT_V3_ITERATIONS: number;
/** The largest piece the streams hand to the module at once, and so the bound on each output chunk (1 MiB). */
export declare const CHUNK: number;

/** What an AES Crypt stream is written with. */
export interface EncryptOptions {
  /** 2 (AES Crypt 3.x, pyAesCrypt, SharpAESCrypt; the default) or 3 (AES Crypt 4.x). */
  version?: 2 | 3;
  /** Version 3's PBKDF2-HMAC-SHA512 rounds (DEFAULT_V3_ITERATIONS by default; version 2 ignores it). */
  iterations?: number;
  /** The header's extensions, replacing the default `CREATED_BY` and 128-byte container (`[]` writes none). */
  extensions?: Array<{ identifier: string; value?: Uint8Array | string } | { container: number }>;
}

/** The limits an AES Crypt stream is read under. */
export interface DecryptOptions {
  /** The most PBKDF2 rounds a version 3 stream may ask for (10,000,000 by default). */
  maxIterations?: number;
}

/**
 * Encrypts a byte stream into an AES Crypt stream in bounded memory (each
 * output chunk at most about CHUNK bytes). The password key is derived
 * when this is called.
 * @throws {WiresealError} `invalid_input` / `unsupported` for unusable arguments; the stream errors with `invalid_input` for a chunk that is not a Uint8Array.
 */
export declare function encryptStream(
  password: string | Uint8Array,
  options?: EncryptOptions,
): TransformStream<Uint8Array, Uint8Array>;

/**
 * Decrypts an AES Crypt stream (versions 0-3), passing on no plaintext
 * until the whole stream is in and its HMAC matched (so the plaintext is
 * held in memory, in chunks of 64 KiB to 1 MiB, until then). Errors the
 * stream with a WiresealError (`auth`, `truncated`, `malformed`,
 * `unsupported`, `limit`, `invalid_input`) and wipes what was decrypted.
 * In browsers a version 3 stream's key is stretched by WebCrypto's PBKDF2
 * (natively, off the page's thread) once its header is in; the library
 * checks it as it checks the password, and stretches the password itself
 * for anything else.
 * @throws {WiresealError} `invalid_input` for unusable arguments.
 */
export declare function decryptStream(
  password: string | Uint8Array,
  options?: DecryptOptions,
): TransformStream<Uint8Array, Uint8Array>;

/**
 * Anything whose `stream()` gives the bytes of an AES Crypt file, the same
 * bytes each time it is called (a `Blob` or `File`, Node's
 * `fs.openAsBlob(path)`).
 */
export interface BlobSource {
  stream(): ReadableStream<Uint8Array>;
}

/**
 * Decrypts an AES Crypt file (versions 0-3) held in a Blob into a stream of
 * verified plaintext, in bounded memory whatever its size: `blob.stream()`
 * is read once to check the password and the HMAC (keeping a digest of
 * every MiB of ciphertext), then again, each MiB of plaintext passed on
 * only once its ciphertext matched the first read's. Nothing comes out
 * before the first read verified the file; reading starts at the returned
 * stream's first read. Errors the stream with a WiresealError: `auth`
 * (wrong password, failed HMAC), `truncated`, `malformed` (also when the
 * second read differs from the first: nothing from the changed chunk is
 * passed on), `unsupported`, `limit`, `io` (reading the blob failed). In
 * browsers a version 3 file's key is stretched by WebCrypto, as for
 * `decryptStream`.
 * @throws {WiresealError} `invalid_input` for unusable arguments.
 */
export declare function decryptBlob(
  password: string | Uint8Array,
  blob: Blob | BlobSource,
  options?: DecryptOptions,
): ReadableStream<Uint8Array>;
