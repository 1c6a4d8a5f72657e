// Compiled by `tsc` (scripts/js-test), never run: the package's generated
// declarations must describe wireseal/sphinx (a wrong name or type fails
// the build).
import { sphinx, WiresealError } from 'wireseal';
import {
  ATTRIBUTION_LEN,
  PAYMENT_ONION_LEN,
  build,
  peel,
  peelBatch,
  unblind,
  type Area,
  type Attribution,
  type Built,
  type BlindedPath,
  type FailurePacket,
  type Fulfilled,
  type HoldTimes,
  type Malformed,
  type Peeled,
  type PeelResult,
  type Unblinded,
  type Unwrapped,
  type UnwrapResult,
} from 'wireseal/sphinx';

const key: Uint8Array = new Uint8Array(32).fill(0x41);
const pub: Uint8Array = sphinx.publicKeyOf(key);
const ad: Uint8Array = new Uint8Array(32);
const area: Area = 'message-large';
const built: Built = build([[pub, Uint8Array.of(2, 1, 1)]], ad, { area: 1300, padding: 'random' });
const onion: Uint8Array = built.onion;
const secrets: Uint8Array[] = built.sharedSecrets;
const p: Peeled = peel(key, onion, ad, { message: false });
const next: Uint8Array | undefined = p.nextOnion;
const isFinal: boolean = p.isFinal;
const batch: PeelResult[] = peelBatch(key, [[onion, ad]]);
const first: PeelResult | undefined = batch[0];
const failed: boolean = first instanceof WiresealError;
const ss: Uint8Array = sphinx.hopSharedSecret(key, onion.subarray(1, 34));
const f: FailurePacket = sphinx.failureCreate(ss, Uint8Array.of(0x40, 0x0f), { holdTimeMs: 100, attribution: true, blinded: false });
const w: FailurePacket = sphinx.failureWrap(ss, f.packet, { attributionData: f.attributionData, holdTimeMs: 5 });
const u: Unwrapped = sphinx.failureUnwrap(secrets, w.packet, w.attributionData, { blindedHops: 0 });
const hop: number | undefined = u.hop;
const attribution: Attribution = u.attribution;
const holds: number[] = u.holdTimesMs;
const many: UnwrapResult[] = sphinx.failureUnwrapBatch([[secrets, w.packet, undefined]]);
const m: Malformed | undefined = sphinx.malformed(key, onion, ad, { pathKey: pub });
const code: number | undefined = m?.failureCode;
const data: Uint8Array = sphinx.fulfillWrap(ss, { holdTimeMs: 1 });
const c: Fulfilled = sphinx.fulfillCreate(ss, { records: Uint8Array.of(3, 1, 42), blinded: true });
const r: Fulfilled = sphinx.fulfillRelay(ss, { payload: c.payload, attributionData: c.attributionData });
const h: HoldTimes = sphinx.fulfillUnwrap(secrets, data, { payload: r.payload, blindedHops: 0 });
const status: 'absent' | 'valid' | 'ignored' = h.payloadStatus;
const padded: Uint8Array = sphinx.fulfillmentPadded(Uint8Array.of(3, 1, 42));
const path: BlindedPath = sphinx.blindPath([[pub, Uint8Array.of(4, 0)]]);
const hop0: Unblinded = unblind(key, path.firstPathKey);
const opened: Uint8Array = hop0.decrypt(path.encryptedData[0] ?? new Uint8Array(0));
const nextKey: Uint8Array = hop0.nextPathKey(opened);
const computed: Uint8Array = hop0.nextPathKey();
const blinded: Uint8Array = hop0.blindedPrivateKey;
hop0.free();
// Options and trailing optional bytes may be left out.
const bare: Peeled = peel(key, onion, ad);
const plain: Built = build([[pub, Uint8Array.of(1)]], ad);
const absent: HoldTimes = sphinx.fulfillUnwrap(secrets);
const noData: Unwrapped = sphinx.failureUnwrap(secrets, w.packet);
const fresh: FailurePacket = sphinx.failureCreate(ss, Uint8Array.of(0x20, 0x02));
const len: number = sphinx.onionLen(area) + PAYMENT_ONION_LEN + ATTRIBUTION_LEN + sphinx.MAX_RETURN_LEN;
void [bare, plain, absent, noData, fresh, next, isFinal, failed, hop, holds, many, code, status, padded, nextKey, computed, blinded, len];
