/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bindgen input for rfprobe: the kernel headers whose APIs the module uses.
 * Only what rust/bindgen_parameters allow-lists is generated.
 */
#include <linux/debugfs.h>
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
#include <linux/trace_seq.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "rfprobe_helpers.h"
