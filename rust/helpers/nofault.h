/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address range the nofault reads accept, and the build-time checks of
 * the exception-table encoding trace_fprobe/nofault.rs writes (nofault.c).
 */
#ifndef RFPROBE_HELPERS_NOFAULT_H
#define RFPROBE_HELPERS_NOFAULT_H

#include <linux/types.h>

unsigned long rfprobe_task_size_max(void);
unsigned long rfprobe_nofault_kernel_lo(void);

#endif /* RFPROBE_HELPERS_NOFAULT_H */
