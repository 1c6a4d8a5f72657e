/* Output and exit on the host (stdio), for the same test program. */
#include <stdio.h>
#include <stdlib.h>

#include "platform.h"

void wsmcu_puts(const char *s) { fputs(s, stdout); }

void wsmcu_exit(int status) {
    fflush(stdout);
    exit(status);
}

void wsmcu_abort(const char *reason) {
    printf("abort: %s\n0 passed, 1 failed\n", reason);
    exit(1);
}
