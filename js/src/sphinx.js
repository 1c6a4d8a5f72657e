// wireseal/sphinx: BOLT #4's sizes, as the Python package's constants
// (test/sphinx.test.mjs checks each against the module's behaviour).

/** A payment onion's payload area, in bytes. */
export const PAYMENT_AREA = 1300;
/** A large onion message's payload area, in bytes. */
export const MESSAGE_AREA_LARGE = 32768;
/** A payment onion's size: version, ephemeral key, area, HMAC. */
export const PAYMENT_ONION_LEN = 1366;
/** Size of `attribution_data`: 80 bytes of hold times and 840 of HMACs. */
export const ATTRIBUTION_LEN = 920;
/** Longest failure packet a hop passes back (longer ones are truncated). */
export const MAX_RETURN_LEN = 32768;
/** Longest `fulfillment_payload`. */
export const MAX_PAYLOAD_LEN = 32768;
