/* Output and exit through Arm semihosting (`bkpt 0xab`), as QEMU runs it
 * with `-semihosting-config enable=on`. */
#include "platform.h"

#define SYS_WRITE0 0x04
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUN_TIME_ERROR 0x20023

static int semihost(int op, const void *arg) {
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void wsmcu_puts(const char *s) { semihost(SYS_WRITE0, s); }

void wsmcu_exit(int status) {
    /* 32-bit Arm SYS_EXIT takes the reason code alone: QEMU exits 0 for
     * ApplicationExit and 1 otherwise. */
    semihost(SYS_EXIT, (const void *)(status == 0 ? ADP_STOPPED_APPLICATION_EXIT
                                                   : ADP_STOPPED_RUN_TIME_ERROR));
    for (;;) {
    }
}

void wsmcu_abort(const char *reason) {
    wsmcu_puts("abort: ");
    wsmcu_puts(reason);
    wsmcu_puts("\n0 passed, 1 failed\n");
    wsmcu_exit(1);
}
