/* A QEMU TCG plugin (plugin API version 1, as in QEMU 7.2) that counts
 * executed guest instructions between calls of a marker function: the
 * second method for the firmware's instruction counts.
 *
 *   qemu-system-arm ... -d plugin \
 *     -plugin libinsn_count.so,mark=0xADDR
 *
 * Every instruction adds 1 to a counter (an inline op, exact); every
 * execution of the instruction at `mark` (the entry of the firmware's
 * `wsmcu_icount_read`, called before and after each measured operation)
 * records the counter, and each second one prints `plugin-count N`: the
 * instructions from the first call to the second.
 *
 * The API declarations it uses are in qemu_plugin_v1.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_v1.h"

EXPORT int qemu_plugin_version = 1;

static uint64_t count;  /* instructions executed so far (one vCPU) */
static uint64_t start;  /* count at the last opening mark */
static bool open_mark;  /* a measurement is open */
static uint64_t mark;   /* address of the marker function */

static void on_mark(unsigned int vcpu, void *udata) {
    (void)vcpu;
    (void)udata;
    if (!open_mark) {
        start = count;
        open_mark = true;
        return;
    }
    open_mark = false;
    char line[64];
    snprintf(line, sizeof line, "plugin-count %" PRIu64 "\n", count - start);
    qemu_plugin_outs(line);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &count, 1);
        if (qemu_plugin_insn_vaddr(insn) == mark) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
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
        fprintf(stderr, "insn_count: give mark=ADDRESS\n");
        return 1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    return 0;
}
