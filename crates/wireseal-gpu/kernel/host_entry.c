/*
 * The kernels built for the host (tests only): one entry point per kernel
 * that runs its grid on the calling thread, the primitives for the RFC 8439
 * vectors, and the layout's sizes and offsets for src/layout.rs's check.
 */
#include <stddef.h>

#include "host_shim.h"
#include "primitives.cuh"
#include "bip324.cu"

_Thread_local ws_dim3 blockIdx, threadIdx, blockDim, gridDim;
_Thread_local u32 ws_misaligned;

#define WS_HOST_LAUNCH(kernel)                                  \
    void kernel##_host(ws_args a, u32 grid, u32 block)          \
    {                                                           \
        gridDim.x = grid;                                       \
        blockDim.x = block;                                     \
        for (u32 b = 0; b < grid; b++) {                        \
            for (u32 t = 0; t < block; t++) {                   \
                blockIdx.x = b;                                 \
                threadIdx.x = t;                                \
                kernel(a);                                      \
            }                                                   \
        }                                                       \
    }

WS_HOST_LAUNCH(ws_seal_parts)
WS_HOST_LAUNCH(ws_seal_finish)
WS_HOST_LAUNCH(ws_open_parts)
WS_HOST_LAUNCH(ws_open_verify)
WS_HOST_LAUNCH(ws_open_decrypt)
WS_HOST_LAUNCH(ws_open_frame)

/* Misaligned block accesses on this thread since the last call. */
u32 ws_host_misaligned(void)
{
    u32 n = ws_misaligned;
    ws_misaligned = 0;
    return n;
}

void ws_host_chacha_block(const u32 key[8], u32 counter, const u32 nonce[3], u32 out[16])
{
    ws_chacha(key, counter, nonce[0], nonce[1], nonce[2], out);
}

/* Poly1305 of any message (RFC 8439 2.5: a short last block gets a 1 byte,
 * not the 2^128 bit), through the kernels' block and finish functions. */
void ws_host_poly1305(const u8 key[32], const u8 *msg, size_t len, u8 tag[16])
{
    u32 b0[16] = {0}, r[5], h[5] = {0, 0, 0, 0, 0}, t[4], w[4];
    memcpy(b0, key, 32);
    ws_poly_r(b0, r);
    size_t at = 0;
    for (; at + 16 <= len; at += 16) {
        memcpy(w, msg + at, 16);
        ws_poly_block(h, r, w[0], w[1], w[2], w[3], WS_HIBIT);
    }
    if (at < len) {
        u8 last[16] = {0};
        memcpy(last, msg + at, len - at);
        last[len - at] = 1;
        memcpy(w, last, 16);
        ws_poly_block(h, r, w[0], w[1], w[2], w[3], 0);
    }
    ws_poly_finish(h, b0, t);
    memcpy(tag, t, 16);
}

/* sizeof / offsetof of the shared structures, by number (src/layout.rs). */
u64 ws_host_layout(u32 what)
{
    switch (what) {
    case 0: return sizeof(ws_key);
    case 1: return offsetof(ws_key, length_key);
    case 2: return offsetof(ws_key, packet_epoch);
    case 3: return offsetof(ws_key, length_epoch);
    case 4: return sizeof(ws_packet);
    case 5: return offsetof(ws_packet, len);
    case 6: return offsetof(ws_packet, key);
    case 7: return offsetof(ws_packet, index);
    case 8: return offsetof(ws_packet, chunk);
    case 9: return offsetof(ws_packet, header);
    case 10: return offsetof(ws_packet, first_task);
    case 11: return sizeof(ws_task);
    case 12: return sizeof(ws_args);
    case 13: return offsetof(ws_args, ntasks);
    case 14: return offsetof(ws_args, task_bytes);
    case 15: return offsetof(ws_args, runs);
    case 16: return offsetof(ws_args, nruns);
    case 17: return sizeof(ws_run);
    case 18: return offsetof(ws_run, len);
    case 19: return offsetof(ws_run, limit);
    case 20: return offsetof(ws_run, index);
    case 21: return offsetof(ws_run, max);
    case 22: return offsetof(ws_run, lens);
    case 23: return offsetof(ws_run, count);
    default: return 0;
    }
}
