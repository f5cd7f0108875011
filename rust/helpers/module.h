/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfprobe as a module: the runner's self-test parameters and the reference
 * every event holds on the module (module.c).
 */
#ifndef RFPROBE_HELPERS_MODULE_H
#define RFPROBE_HELPERS_MODULE_H

#include <linux/types.h>

/* Runs WARN() if the selftest_warn module parameter is set (tests the VM runner). */
void rfprobe_selftest_warn(void);
/* try_module_get(THIS_MODULE) (false while the module is going) / module_put(THIS_MODULE). */
bool rfprobe_module_tryget(void);
void rfprobe_module_put(void);

#endif /* RFPROBE_HELPERS_MODULE_H */
