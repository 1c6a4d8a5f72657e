/* The part of QEMU's TCG plugin API (version 1, as in QEMU 7.2) that the
 * plugins in this folder use, written out so they build without QEMU's
 * development headers. QEMU loads plugins that export
 * qemu_plugin_version = 1. */
#ifndef WSMCU_QEMU_PLUGIN_V1_H
#define WSMCU_QEMU_PLUGIN_V1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
typedef struct {
    const char *target_name;
    struct {
        int min;
        int cur;
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef void (*tb_trans_cb)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*vcpu_udata_cb)(unsigned int, void *);
typedef void (*vcpu_mem_cb)(unsigned int, qemu_plugin_meminfo_t, uint64_t, void *);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *, enum qemu_plugin_op,
                                                void *, uint64_t);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *, vcpu_udata_cb,
                                            enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *, vcpu_mem_cb,
                                      enum qemu_plugin_cb_flags, enum qemu_plugin_mem_rw,
                                      void *);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t);
void qemu_plugin_outs(const char *);

#endif
