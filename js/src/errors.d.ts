/** Every failure wireseal reports, with the library's error kind. */
export declare class WiresealError extends Error {
  constructor(kind: string, message: string, reason?: string);
  /** The library's error kind: `auth`, `truncated`, `too_long`, `invalid_key`, `malformed`, ... */
  readonly kind: string;
  /** MeshCore's finer reason (`path_too_long`, `version`, ...), when there is one. */
  readonly reason?: string;
}
/** @internal Called by the WebAssembly module. */
export declare function makeError(kind: string, message: string, reason?: string): WiresealError;
