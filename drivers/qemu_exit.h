/* drivers/qemu_exit.h - leave QEMU with a status, for tests.
 *
 * QEMU's isa-debug-exit device (-device isa-debug-exit,iobase=0xf4,iosize=4)
 * ends the emulator when a value is written to its port; QEMU's exit status
 * is then (value << 1) | 1. Without the device the write does nothing and
 * qemu_exit() falls back to an ACPI power-off. The harness (tests/) knows
 * these values: keep them in step with tests/harness/qemu.py. */
#ifndef DRIVERS_QEMU_EXIT_H
#define DRIVERS_QEMU_EXIT_H

#include "lib/compiler.h"

#define QEMU_EXIT_PORT	  0xf4
#define QEMU_EXIT_SUCCESS 0x10 /* QEMU exits with 33 */
#define QEMU_EXIT_FAILURE 0x11 /* 35: some test failed */
#define QEMU_EXIT_PANIC	  0x12 /* 37: the kernel panicked */

__noreturn void qemu_exit(unsigned int code);

#endif
