/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What rfprobe reads of its environment: files (BTF blobs, ftrace's
 * function list), modules and symbols (env.c).
 */
#ifndef RFPROBE_HELPERS_ENV_H
#define RFPROBE_HELPERS_ENV_H

#include <linux/types.h>

struct file;
struct module;

/* A whole file into a vmalloc()ed buffer (0 or -errno). */
int rfprobe_read_file(const char *path, size_t max, void **buf, size_t *size);
/* ftrace's traceable functions (available_filter_functions_addrs). */
struct file *rfprobe_open_ftrace_funcs(void);
ssize_t rfprobe_file_read(struct file *f, void *buf, size_t len, loff_t *pos);
void rfprobe_file_close(struct file *f);
bool rfprobe_module_loaded(const char *name);
/* The init text of @mod: is @addr in it, and where is it (empty once freed)? */
bool rfprobe_within_module_init(unsigned long addr, struct module *mod);
void rfprobe_module_init_range(struct module *mod, unsigned long *start, unsigned long *end);
/* module_name(). */
const char *rfprobe_module_name(struct module *mod);
/* sprint_symbol()/sprint_symbol_no_offset() into a buffer of any size (truncating). */
size_t rfprobe_sprint_symbol(char *buf, size_t len, unsigned long addr);
size_t rfprobe_sprint_symbol_no_offset(char *buf, size_t len, unsigned long addr);

#endif /* RFPROBE_HELPERS_ENV_H */
