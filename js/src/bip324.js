// The constants of `wireseal/bip324` (wasm-bindgen exports no constants);
// the tests check each against the module's behaviour.

/** Packets between two rekeys of each direction's ciphers (BIP324: 224). */
export const REKEY_INTERVAL = 224;

/** The most garbage bytes either side may send after its key (BIP324: 4095). */
export const MAX_GARBAGE_LEN = 4095;

/** The network names the library knows, in its order. */
export const NETWORKS = Object.freeze(['mainnet', 'testnet', 'testnet4', 'signet', 'regtest']);
