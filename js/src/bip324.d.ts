/** Packets between two rekeys of each direction's ciphers (BIP324: 224). */
export declare const REKEY_INTERVAL: 224;
/** The most garbage bytes either side may send after its key (BIP324: 4095). */
export declare const MAX_GARBAGE_LEN: 4095;
/** The network names the library knows, in its order. */
export declare const NETWORKS: readonly ['mainnet', 'testnet', 'testnet4', 'signet', 'regtest'];
/** A network: a name, the 4-byte magic as 8 hex digits, or the 4 magic bytes. */
export type Network = 'mainnet' | 'testnet' | 'testnet4' | 'signet' | 'regtest' | (string & {}) | Uint8Array;
