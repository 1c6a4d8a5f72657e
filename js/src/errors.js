/**
 * Every failure wireseal reports: `kind` is the library's error kind
 * (`auth`, `truncated`, `too_long`, `buffer_too_small`, `invalid_key`,
 * `replay`, `poisoned`, `exhausted`, `malformed`, `unsupported`, `limit`,
 * `state`, `policy`, `invalid_input`, `io`), the same names the command
 * line's JSON and the Python package use; MeshCore errors add a finer
 * `reason` (`path_too_long`, `version`, ...).
 */
export class WiresealError extends Error {
  /**
   * @param {string} kind
   * @param {string} message
   * @param {string} [reason]
   */
  constructor(kind, message, reason) {
    super(message);
    this.name = 'WiresealError';
    /** @type {string} */
    this.kind = kind;
    if (reason !== undefined) {
      /** @type {string | undefined} */
      this.reason = reason;
    }
  }
}

/**
 * Called by the WebAssembly module for every error it returns.
 * @param {string} kind
 * @param {string} message
 * @param {string | undefined} reason
 * @returns {WiresealError}
 */
export function makeError(kind, message, reason) {
  return new WiresealError(kind, message, reason ?? undefined);
}
