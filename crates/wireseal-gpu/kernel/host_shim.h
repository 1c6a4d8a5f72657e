/*
 * The CUDA words the kernels use, for a host build (the tests). A launch
 * (kernel/host_entry.c) runs every thread of every block in turn on the
 * calling thread: the kernels use no shared memory and no barriers, so the
 * order does not matter, and every thread's grid-stride loop runs as on a
 * device.
 */
#ifndef WS_HOST_SHIM_H
#define WS_HOST_SHIM_H

#include <stdint.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the host build of the kernels reads words little-endian, as a GPU does"
#endif

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;

#define WS_DEV static inline
#define WS_KERNEL void
#define WS_ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

typedef struct {
    u32 x, y, z;
} ws_dim3;

extern _Thread_local ws_dim3 blockIdx, threadIdx, blockDim, gridDim;

/* 64-byte block loads and stores that a device does with 16-byte vector
 * accesses: counted when the address is not 16-byte aligned, so the tests
 * hold the host's layout to the device's alignment rule. */
extern _Thread_local u32 ws_misaligned;

static inline void ws_load64(const u8 *p, u32 w[16])
{
    if (((uintptr_t)p & 15) != 0)
        ws_misaligned++;
    memcpy(w, p, 64);
}

static inline void ws_store64(u8 *p, const u32 w[16])
{
    if (((uintptr_t)p & 15) != 0)
        ws_misaligned++;
    memcpy(p, w, 64);
}

/* Aligned 4-byte word accesses (a block that is not on a 16-byte boundary
 * is moved by words): counted when the address is not 4-byte aligned. */
static inline u32 ws_word(const u8 *p)
{
    u32 v;
    if (((uintptr_t)p & 3) != 0)
        ws_misaligned++;
    memcpy(&v, p, 4);
    return v;
}

static inline void ws_put_word(u8 *p, u32 v)
{
    if (((uintptr_t)p & 3) != 0)
        ws_misaligned++;
    memcpy(p, &v, 4);
}

/* A launch's threads run one after another here, so an atomic add is a
 * plain one. */
static inline u32 ws_atomic_add(u32 *p, u32 v)
{
    u32 old = *p;
    *p = old + v;
    return old;
}

#endif /* WS_HOST_SHIM_H */
