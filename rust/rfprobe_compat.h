/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels rfprobe builds for, on the C side (with
 * trace_fprobe/compat.rs for Rust): the one place the facts Kbuild probed
 * (RFPROBE_*, from the kernel's headers) and the kernel's configuration
 * choose between. The static_asserts below check at build time that each
 * probe was right; nothing else tests a kernel version.
 *
 * Facts:
 *   RFPROBE_FPROBE_FGRAPH  fprobe on the function-graph tracer (handlers
 *                          take struct ftrace_regs; no per-fprobe ops)
 *   RFPROBE_PCPU_HOT       x86's struct pcpu_hot (trace_fprobe/cpu.rs)
 *   RFPROBE_IS_ENDBR_PTR   is_endbr() takes a pointer; __is_endbr() the word
 *   RFPROBE_OPS_FUNC_IP    ftrace_ops.ops_func is told the function's
 *                          address
 *   RFPROBE_TR_SNAPSHOT_BUFFER, RFPROBE_TRACE_ITER_FN
 *                          kernel/trace/trace.h (full trees only) names the
 *                          snapshot buffer snapshot_buffer and defines the
 *                          trace_flags masks with TRACE_ITER(flag)
 */
#ifndef RFPROBE_COMPAT_H
#define RFPROBE_COMPAT_H

#include <linux/types.h>
#include <linux/preempt.h>
#include <asm/ibt.h>

struct pt_regs;
struct ftrace_regs;

/* kCFI: CONFIG_CFI_CLANG, called CONFIG_CFI since 6.18. */
#if defined(CONFIG_CFI_CLANG) || defined(CONFIG_CFI)
#define RFPROBE_KCFI 1
#endif

/* The register argument of fprobe's entry and exit handlers. */
#ifdef RFPROBE_FPROBE_FGRAPH
typedef struct ftrace_regs rfprobe_fprobe_regs;
#else
typedef struct pt_regs rfprobe_fprobe_regs;
#endif

/*
 * The kernel's fprobe entry handlers (C's f and t events) run one
 * preemption level deeper where fprobe runs on fgraph (its RCU-sched
 * guard): rfprobe's entry and tracepoint callbacks do the same, so that
 * their records' preemption depth is C's (trace_fprobe/cpu.rs for the Rust
 * callback).
 */
/* The probe was right: rethook's pool or fgraph's per-function nodes. */
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#ifdef RFPROBE_FPROBE_FGRAPH
static_assert(sizeof(struct fprobe_hlist_node) > 0);
#else
static_assert(sizeof(((struct fprobe *)0)->nr_maxactive) > 0);
#endif

#ifdef RFPROBE_FPROBE_FGRAPH
#define rfprobe_fprobe_depth_enter() preempt_disable_notrace()
#define rfprobe_fprobe_depth_exit() preempt_enable_notrace()
#else
#define rfprobe_fprobe_depth_enter() do { } while (0)
#define rfprobe_fprobe_depth_exit() do { } while (0)
#endif

/*
 * Edits a registered fprobe's functions in place (0), or -EOPNOTSUPP where
 * fprobes share one fgraph_ops and have no filter of their own.
 */
#ifdef RFPROBE_FPROBE_FGRAPH
static inline int rfprobe_fprobe_set_filter_ips(struct fprobe *fp, unsigned long *ips,
						unsigned int cnt, int remove)
{
	return -EOPNOTSUPP;
}
#else
static inline int rfprobe_fprobe_set_filter_ips(struct fprobe *fp, unsigned long *ips,
						unsigned int cnt, int remove)
{
	return ftrace_set_filter_ips(&fp->ops, ips, cnt, remove, 0);
}
#endif

/*
 * Defines @name as an ftrace_ops' ops_func: ftrace asks a direct call's
 * owner whether an IPMODIFY user (livepatch, a kprobe with a post handler)
 * may share its function, with the command in @cmd.
 */
#ifdef RFPROBE_OPS_FUNC_IP
#define RFPROBE_OPS_FUNC(name, cmd) \
	int name(struct ftrace_ops *op, unsigned long ip, enum ftrace_ops_cmd cmd)
typedef int (*rfprobe_ops_func_t)(struct ftrace_ops *, unsigned long, enum ftrace_ops_cmd);
#else
#define RFPROBE_OPS_FUNC(name, cmd) int name(struct ftrace_ops *op, enum ftrace_ops_cmd cmd)
typedef int (*rfprobe_ops_func_t)(struct ftrace_ops *, enum ftrace_ops_cmd);
#endif
/* The probe was right. */
static_assert(__builtin_types_compatible_p(rfprobe_ops_func_t, ftrace_ops_func_t));

/* Is @insn an ENDBR instruction (IBT)? */
static inline bool rfprobe_is_endbr(u32 insn)
{
#if !defined(CONFIG_X86_KERNEL_IBT)
	return false;
#elif defined(RFPROBE_IS_ENDBR_PTR)
	return __is_endbr(insn);
#else
	return is_endbr(insn);
#endif
}

/*
 * For helpers/ring.c's check of struct trace_array against trace.h:
 * the member holding the snapshot buffer, if the kernel has one, and the
 * trace_flags mask of option @f.
 */
#ifdef RFPROBE_TR_SNAPSHOT_BUFFER
#ifdef CONFIG_TRACER_SNAPSHOT
#define RFPROBE_TR_MAX_BUFFER snapshot_buffer
#endif
#elif defined(CONFIG_TRACER_MAX_TRACE)
#define RFPROBE_TR_MAX_BUFFER max_buffer
#endif
#ifdef RFPROBE_TRACE_ITER_FN
#define RFPROBE_TRACE_ITER(f) TRACE_ITER(f)
#else
#define RFPROBE_TRACE_ITER(f) TRACE_ITER_##f
#endif

#endif /* RFPROBE_COMPAT_H */
