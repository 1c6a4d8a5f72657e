/* A QEMU TCG plugin (plugin API version 1, as in QEMU 7.2) that fingerprints
 * what a stretch of firmware executes: the address of every instruction and
 * the address and direction of every memory access, between two calls of
 * a marker function. The constant-time check runs one operation on
 * different secrets and requires the same fingerprint each time.
 *
 *   qemu-system-arm ... -d plugin -plugin libtrace_hash.so,mark=0xADDR
 *
 * Each second execution of the instruction at `mark` (the entry of the
 * firmware's `wsmcu_trace_mark`) prints
 *   trace-hash INSNS ACCESSES HASH
 * with the instructions and accesses since the first one and a 64-bit
 * FNV-1a hash of their addresses in order.
 *
 * The API declarations it uses are in qemu_plugin_v1.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_v1.h"

EXPORT int qemu_plugin_version = 1;

static uint64_t mark;      /* address of the marker function */
static bool open_window;   /* between the two marks */
static uint64_t hash;      /* FNV-1a over the window's addresses */
static uint64_t insns;     /* instructions in the window */
static uint64_t accesses;  /* memory accesses in the window */

static void mix(uint64_t value) {
    for (int i = 0; i < 8; i++) {
        hash ^= (value >> (8 * i)) & 0xff;
        hash *= 0x100000001b3ull;
    }
}

static void on_mark(void) {
    if (!open_window) {
        open_window = true;
        hash = 0xcbf29ce484222325ull;
        insns = 0;
        accesses = 0;
        return;
    }
    open_window = false;
    char line[96];
    snprintf(line, sizeof line, "trace-hash %" PRIu64 " %" PRIu64 " %016" PRIx64 "\n", insns,
             accesses, hash);
    qemu_plugin_outs(line);
}

static void on_insn(unsigned int vcpu, void *udata) {
    (void)vcpu;
    uint64_t pc = (uint64_t)(uintptr_t)udata;
    if (pc == mark) {
        on_mark();
    }
    if (open_window) {
        insns++;
        mix(pc);
    }
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata) {
    (void)vcpu;
    (void)udata;
    if (open_window) {
        accesses++;
        mix(vaddr << 1 | (qemu_plugin_mem_is_store(info) ? 1 : 0));
    }
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uintptr_t pc = (uintptr_t)qemu_plugin_insn_vaddr(insn);
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS, (void *)pc);
        qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
                                         NULL);
    }
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                               char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "mark=", 5) == 0) {
            mark = strtoull(argv[i] + 5, NULL, 0) & ~1ull; /* Thumb bit off */
        }
    }
    if (mark == 0) {
        fprintf(stderr, "trace_hash: give mark=ADDRESS\n");
        return 1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    return 0;
}
