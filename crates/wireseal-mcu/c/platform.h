/* What the C test program needs from where it runs: output and exit.
 * platform_qemu.c implements it with Arm semihosting (QEMU mps2-an386),
 * platform_host.c with stdio. */
#ifndef WSMCU_PLATFORM_H
#define WSMCU_PLATFORM_H

void wsmcu_puts(const char *s);
void wsmcu_exit(int status) __attribute__((noreturn));
void wsmcu_abort(const char *reason) __attribute__((noreturn));

#endif
