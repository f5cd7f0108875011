// SPDX-License-Identifier: GPL-2.0
/*
 * C helpers for rfprobe (see rfprobe_helpers.h). The module's logic lives in
 * Rust; this file only exposes static inlines/macros and the module parameter
 * used by the VM runner's own failure test.
 */
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/moduleparam.h>
#include <linux/uaccess.h>
#include "rfprobe_helpers.h"

static bool selftest_warn;
module_param(selftest_warn, bool, 0444);
MODULE_PARM_DESC(selftest_warn,
		 "Trigger a deliberate WARN() at load (tests that the VM runner catches splats)");

void rfprobe_selftest_warn(void)
{
	WARN(selftest_warn, "rfprobe: selftest_warn=1: deliberate warning for the runner self-test\n");
}

unsigned int rfprobe_file_flags(const struct file *file)
{
	return file->f_flags;
}

unsigned int rfprobe_file_mode(const struct file *file)
{
	return (__force unsigned int)file->f_mode;
}

bool rfprobe_is_err_or_null(const void *ptr)
{
	return IS_ERR_OR_NULL(ptr);
}

long rfprobe_ptr_err(const void *ptr)
{
	return PTR_ERR(ptr);
}

unsigned long rfprobe_copy_from_user(void *to, const void __user *from, unsigned long n)
{
	return copy_from_user(to, from, n);
}
