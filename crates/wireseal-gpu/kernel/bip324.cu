/*
 * BIP324 packet kernels: FSChaCha20 lengths and FSChaCha20Poly1305 bodies
 * (RFC 8439 ChaCha20-Poly1305, empty AAD) for many sessions' packets at once.
 *
 * For a seal the host derives, for every packet, the key of its epoch, its
 * nonce index and its length-cipher chunk (src/plan.rs), so every packet is
 * independent here. An open's packets are found here: the host copies each
 * session's received bytes in as one run, with the session's keys and
 * positions (a `ws_run`), and
 *
 *   ws_open_frame   one thread a session walks its run, decrypting its
 *                   3-byte lengths in order and keeping them, claims room
 *                   in each list for its packets (atomically: each run's
 *                   entries lie together, runs in any order), and writes
 *                   its packets' descriptors and parts and the key entry
 *                   of every later epoch (rekeying both ciphers as BIP324
 *                   says)
 *
 * after which every packet is independent too. A packet's body (header
 * byte + contents) is cut into parts of `task_bytes` (a multiple of 64);
 * one thread handles one part:
 *
 *   seal:  ws_seal_parts   encrypts its part and hashes it (Poly1305); a
 *                          one-part packet also writes its tag, and part 0
 *                          writes the length field and the header byte
 *          ws_seal_finish  (packets of several parts) sums the parts' hashes
 *                          and writes the tag
 *   open:  ws_open_parts   hashes its part's ciphertext; a one-part packet
 *                          checks its tag and decrypts only if it verifies
 *          ws_open_verify  (several parts) sums, checks the tag, sets status
 *          ws_open_decrypt (several parts) decrypts parts of verified packets
 *
 * and each packet's status is also written into the top byte of its
 * length's entry, which is what the host reads back.
 *
 * Poly1305 over the parts: with q blocks of 16 bytes in all (the padded
 * ciphertext, then the lengths block), part k covering blocks [s, e) computes
 * P = sum m_i r^(e-i) by Horner's rule, then multiplies by r^(q-e); the tag is
 * the sum of the parts' values, reduced mod 2^130 - 5, plus s mod 2^128.
 *
 * Nothing here is released before its tag verifies: an open never writes
 * plaintext of a packet whose tag fails (status 2), and never touches its
 * bytes at all.
 *
 * The same source compiles for the host (kernel/host_shim.h supplies the
 * CUDA words and the grid), where the tests check it against the library.
 */

#ifdef WS_HOST
#include "host_shim.h"
#include "primitives.cuh"
#endif

/* Layout shared with src/layout.rs (checked by its tests). */
typedef struct {
    u32 packet_key[8];
    u32 length_key[8];
    u64 packet_epoch;
    u64 length_epoch;
} ws_key;

typedef struct {
    u64 offset;      /* of the 3-byte length field in `data` (seal: offset + 3 is a multiple of 16) */
    u32 len;         /* contents bytes (the body is len + 1 bytes) */
    u32 key;         /* index into the key table */
    u32 index;       /* packet index in its epoch: nonce LE32(index) || LE64(epoch) */
    u32 chunk;       /* length-cipher chunk in its epoch (seal) */
    u32 header;      /* header byte to seal (0 or 0x80); an open's: its entry in lens */
    u32 first_task;  /* the packet's first part in the task list */
} ws_packet;

typedef struct {
    u32 packet;
    u32 part;
} ws_task;

/* One session's received bytes in an open (in: the host; out: the device). */
typedef struct {
    u64 offset;       /* of the run's first length field in `data` */
    u32 len;          /* its bytes */
    u32 limit;        /* most packets the session may still open */
    u32 key;          /* its first key entry (the host's); each later epoch's follows */
    u32 keys;         /* key entries it may use */
    u32 index;        /* packet index in the epoch at its start */
    u32 chunk;        /* length-cipher chunk in the epoch at its start */
    u32 max;          /* the receiver's limit on a packet's contents bytes */
    u32 lens;         /* its first entry in the lens list (room for `limit`) */
    u32 count;        /* out: its whole packets (up to limit) */
    u32 reserved;
} ws_run;

typedef struct {
    u64 packets;   /* ws_packet * */
    u64 tasks;     /* ws_task *, every part of every packet, in packet order */
    u64 multi;     /* u32 *, packets of more than one part */
    u64 mtasks;    /* u32 *, indices into tasks: the parts of those packets */
    u64 keys;      /* ws_key * */
    u64 data;      /* u8 * */
    u64 status;    /* u8 *, per packet (open): 1 verified, 2 failed */
    u64 partials;  /* u32 *, 8 per task */
    u32 ntasks;    /* (an open's: the most there can be; see totals) */
    u32 nmulti;
    u32 nmtasks;
    u32 task_bytes;
    u64 runs;      /* ws_run * (open) */
    u64 lens;      /* u32 *, per packet: its contents bytes, and its status in the top byte, each run's from its `lens` (open) */
    u64 totals;    /* u32[4] * (open): packets, tasks, multi, mtasks, as framed (zero before) */
    u32 nruns;
    u32 reserved;
} ws_args;

/* How many items a kernel has: an open's as framed on the device, a
 * seal's as the host gave them. */
WS_DEV u32 ws_items(const ws_args *a, u32 which, u32 given)
{
    return a->totals != 0 ? ((const u32 *)a->totals)[which] : given;
}

/* Hashes up to 64 bytes of ciphertext given as words (bytes past n are zero). */
WS_DEV void ws_poly_words(u32 h[5], const u32 r[5], const u32 w[16], u32 n)
{
    for (u32 j = 0; j * 16 < n; j++)
        ws_poly_block(h, r, w[4 * j], w[4 * j + 1], w[4 * j + 2], w[4 * j + 3], WS_HIBIT);
}

/* What one part needs: its packet, key words, nonce, one-time key block. */
typedef struct {
    const ws_packet *p;
    const ws_key *k;
    u32 key[8];
    u32 n1, n2;
    u8 *body;
    u32 blen, start, end, nparts, last;
    u32 b0[16];
    u32 r[5];
} ws_part;

WS_DEV void ws_part_init(ws_part *t, const ws_args *a, const ws_packet *p, u32 part)
{
    const ws_key *k = (const ws_key *)a->keys + p->key;
    t->p = p;
    t->k = k;
    for (int i = 0; i < 8; i++)
        t->key[i] = k->packet_key[i];
    t->n1 = (u32)k->packet_epoch;
    t->n2 = (u32)(k->packet_epoch >> 32);
    t->body = (u8 *)a->data + p->offset + 3;
    t->blen = p->len + 1;
    t->nparts = (t->blen + a->task_bytes - 1) / a->task_bytes;
    t->start = part * a->task_bytes;
    t->end = t->start + a->task_bytes < t->blen ? t->start + a->task_bytes : t->blen;
    t->last = part + 1 == t->nparts;
    ws_chacha(t->key, 0, p->index, t->n1, t->n2, t->b0);
    ws_poly_r(t->b0, t->r);
}

/* The keystream block of body bytes [64 j, 64 j + 64). */
WS_DEV void ws_part_stream(const ws_part *t, u32 j, u32 ks[16])
{
    ws_chacha(t->key, 1 + j, t->p->index, t->n1, t->n2, ks);
}

/* Whether a whole block at `p` can be moved with 16-byte accesses. A
 * seal's bodies are placed on 16-byte boundaries; an open's runs are
 * copied in as they are on the wire, so its bodies sit anywhere, and their
 * whole blocks move by aligned words (ws_load64_any, ws_store64_any). */
WS_DEV u32 ws_wide(const u8 *p, u32 n)
{
    return n == 64 && ((unsigned long long)p & 15) == 0;
}

/* A whole block at any alignment, from the 17 aligned words that cover it,
 * shifted into place. They lie inside the packet: a body's whole block is
 * followed by at least the 16-byte tag, and it starts at least 3 bytes (the
 * length field) past the data region's start, a word boundary. */
WS_DEV void ws_load64_any(const u8 *p, u32 w[16])
{
    u32 off = (u32)((unsigned long long)p & 3);
    const u8 *q = p - off;
    if (off == 0) {
        for (int i = 0; i < 16; i++)
            w[i] = ws_word(q + 4 * i);
        return;
    }
    u32 sh = 8 * off;
    u32 lo = ws_word(q);
    for (int i = 0; i < 16; i++) {
        u32 hi = ws_word(q + 4 * (i + 1));
        w[i] = (lo >> sh) | (hi << (32 - sh));
        lo = hi;
    }
}

/* A whole block at any alignment: the aligned words wholly inside it, and
 * the bytes at its two ends one at a time (the words there also hold bytes
 * of a neighbouring block, which another thread may be writing). */
WS_DEV void ws_store64_any(u8 *p, const u32 w[16])
{
    u32 i = 0;
    for (; i < 64 && ((unsigned long long)(p + i) & 3) != 0; i++)
        p[i] = ws_byte(w, i);
    for (; i + 4 <= 64; i += 4) {
        u32 v = (u32)ws_byte(w, i) | (u32)ws_byte(w, i + 1) << 8 | (u32)ws_byte(w, i + 2) << 16 |
                (u32)ws_byte(w, i + 3) << 24;
        ws_put_word(p + i, v);
    }
    for (; i < 64; i++)
        p[i] = ws_byte(w, i);
}

/* Loads body bytes [pos, pos + n) as words, zero past n. */
WS_DEV void ws_load_part(const u8 *p, u32 n, u32 w[16])
{
    if (ws_wide(p, n)) {
        ws_load64(p, w);
        return;
    }
    if (n == 64) {
        ws_load64_any(p, w);
        return;
    }
    for (int i = 0; i < 16; i++)
        w[i] = 0;
    for (u32 i = 0; i < n; i++)
        w[i >> 2] |= (u32)p[i] << (8 * (i & 3));
}

WS_DEV void ws_store_part(u8 *p, u32 n, const u32 w[16])
{
    if (ws_wide(p, n)) {
        ws_store64(p, w);
        return;
    }
    if (n == 64) {
        ws_store64_any(p, w);
        return;
    }
    for (u32 i = 0; i < n; i++)
        p[i] = ws_byte(w, i);
}

/* A part's hash scaled to its place: h * r^(q - e), q = all blocks. */
WS_DEV void ws_part_scale(const ws_part *t, u32 h[5])
{
    u32 q = (t->blen + 15) / 16 + 1;
    u32 e = t->last ? q : t->end / 16;
    ws_poly_mul_pow(h, t->r, q - e);
}

WS_DEV void ws_store_partial(const ws_args *a, u32 task, const u32 h[5])
{
    u32 *o = (u32 *)a->partials + 8 * (u64)task;
    for (int i = 0; i < 5; i++)
        o[i] = h[i];
}

/* Sums the parts' hashes of a packet of several parts. */
WS_DEV void ws_sum_partials(const ws_args *a, const ws_packet *p, u32 nparts, u32 h[5])
{
    for (int i = 0; i < 5; i++)
        h[i] = 0;
    for (u32 k = 0; k < nparts; k++) {
        const u32 *o = (const u32 *)a->partials + 8 * (u64)(p->first_task + k);
        for (int i = 0; i < 5; i++)
            h[i] += o[i];
        ws_poly_carry(h);
    }
}

WS_DEV void ws_write_tag(u8 *at, const u32 tag[4])
{
    for (u32 i = 0; i < 16; i++)
        at[i] = ws_byte(tag, i);
}

WS_DEV u32 ws_tag_ok(const u8 *at, const u32 tag[4])
{
    u32 diff = 0;
    for (u32 i = 0; i < 16; i++)
        diff |= (u32)(at[i] ^ ws_byte(tag, i));
    return diff == 0;
}

/* The FSChaCha20 length field: bytes 3 chunk .. 3 chunk + 3 of the epoch's
 * keystream (nonce LE32(0) || LE64(epoch)) XORed with LE24(len). */
WS_DEV void ws_write_length(const ws_key *k, const ws_packet *p, u8 *at)
{
    u32 lk[8], ks[16];
    for (int i = 0; i < 8; i++)
        lk[i] = k->length_key[i];
    u32 n1 = (u32)k->length_epoch, n2 = (u32)(k->length_epoch >> 32);
    u32 pos = 3 * p->chunk;
    u32 block = pos / 64;
    ws_chacha(lk, block, 0, n1, n2, ks);
    for (u32 i = 0; i < 3; i++) {
        u32 b = pos + i;
        if (b / 64 != block) {
            block = b / 64;
            ws_chacha(lk, block, 0, n1, n2, ks);
        }
        at[i] = (u8)(p->len >> (8 * i)) ^ ws_byte(ks, b % 64);
    }
}

/* XORs the keystream into body bytes [start, end). */
WS_DEV void ws_part_crypt(const ws_part *t)
{
    u32 w[16], ks[16];
    for (u32 pos = t->start; pos < t->end; pos += 64) {
        u32 n = t->end - pos < 64 ? t->end - pos : 64;
        ws_part_stream(t, pos / 64, ks);
        ws_load_part(t->body + pos, n, w);
        for (int i = 0; i < 16; i++)
            w[i] ^= ks[i];
        ws_store_part(t->body + pos, n, w);
    }
}

/* Hashes the ciphertext of body bytes [start, end). */
WS_DEV void ws_part_hash(const ws_part *t, u32 h[5])
{
    u32 w[16];
    for (u32 pos = t->start; pos < t->end; pos += 64) {
        u32 n = t->end - pos < 64 ? t->end - pos : 64;
        ws_load_part(t->body + pos, n, w);
        ws_poly_words(h, t->r, w, n);
    }
}

/* An opened packet's status: 1 verified, 2 failed; for a packet framed on
 * the device also in the top byte of its length's entry (`header`). */
WS_DEV void ws_set_status(const ws_args *a, u32 packet, u32 ok)
{
    ((u8 *)a->status)[packet] = ok ? 1 : 2;
    if (a->lens != 0) {
        const ws_packet *p = (const ws_packet *)a->packets + packet;
        ((u32 *)a->lens)[p->header] |= (ok ? 1u : 2u) << 24;
    }
}

WS_KERNEL ws_seal_parts(ws_args a)
{
    const ws_packet *packets = (const ws_packet *)a.packets;
    const ws_task *tasks = (const ws_task *)a.tasks;
    WS_FOR(i, a.ntasks) {
        ws_task task = tasks[i];
        ws_part t;
        ws_part_init(&t, &a, packets + task.packet, task.part);
        if (task.part == 0) {
            t.body[0] = (u8)t.p->header;
            ws_write_length(t.k, t.p, t.body - 3);
        }
        u32 h[5] = {0, 0, 0, 0, 0};
        u32 w[16], ks[16];
        for (u32 pos = t.start; pos < t.end; pos += 64) {
            u32 n = t.end - pos < 64 ? t.end - pos : 64;
            ws_part_stream(&t, pos / 64, ks);
            ws_load_part(t.body + pos, n, w);
            for (int j = 0; j < 16; j++)
                w[j] ^= ks[j];
            /* Poly1305 pads the ciphertext with zeros, not keystream. */
            for (u32 j = n; j < 64; j++)
                w[j >> 2] &= ~(0xffu << (8 * (j & 3)));
            ws_store_part(t.body + pos, n, w);
            ws_poly_words(h, t.r, w, n);
        }
        if (t.last)
            ws_poly_block(h, t.r, 0, 0, t.blen, 0, WS_HIBIT);
        if (t.nparts == 1) {
            u32 tag[4];
            ws_poly_finish(h, t.b0, tag);
            ws_write_tag(t.body + t.blen, tag);
        } else {
            ws_part_scale(&t, h);
            ws_store_partial(&a, i, h);
        }
    }
}

WS_KERNEL ws_seal_finish(ws_args a)
{
    const ws_packet *packets = (const ws_packet *)a.packets;
    const u32 *multi = (const u32 *)a.multi;
    WS_FOR(i, a.nmulti) {
        ws_part t;
        ws_part_init(&t, &a, packets + multi[i], 0);
        u32 h[5], tag[4];
        ws_sum_partials(&a, t.p, t.nparts, h);
        ws_poly_finish(h, t.b0, tag);
        ws_write_tag(t.body + t.blen, tag);
    }
}

WS_KERNEL ws_open_parts(ws_args a)
{
    const ws_packet *packets = (const ws_packet *)a.packets;
    const ws_task *tasks = (const ws_task *)a.tasks;
    u32 n = ws_items(&a, 1, a.ntasks);
    WS_FOR(i, n) {
        ws_task task = tasks[i];
        ws_part t;
        ws_part_init(&t, &a, packets + task.packet, task.part);
        u32 h[5] = {0, 0, 0, 0, 0};
        ws_part_hash(&t, h);
        if (t.last)
            ws_poly_block(h, t.r, 0, 0, t.blen, 0, WS_HIBIT);
        if (t.nparts == 1) {
            u32 tag[4];
            ws_poly_finish(h, t.b0, tag);
            u32 ok = ws_tag_ok(t.body + t.blen, tag);
            if (ok)
                ws_part_crypt(&t);
            ws_set_status(&a, task.packet, ok);
        } else {
            ws_part_scale(&t, h);
            ws_store_partial(&a, i, h);
        }
    }
}

WS_KERNEL ws_open_verify(ws_args a)
{
    const ws_packet *packets = (const ws_packet *)a.packets;
    const u32 *multi = (const u32 *)a.multi;
    u32 n = ws_items(&a, 2, a.nmulti);
    WS_FOR(i, n) {
        ws_part t;
        ws_part_init(&t, &a, packets + multi[i], 0);
        u32 h[5], tag[4];
        ws_sum_partials(&a, t.p, t.nparts, h);
        ws_poly_finish(h, t.b0, tag);
        ws_set_status(&a, multi[i], ws_tag_ok(t.body + t.blen, tag));
    }
}

WS_KERNEL ws_open_decrypt(ws_args a)
{
    const ws_packet *packets = (const ws_packet *)a.packets;
    const ws_task *tasks = (const ws_task *)a.tasks;
    const u32 *mtasks = (const u32 *)a.mtasks;
    const u8 *status = (const u8 *)a.status;
    u32 n = ws_items(&a, 3, a.nmtasks);
    WS_FOR(i, n) {
        ws_task task = tasks[mtasks[i]];
        if (status[task.packet] != 1)
            continue;
        ws_part t;
        ws_part_init(&t, &a, packets + task.packet, task.part);
        ws_part_crypt(&t);
    }
}

/* BIP324's rekey interval (messages per key) and a packet's bytes besides
 * its contents (length field, header byte, tag). */
#define WS_REKEY 224u
#define WS_OVERHEAD 20u

/* A session's receiving ciphers as a walk over its run moves them. */
typedef struct {
    u32 lk[8], pk[8];
    u64 le, pe;
    u32 chunk, index;
    u32 ks[16]; /* the length keystream's block `ksb` */
    u32 ksb;
} ws_walk;

/* The next packet's contents length: the 3 bytes at `at` XORed with
 * length-keystream bytes 3 chunk .. 3 chunk + 3 of the epoch. */
WS_DEV u32 ws_walk_length(ws_walk *w, const u8 *at)
{
    u32 len = 0;
    for (u32 i = 0; i < 3; i++) {
        u32 b = 3 * w->chunk + i;
        if (b / 64 != w->ksb) {
            w->ksb = b / 64;
            ws_chacha(w->lk, w->ksb, 0, (u32)w->le, (u32)(w->le >> 32), w->ks);
        }
        len |= (u32)(at[i] ^ ws_byte(w->ks, b % 64)) << (8 * i);
    }
    return len;
}

/* Moves both ciphers past one packet; returns whether either rekeyed.
 * FSChaCha20's next key is the last 32 bytes of its epoch's keystream
 * (block 10, bytes 32..64); FSChaCha20Poly1305's the first 32 bytes of
 * the keystream from block 1 under nonce FFFFFFFF || LE64(epoch). The
 * packet key is only needed when `keys` (its entries are being written). */
WS_DEV u32 ws_walk_step(ws_walk *w, u32 keys)
{
    u32 b[16], rekeyed = 0;
    if (++w->chunk == WS_REKEY) {
        ws_chacha(w->lk, 10, 0, (u32)w->le, (u32)(w->le >> 32), b);
        for (int i = 0; i < 8; i++)
            w->lk[i] = b[8 + i];
        w->le++;
        w->chunk = 0;
        w->ksb = ~0u;
        rekeyed = 1;
    }
    if (++w->index == WS_REKEY) {
        if (keys) {
            ws_chacha(w->pk, 1, 0xffffffffu, (u32)w->pe, (u32)(w->pe >> 32), b);
            for (int i = 0; i < 8; i++)
                w->pk[i] = b[i];
        }
        w->pe++;
        w->index = 0;
        rekeyed = 1;
    }
    for (int i = 0; i < 16; i++)
        b[i] = 0;
    return rekeyed;
}

WS_DEV void ws_walk_key(const ws_walk *w, ws_key *k)
{
    for (int i = 0; i < 8; i++) {
        k->packet_key[i] = w->pk[i];
        k->length_key[i] = w->lk[i];
    }
    k->packet_epoch = w->pe;
    k->length_epoch = w->le;
}

/* The ciphers where run `r` starts, from its first key entry. */
WS_DEV void ws_walk_init(ws_walk *w, const ws_args *a, const ws_run *r)
{
    const ws_key *k0 = (const ws_key *)a->keys + r->key;
    for (int i = 0; i < 8; i++) {
        w->lk[i] = k0->length_key[i];
        w->pk[i] = k0->packet_key[i];
    }
    w->le = k0->length_epoch;
    w->pe = k0->packet_epoch;
    w->chunk = r->chunk;
    w->index = r->index;
    w->ksb = ~0u;
}

WS_DEV void ws_walk_wipe(ws_walk *w)
{
    for (int i = 0; i < 8; i++)
        w->lk[i] = w->pk[i] = 0;
    for (int i = 0; i < 16; i++)
        w->ks[i] = 0;
}

/* Parts of a packet of `len` contents bytes (its body is len + 1). */
WS_DEV u32 ws_parts(const ws_args *a, u32 len)
{
    return (len + a->task_bytes) / a->task_bytes;
}

/* Walks run `r` from its first length field and keeps its whole packets'
 * lengths (up to its limit, its receiver's limit on a packet and its key
 * entries) in its place in the lens list; counts them and their parts. */
WS_DEV void ws_open_walk(const ws_args *a, const ws_run *r, u32 c[4])
{
    ws_walk w;
    ws_walk_init(&w, a, r);
    const u8 *at = (const u8 *)a->data + r->offset;
    u32 *lens = (u32 *)a->lens + r->lens;
    u32 pos = 0, keys = 1;
    c[0] = c[1] = c[2] = c[3] = 0;
    while (c[0] < r->limit && r->len - pos >= 3) {
        u32 len = ws_walk_length(&w, at + pos);
        /* A length over the limit, or a packet the run holds only part
         * of, is left to the library (which fails the one, and waits for
         * the rest of the other). */
        if (len > r->max || r->len - pos < WS_OVERHEAD || len > r->len - pos - WS_OVERHEAD)
            break;
        lens[c[0]++] = len;
        u32 parts = ws_parts(a, len);
        c[1] += parts;
        if (parts > 1) {
            c[2]++;
            c[3] += parts;
        }
        pos += len + WS_OVERHEAD;
        /* Each epoch after the first takes a key entry; with none left
         * the walk stops. */
        if (ws_walk_step(&w, 0) && ++keys > r->keys)
            break;
    }
    ws_walk_wipe(&w);
}

/* Writes run `r`'s packets' entries from `first` on in each list (packets,
 * tasks, multi, mtasks), from its kept lengths, and the key entry of each
 * later epoch. */
WS_DEV void ws_open_place(const ws_args *a, const ws_run *r, const u32 first[4])
{
    ws_walk w;
    ws_walk_init(&w, a, r);
    ws_key *keys = (ws_key *)a->keys;
    ws_packet *packets = (ws_packet *)a->packets;
    ws_task *tasks = (ws_task *)a->tasks;
    u32 *multi = (u32 *)a->multi, *mtasks = (u32 *)a->mtasks;
    const u32 *lens = (const u32 *)a->lens + r->lens;
    u64 offset = r->offset;
    u32 t = first[1], m = first[2], mt = first[3], key = r->key;
    for (u32 n = 0; n < r->count; n++) {
        u32 len = lens[n], parts = ws_parts(a, len), p = first[0] + n;
        ws_packet d = {offset, len, key, w.index, w.chunk, r->lens + n, t};
        packets[p] = d;
        for (u32 k = 0; k < parts; k++) {
            ws_task e = {p, k};
            tasks[t + k] = e;
            if (parts > 1)
                mtasks[mt++] = t + k;
        }
        if (parts > 1)
            multi[m++] = p;
        t += parts;
        offset += len + WS_OVERHEAD;
        if (ws_walk_step(&w, 1) && n + 1 < r->count)
            ws_walk_key(&w, keys + ++key);
    }
    ws_walk_wipe(&w);
}

WS_KERNEL ws_open_frame(ws_args a)
{
    ws_run *runs = (ws_run *)a.runs;
    u32 *totals = (u32 *)a.totals;
    WS_FOR(i, a.nruns) {
        ws_run *r = runs + i;
        u32 c[4], first[4];
        ws_open_walk(&a, r, c);
        r->count = c[0];
        for (int k = 0; k < 4; k++)
            first[k] = c[k] != 0 ? ws_atomic_add(totals + k, c[k]) : 0;
        ws_open_place(&a, r, first);
    }
}

/* Does nothing: the bench times a launch and a round trip with it. */
WS_KERNEL ws_noop(ws_args a)
{
    (void)a;
}
