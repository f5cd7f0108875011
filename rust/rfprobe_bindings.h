/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bindgen input for rfprobe: the kernel headers whose APIs the module uses.
 * Only what rust/bindgen_parameters allow-lists is generated.
 */
#include <linux/debugfs.h>
#include <linux/proc_fs.h>
#include <linux/errno.h>
#include <linux/fprobe.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kernel_read_file.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/trace_events.h>
#include <linux/trace_clock.h>
#include <linux/trace_seq.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/sched.h>
#include "rfprobe_helpers.h"

/*
 * Kernel constants that are macro expressions or layouts, which bindgen only
 * evaluates as const initialisers: trace_fprobe/rfprobe_main.rs asserts at
 * compile time that trace_probe's own copies (it is a no_std host crate too)
 * equal them, and takes the dentry offsets from here.
 */
const size_t RFPROBE_CONST_KSYM_SYMBOL_LEN = KSYM_SYMBOL_LEN;
const size_t RFPROBE_CONST_TASK_COMM_LEN = TASK_COMM_LEN;
const size_t RFPROBE_CONST_TRACE_ENTRY_SIZE = sizeof(struct trace_entry);
const size_t RFPROBE_CONST_DENTRY_D_NAME_NAME = offsetof(struct dentry, d_name.name);
const size_t RFPROBE_CONST_FILE_F_PATH_DENTRY = offsetof(struct file, f_path.dentry);
const size_t RFPROBE_CONST_PERF_MAX_TRACE_SIZE = PERF_MAX_TRACE_SIZE;
