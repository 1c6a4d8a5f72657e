/* The C test program: calls the Rust staticlib through its C ABI and checks
 * the answers. Ends with `N passed, M failed`; exit status 0 only when
 * nothing failed. The same file builds for QEMU (platform_qemu.c) and for the
 * host (platform_host.c). */
#include <stddef.h>
#include <stdint.h>

#include "platform.h"

uint32_t wsmcu_fnv1a(const uint8_t *data, size_t len);

static int passed, failed;

static void put_hex(uint32_t v) {
    char buf[11] = "0x";
    for (int i = 0; i < 8; i++) {
        buf[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 0xf];
    }
    buf[10] = 0;
    wsmcu_puts(buf);
}

static void put_uint(unsigned v) {
    char buf[12];
    int i = sizeof buf - 1;
    buf[i] = 0;
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    wsmcu_puts(&buf[i]);
}

static void check(const char *name, uint32_t got, uint32_t want) {
    wsmcu_puts("test ");
    wsmcu_puts(name);
    if (got == want) {
        wsmcu_puts(" ... ok\n");
        passed++;
    } else {
        wsmcu_puts(" ... FAILED: got ");
        put_hex(got);
        wsmcu_puts(", want ");
        put_hex(want);
        wsmcu_puts("\n");
        failed++;
    }
}

int main(void) {
    /* FNV-1a reference values (the FNV authors' test suite). */
    static const uint8_t a[] = "a";
    static const uint8_t foobar[] = "foobar";
    check("fnv1a empty", wsmcu_fnv1a(NULL, 0), 0x811c9dc5u);
    check("fnv1a \"a\"", wsmcu_fnv1a(a, 1), 0xe40c292cu);
    check("fnv1a \"foobar\"", wsmcu_fnv1a(foobar, 6), 0xbf9cf968u);
    put_uint((unsigned)passed);
    wsmcu_puts(" passed, ");
    put_uint((unsigned)failed);
    wsmcu_puts(" failed\n");
    wsmcu_exit(failed == 0 ? 0 : 1);
}
