/** The public channel's 16-byte key (`izOH6cXN6mrJ5e26oRXNcg==`, hash 0x11). */
export declare const PUBLIC_CHANNEL_KEY: Uint8Array;
/** Largest packet (a LoRa frame), bytes. */
export declare const MAX_TRANS_UNIT: number;
/** Largest payload the firmware accepts, bytes. */
export declare const MAX_PACKET_PAYLOAD: number;
/** Largest path, bytes. */
export declare const MAX_PATH_SIZE: number;
/** Longest text a node sends (`"<sender>: <message>"` for a group), bytes. */
export declare const MAX_TEXT_LEN: number;
export type {
  meshcore_PacketRecord as PacketRecord,
  meshcore_PacketHeader as PacketHeader,
} from '../wasm/wireseal_wasm.js';
