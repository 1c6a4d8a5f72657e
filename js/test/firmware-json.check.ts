// Compiled by `tsc` (scripts/js-test), never run: decodeFirmwareJson's
// generated declaration (a string, or undefined when the gateway would
// publish none).
import { EnvelopeDecoder } from 'wireseal/meshtastic';

const decoder: EnvelopeDecoder = new EnvelopeDecoder({ signaturePolicy: 'compatible' });
const text: string | undefined = decoder.decodeFirmwareJson(Date.now(), new Uint8Array(0));
const object: Record<string, unknown> | undefined = text === undefined ? undefined : JSON.parse(text);
void object;
