/* Start-up for the Cortex-M4F in QEMU's mps2-an386: the vector table, the
 * reset handler (FPU on, .data copied, .bss zeroed, main called) and fault
 * handlers that end the run as failed. */
#include <stdint.h>

#include "platform.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
int main(void);

void Reset_Handler(void) __attribute__((noreturn));
void Fault_Handler(void) __attribute__((noreturn));

void Reset_Handler(void) {
    /* CPACR: full access to CP10/CP11, so hard-float code may run. */
    *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
    __asm__ volatile("dsb\n isb" ::: "memory");
    uint32_t *src = &_sidata;
    for (uint32_t *dst = &_sdata; dst < &_edata;) {
        *dst++ = *src++;
    }
    for (uint32_t *dst = &_sbss; dst < &_ebss;) {
        *dst++ = 0;
    }
    wsmcu_exit(main());
}

void Fault_Handler(void) { wsmcu_abort("fault or unexpected interrupt"); }

/* Initial stack pointer, then the 15 system exceptions. */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))&_estack,
    Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
    0, 0, 0, 0,
    Fault_Handler, /* SVCall */
    Fault_Handler, /* DebugMonitor */
    0,
    Fault_Handler, /* PendSV */
    Fault_Handler, /* SysTick */
};
