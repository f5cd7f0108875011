/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C helpers for rfprobe: static inline kernel functions and macros that Rust
 * cannot call directly. Each is a thin, behaviour-free wrapper.
 */
#ifndef RFPROBE_HELPERS_H
#define RFPROBE_HELPERS_H

#include <linux/types.h>

struct file;

/* Runs WARN() if the selftest_warn module parameter is set (tests the VM runner). */
void rfprobe_selftest_warn(void);
/* file->f_flags and file->f_mode of an open file. */
unsigned int rfprobe_file_flags(const struct file *file);
unsigned int rfprobe_file_mode(const struct file *file);
/* IS_ERR_OR_NULL / PTR_ERR for pointers returned by the kernel. */
bool rfprobe_is_err_or_null(const void *ptr);
long rfprobe_ptr_err(const void *ptr);

/* copy_from_user() is an inline around _copy_from_user(); returns bytes not copied. */
unsigned long rfprobe_copy_from_user(void *to, const void __user *from, unsigned long n);

#endif /* RFPROBE_HELPERS_H */
