#!/usr/bin/env node
// MeshCore peer for wireseal's tests and bench: @michaelhart/meshcore-decoder 0.3.0 (npm).
//
//   node js_peer.mjs decode HEX [--channel-key HEX]... [--node-key PRV128HEX]... [--peer PUBHEX]...
//       One JSON line: what the decoder made of the packet (route, type, path,
//       advert fields and signature validity, decrypted group text).
//   node js_peer.mjs bench FILE [--channel-key HEX]... [--min-seconds S] [--no-verify]
//       Decodes every hex line of FILE (repeating the file until --min-seconds,
//       default 1, have passed); one JSON line: packets, seconds, packets_per_s,
//       accepted, decrypted.
//
// The package is looked up in $MESHCORE_NODE_MODULES (a node_modules folder),
// then in target/js-peers/node_modules of this repository (where
// scripts/setup-peers.sh installs it), then from this file's folder.
// Decoding uses decodeWithVerification (adverts' signatures are checked) unless
// --no-verify. `accepted`: the decoder marked the packet valid and the payload
// decoder (where the type has one) marked the payload valid.
//
// Where 0.3.0 is lenient or wrong (FORMAT.md section 6), each measured by
// running it (check_peer_quirks.py re-measures every claim below;
// make_malformed.py and make_collisions.py record its verdicts in
// vectors/meshcore/malformed.json and mac_collisions.json):
//   * refuses the reserved path hash size (0b11) and a path past the end, but
//     has no MAX_PATH_SIZE 64 check (path_len 0x7f, 126 path bytes, is read
//     whole), no MAX_PACKET_PAYLOAD 184 check and no version check (versions
//     1, 2 and 3 decode and decrypt).
//   * payload minimums differ: ADVERT needs 101 bytes (firmware 100), TXT_MSG,
//     REQ, RESPONSE 4 (5), ANON_REQ 35 (36), GRP_TXT 3 (4); a type without a
//     payload decoder (GRP_DATA, MULTIPART, RAW_CUSTOM) has none, even empty.
//   * no DM decryption at all in 0.3.0: --node-key/--peer are accepted and
//     passed to the key store, which its TXT_MSG/REQ/RESPONSE decoders ignore.
//   * PATH payloads are read as if unencrypted (path_len, path, extra_type); in
//     the firmware they are dest, src, MAC and ciphertext like a TXT_MSG. REQ
//     payloads carry placeholders (requestType GetStats, timestamp 0) since
//     they cannot be decrypted.
//   * channel keys: the key given is used as is for AES, so a 32-byte key makes
//     crypto-js run AES-256 and the garbage is reported as decrypted (the MAC,
//     HMAC over the 32-byte secret, is right). After a MAC match it reports the
//     packet decrypted whatever the plaintext (no `(flags >> 2) == 0` check: a
//     txt_type 1 group text is "decrypted").
//   * timestamps are read with `b[3] << 24`, a signed 32-bit int: a timestamp
//     of 2^31 or more comes out negative.
//   * advert signatures are verified over all of appdata, without the
//     firmware's 32-byte truncation (an advert with more than 32 bytes of
//     appdata, signed over the first 32, is valid in the firmware and invalid
//     here); an advert payload under 101 bytes is invalid.
//   * `messageHash` is not the firmware's packet hash.
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const here = dirname(fileURLToPath(import.meta.url));
const PKG = '@michaelhart/meshcore-decoder';

function loadDecoder() {
  const dirs = [];
  if (process.env.MESHCORE_NODE_MODULES) dirs.push(resolve(process.env.MESHCORE_NODE_MODULES));
  dirs.push(resolve(here, '..', '..', 'target', 'js-peers', 'node_modules'));
  for (const d of dirs) {
    if (existsSync(join(d, PKG, 'package.json'))) {
      const req = createRequire(join(d, 'noop.js'));
      return { mc: req(PKG), version: req(`${PKG}/package.json`).version };
    }
  }
  const req = createRequire(join(here, 'noop.js'));
  return { mc: req(PKG), version: req(`${PKG}/package.json`).version };
}

let mc, pkgVersion;
try {
  ({ mc, version: pkgVersion } = loadDecoder());
} catch (e) {
  process.stderr.write(`js_peer: cannot load ${PKG} (set MESHCORE_NODE_MODULES or run scripts/setup-peers.sh): ${e.message}\n`);
  process.exit(2);
}
const { MeshCorePacketDecoder, PayloadType } = mc;

const ROUTES = ['TRANSPORT_FLOOD', 'FLOOD', 'DIRECT', 'TRANSPORT_DIRECT'];
const TYPES = ['REQ', 'RESPONSE', 'TXT_MSG', 'ACK', 'ADVERT', 'GRP_TXT', 'GRP_DATA', 'ANON_REQ', 'PATH',
  'TRACE', 'MULTIPART', 'CONTROL', 'RESERVED_12', 'RESERVED_13', 'RESERVED_14', 'RAW_CUSTOM'];

function parseArgs(argv) {
  const a = { channelKeys: [], nodeKeys: [], peers: [], minSeconds: 1, verify: true, pos: [] };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--channel-key') a.channelKeys.push(argv[++i].toLowerCase());
    else if (k === '--node-key') a.nodeKeys.push(argv[++i].toLowerCase());
    else if (k === '--peer') a.peers.push(argv[++i].toLowerCase());
    else if (k === '--min-seconds') a.minSeconds = Number(argv[++i]);
    else if (k === '--no-verify') a.verify = false;
    else a.pos.push(k);
  }
  return a;
}

function options(a) {
  if (!a.channelKeys.length && !a.nodeKeys.length) return undefined;
  // nodeKeys are keyed by public key; 0.3.0 never uses them (no DM decryption),
  // so the private key stands in for the unknown public key here.
  const nodeKeys = {};
  for (const k of a.nodeKeys) nodeKeys[k] = k;
  return { keyStore: MeshCorePacketDecoder.createKeyStore({ channelSecrets: a.channelKeys, nodeKeys }) };
}

const lower = (s) => (typeof s === 'string' ? s.toLowerCase() : s);
const hashInt = (h) => (h ? parseInt(h, 16) : null);

function describe(p) {
  const d = p.payload ? p.payload.decoded : null;
  const out = {
    valid: !!p.isValid,
    errors: p.errors || [],
    route: ROUTES[p.routeType],
    type: TYPES[p.payloadType],
    version: p.payloadVersion,
    transport_codes: p.transportCodes || null,
    path_hash_size: p.pathHashSize,
    path_hops: p.pathLength,
    path: (p.path || []).map(lower),
    message_hash: p.messageHash,
    payload: lower(p.payload ? p.payload.raw : ''),
    total_bytes: p.totalBytes,
    payload_valid: d ? !!d.isValid : null,
  };
  if (d && d.errors && d.errors.length) out.payload_errors = d.errors;
  out.accepted = out.valid && out.payload_valid !== false;
  if (!d) return out;
  switch (p.payloadType) {
    case PayloadType.Advert: {
      const app = d.appData || {};
      out.advert = {
        pub: lower(d.publicKey), timestamp: d.timestamp, signature: lower(d.signature),
        signature_valid: d.signatureValid === undefined ? null : d.signatureValid,
        flags: app.flags, node_type: app.deviceRole, name: app.name === undefined ? null : app.name,
        lat: app.location ? app.location.latitude : null, lon: app.location ? app.location.longitude : null,
      };
      break;
    }
    case PayloadType.GroupText:
    case PayloadType.GroupData: {
      const g = { channel_hash: hashInt(d.channelHash), mac: lower(d.cipherMac), ciphertext_len: d.ciphertextLength,
        decrypted: d.decrypted ? { ...d.decrypted } : null };
      if (g.decrypted && p.payloadType === PayloadType.GroupText) {
        const s = d.decrypted.sender;
        g.decrypted.text = s !== undefined ? `${s}: ${d.decrypted.message}` : d.decrypted.message;
      }
      out.group = g;
      break;
    }
    case PayloadType.TextMessage:
    case PayloadType.Request:
    case PayloadType.Response:
      out.peer_msg = { dest_hash: hashInt(d.destinationHash), src_hash: hashInt(d.sourceHash), mac: lower(d.cipherMac),
        decrypted: d.decrypted || null, dm_decryption: 'unsupported in 0.3.0' };
      if (p.payloadType === PayloadType.Request) out.peer_msg.request_type_placeholder = d.requestType;
      break;
    case PayloadType.Path:
      out.peer_msg = { read_as_plain_path: { path_length: d.pathLength, path_hashes: d.pathHashes, extra_type: d.extraType },
        dm_decryption: 'unsupported in 0.3.0' };
      break;
    case PayloadType.AnonRequest:
      out.anon = { dest_hash: hashInt(d.destinationHash), sender_pub: lower(d.senderPublicKey), mac: lower(d.cipherMac) };
      break;
    case PayloadType.Ack:
      out.ack = { crc: lower(d.checksum) };
      break;
    case PayloadType.Trace:
      out.trace = { tag: lower(d.traceTag), auth_code: d.authCode, flags: d.flags,
        hashes: (d.pathHashes || []).map(lower), snr_db: d.snrValues };
      break;
    default:
      break;
  }
  return out;
}

async function decodeOne(hex, opts, verify) {
  try {
    const p = verify ? await MeshCorePacketDecoder.decodeWithVerification(hex, opts) : MeshCorePacketDecoder.decode(hex, opts);
    return describe(p);
  } catch (e) {
    return { valid: false, accepted: false, errors: [`exception: ${e && e.message}`] };
  }
}

async function cmdDecode(a) {
  const hex = (a.pos[1] || '').replace(/\s+/g, '');
  const out = { peer: 'npm @michaelhart/meshcore-decoder', peer_version: pkgVersion };
  Object.assign(out, await decodeOne(hex, options(a), a.verify));
  process.stdout.write(JSON.stringify(out) + '\n');
}

async function cmdBench(a) {
  const lines = readFileSync(a.pos[1], 'utf8').split('\n').map((s) => s.trim()).filter((s) => s && !s.startsWith('#'));
  const opts = options(a);
  let n = 0, accepted = 0, decrypted = 0;
  const t0 = performance.now();
  let elapsed = 0;
  for (;;) {
    for (const hex of lines) {
      const p = a.verify ? await MeshCorePacketDecoder.decodeWithVerification(hex, opts) : MeshCorePacketDecoder.decode(hex, opts);
      n++;
      const d = p.payload ? p.payload.decoded : null;
      if (p.isValid && (!d || d.isValid)) accepted++;
      if (d && d.decrypted) decrypted++;
    }
    elapsed = (performance.now() - t0) / 1000;
    if (elapsed >= a.minSeconds) break;
  }
  process.stdout.write(JSON.stringify({ peer: 'npm @michaelhart/meshcore-decoder', peer_version: pkgVersion,
    file_packets: lines.length, packets: n, seconds: Number(elapsed.toFixed(6)),
    packets_per_s: Number((n / elapsed).toFixed(1)), accepted, decrypted, verify: a.verify }) + '\n');
}

const args = parseArgs(process.argv.slice(2));
const cmd = args.pos[0];
if (cmd === 'decode' && args.pos.length === 2) await cmdDecode(args);
else if (cmd === 'bench' && args.pos.length === 2) await cmdBench(args);
else {
  process.stderr.write('usage: js_peer.mjs decode HEX [--channel-key HEX]... | bench FILE [--channel-key HEX]... [--min-seconds S] [--no-verify]\n');
  process.exit(2);
}
