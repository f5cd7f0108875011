// SPDX-License-Identifier: GPL-2.0
/*
 * rfprobe as a module: its version, the parameters of the VM runner's
 * self-tests, and the module reference every event holds.
 */
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include "module.h"

MODULE_VERSION(RFPROBE_VERSION);

static bool selftest_warn;
module_param(selftest_warn, bool, 0444);
MODULE_PARM_DESC(selftest_warn,
		 "Trigger a deliberate WARN() at load (tests that the VM runner catches splats)");

static bool selftest_cfi;
module_param(selftest_cfi, bool, 0444);
MODULE_PARM_DESC(selftest_cfi,
		 "Make a deliberate indirect call of the wrong type at load: a CFI failure on kCFI kernels (tests that the VM runner catches it)");

static noinline int rfprobe_cfi_target(long x)
{
	return x == 1;
}

void rfprobe_selftest_warn(void)
{
	WARN(selftest_warn, "rfprobe: selftest_warn=1: deliberate warning for the runner self-test\n");
	if (selftest_cfi) {
		/* Called as int (*)(int *): kCFI traps; elsewhere it returns 0. */
		void *p = rfprobe_cfi_target;
		int (*f)(int *);

		OPTIMIZER_HIDE_VAR(p);
		f = p;
		pr_info("rfprobe: selftest_cfi=1: the wrong-typed call returned %d\n", f(NULL));
	}
}

/*
 * Events pin the module: nothing can reference an event whose code is gone.
 * False once the module is going: a definition that a /proc/rfprobe write
 * (procfs files do not pin the module) or a module notifier completes while
 * rmmod runs must not register an event module exit would not remove.
 */
bool rfprobe_module_tryget(void)
{
	return try_module_get(THIS_MODULE);
}

void rfprobe_module_put(void)
{
	module_put(THIS_MODULE);
}

#ifdef RFPROBE_SELFTEST_OBJTOOL
/*
 * make check's runner self-test (RFPROBE_SELFTEST_OBJTOOL=y in a lint
 * build): a function that falls through into the next, which objtool must
 * report and the lint build must fail on. Never called.
 */
void rfprobe_selftest_objtool(void);
__attribute__((naked, used)) void rfprobe_selftest_objtool(void)
{
	asm volatile("nop");
}
#endif
