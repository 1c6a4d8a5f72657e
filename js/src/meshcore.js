// wireseal/meshcore: the module's constants (the library's, as the Python
// package exports them; js/test/meshcore.test.mjs checks each against the
// firmware's published values and the library's behaviour at the limit).

/** The public channel's 16-byte key (`izOH6cXN6mrJ5e26oRXNcg==`, hash 0x11). */
export const PUBLIC_CHANNEL_KEY = Uint8Array.of(
  0x8b, 0x33, 0x87, 0xe9, 0xc5, 0xcd, 0xea, 0x6a, 0xc9, 0xe5, 0xed, 0xba, 0xa1, 0x15, 0xcd, 0x72,
);
/** Largest packet (a LoRa frame), bytes. */
export const MAX_TRANS_UNIT = 255;
/** Largest payload the firmware accepts, bytes. */
export const MAX_PACKET_PAYLOAD = 184;
/** Largest path, bytes. */
export const MAX_PATH_SIZE = 64;
/** Longest text a node sends (`"<sender>: <message>"` for a group), bytes. */
export const MAX_TEXT_LEN = 160;
