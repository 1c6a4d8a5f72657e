export type {
  sphinx_Area as Area,
  sphinx_Attribution as Attribution,
  sphinx_Built as Built,
  sphinx_Peeled as Peeled,
  sphinx_PeelResult as PeelResult,
  sphinx_BlindedPath as BlindedPath,
  sphinx_FailurePacket as FailurePacket,
  sphinx_Unwrapped as Unwrapped,
  sphinx_UnwrapResult as UnwrapResult,
  sphinx_HoldTimes as HoldTimes,
  sphinx_Fulfilled as Fulfilled,
  sphinx_Malformed as Malformed,
} from '../wasm/wireseal_wasm.js';

/** A payment onion's payload area, in bytes. */
export declare const PAYMENT_AREA: 1300;
/** A large onion message's payload area, in bytes. */
export declare const MESSAGE_AREA_LARGE: 32768;
/** A payment onion's size: version, ephemeral key, area, HMAC. */
export declare const PAYMENT_ONION_LEN: 1366;
/** Size of `attribution_data`: 80 bytes of hold times and 840 of HMACs. */
export declare const ATTRIBUTION_LEN: 920;
/** Longest failure packet a hop passes back (longer ones are truncated). */
export declare const MAX_RETURN_LEN: 32768;
/** Longest `fulfillment_payload`. */
export declare const MAX_PAYLOAD_LEN: 32768;
