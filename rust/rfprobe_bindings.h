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
/* trace_fprobe/cpu.rs: this CPU's context and ftrace's recursion lock. */
#ifdef RFPROBE_PCPU_HOT
const size_t RFPROBE_CONST_PCPU_HOT_CURRENT_TASK = offsetof(struct pcpu_hot, current_task);
const size_t RFPROBE_CONST_PCPU_HOT_PREEMPT_COUNT = offsetof(struct pcpu_hot, preempt_count);
const size_t RFPROBE_CONST_PREEMPT_COUNT_SIZE = sizeof(((struct pcpu_hot *)0)->preempt_count);
#else
const size_t RFPROBE_CONST_PREEMPT_COUNT_SIZE = sizeof(__preempt_count);
#endif
const size_t RFPROBE_CONST_TASK_TRACE_RECURSION = offsetof(struct task_struct, trace_recursion);
const unsigned int RFPROBE_CONST_NMI_MASK = NMI_MASK;
const unsigned int RFPROBE_CONST_HARDIRQ_MASK = HARDIRQ_MASK;
const unsigned int RFPROBE_CONST_SOFTIRQ_OFFSET = SOFTIRQ_OFFSET;
const unsigned int RFPROBE_CONST_TRACE_FTRACE_START = TRACE_FTRACE_START;
const unsigned int RFPROBE_CONST_TRACE_CTX_NORMAL = TRACE_CTX_NORMAL;
const unsigned int RFPROBE_CONST_TRACE_CTX_TRANSITION = TRACE_CTX_TRANSITION;
/* The ftrace_ops callback's container (struct rfprobe_ops) and registers. */
const size_t RFPROBE_CONST_OPS_OPS = offsetof(struct rfprobe_ops, ops);
const size_t RFPROBE_CONST_OPS_DATA = offsetof(struct rfprobe_ops, data);
const size_t RFPROBE_CONST_OPS_NMISSED = offsetof(struct rfprobe_ops, nmissed);
const size_t RFPROBE_CONST_FREGS_REGS = offsetof(struct __arch_ftrace_regs, regs);
#ifdef RFPROBE_FPROBE_FGRAPH
#include <asm/fprobe.h>
/*
 * fgraph's fprobe keeps, per call of a function, a header and the entry
 * data of each exit fprobe on it, in at most 1 << FGRAPH_DATA_BITS words
 * (kernel/trace/fgraph.c; Kbuild probes it) shared by all of them
 * (fprobe_fgraph_entry in kernel/trace/fprobe.c): the header is one word
 * where the arch encodes it in one (asm/fprobe.h), else two.
 */
const size_t RFPROBE_CONST_FGRAPH_DATA_WORDS = 1 << RFPROBE_FGRAPH_DATA_BITS;
#ifdef ARCH_DEFINE_ENCODE_FPROBE_HEADER
const size_t RFPROBE_CONST_FPROBE_HEADER_WORDS = 1;
#else
const size_t RFPROBE_CONST_FPROBE_HEADER_WORDS = 2;
#endif
const size_t RFPROBE_CONST_MAX_FPROBE_DATA_SIZE = MAX_FPROBE_DATA_SIZE;
#endif
