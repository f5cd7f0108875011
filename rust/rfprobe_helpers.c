// SPDX-License-Identifier: GPL-2.0
/*
 * C helpers for rfprobe (see rfprobe_helpers.h). The module's logic lives in
 * Rust; this file only exposes static inlines/macros and the module parameter
 * used by the VM runner's own failure test.
 */
#include <linux/bug.h>
#include <asm/ibt.h>
#include <linux/err.h>
#include <linux/error-injection.h>
#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/ftrace.h>
#include <linux/hw_breakpoint.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/cpu.h>
#include <linux/perf_event.h>
#include <linux/fprobe.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>
#include <linux/moduleparam.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/seq_file.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/security.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/extable.h>
#include <asm/vsyscall.h>
#include "rfprobe_helpers.h"

/*
 * BTF blobs (trace_fprobe/btf.rs): a whole sysfs file read into a
 * vmalloc()ed buffer. Not through kernel_read_file(), which asks the LSMs
 * about a read of no known purpose (READING_UNKNOWN): IPE (Debian's
 * kernels) warns about every one.
 */
int rfprobe_read_file(const char *path, size_t max, void **buf, size_t *size)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	loff_t len, pos = 0;
	ssize_t n;
	void *p;

	if (IS_ERR(f))
		return PTR_ERR(f);
	len = i_size_read(file_inode(f));
	if (len <= 0 || len > max) {
		filp_close(f, NULL);
		return len <= 0 ? -EINVAL : -EFBIG;
	}
	p = vmalloc(len);
	if (!p) {
		filp_close(f, NULL);
		return -ENOMEM;
	}
	while (pos < len) {
		n = kernel_read(f, p + pos, len - pos, &pos);
		if (n < 0) {
			vfree(p);
			filp_close(f, NULL);
			return n;
		}
		if (!n)
			break;
	}
	filp_close(f, NULL);
	*buf = p;
	*size = pos;
	return 0;
}

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

struct dentry *rfprobe_debugfs_create_file(const char *name, umode_t mode, struct dentry *parent,
					   void *data, const struct file_operations *fops)
{
	return debugfs_create_file(name, mode, parent, data, fops);
}

bool rfprobe_file_write_trunc(const struct file *file)
{
	return (file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC);
}

int rfprobe_lockdown_kprobes(void)
{
	/* An inline stub returning 0 without CONFIG_SECURITY. */
	return security_locked_down(LOCKDOWN_KPROBES);
}

bool rfprobe_is_err_or_null(const void *ptr)
{
	return IS_ERR_OR_NULL(ptr);
}

long rfprobe_ptr_err(const void *ptr)
{
	return PTR_ERR(ptr);
}

unsigned long notrace rfprobe_regs_get_kernel_stack_nth(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_stack_nth(regs, n);
}
NOKPROBE_SYMBOL(rfprobe_regs_get_kernel_stack_nth);

const char *notrace rfprobe_current_comm(void)
{
	return current->comm;
}
NOKPROBE_SYMBOL(rfprobe_current_comm);

/* $current (FETCH_OP_CURRENT): the running task. */
unsigned long notrace rfprobe_current_task(void)
{
	return (unsigned long)current;
}
NOKPROBE_SYMBOL(rfprobe_current_task);

/*
 * this_cpu_ptr()/this_cpu_read() (FETCH_OP_CPU_PTR): arithmetic only (x86-64:
 * addr + this_cpu_off), no access, so any value is safe to convert. The probe
 * handlers run with preemption disabled, so the CPU cannot change under it.
 */
unsigned long notrace rfprobe_this_cpu_ptr(unsigned long addr)
{
	return (unsigned long)raw_cpu_ptr((void __percpu *)addr);
}
NOKPROBE_SYMBOL(rfprobe_this_cpu_ptr);

unsigned long rfprobe_task_size_max(void)
{
	return TASK_SIZE_MAX;
}

/*
 * The lowest address copy_from_kernel_nofault_allowed() accepts (x86-64:
 * at or above TASK_SIZE_MAX + PAGE_SIZE, and canonical for the CPU's
 * virtual address width). Every address from there up is canonical, so
 * with the vsyscall page excluded one compare says what the kernel's
 * check says (trace_fprobe/nofault.rs).
 */
unsigned long rfprobe_nofault_kernel_lo(void)
{
	unsigned long lo = TASK_SIZE_MAX + PAGE_SIZE;
	unsigned int bits = boot_cpu_data.x86_virt_bits;

	if (bits && bits < 64)
		lo = max(lo, (unsigned long)(-1L << (bits - 1)));
	return lo;
}

/*
 * trace_fprobe/nofault.rs writes its exception-table entries itself, in
 * _ASM_EXTABLE_TYPE()'s layout (insn and fixup as 32-bit offsets from the
 * entry, then the data word) with this data word: a fault anywhere in the
 * load resumes after it with ax and dx cleared. The build fails here if the
 * kernel's encoding ever differs.
 */
static_assert(sizeof(struct exception_table_entry) == 3 * sizeof(int));
static_assert((EX_TYPE_DEFAULT | EX_FLAG_CLEAR_AX_DX) == 0x3001);
static_assert(VSYSCALL_ADDR == 0xffffffffff600000UL);

bool notrace rfprobe_trace_trigger_soft_disabled(struct trace_event_file *file)
{
	return trace_trigger_soft_disabled(file);
}
NOKPROBE_SYMBOL(rfprobe_trace_trigger_soft_disabled);

/*
 * What trace_event_buffer_commit() is about to do with the record at @entry,
 * for rfprobe's per-event accounting: the test of 6.12's
 * __event_trigger_test_discard() (kernel/trace/trace.h) after its triggers,
 * with public API only. 0: commit, 1: filtered out, 2: soft-disabled,
 * 3: pid-filtered. The core runs the same test on the same record right
 * after; only a concurrent write to the event's filter or flags can make the
 * two differ.
 */
int notrace rfprobe_commit_verdict(struct trace_event_file *file, void *entry)
{
	unsigned long eflags = READ_ONCE(file->flags);

	if (eflags & EVENT_FILE_FL_SOFT_DISABLED)
		return 2;
	if ((eflags & EVENT_FILE_FL_FILTERED) &&
	    !filter_match_preds(rcu_dereference_raw(file->filter), entry))
		return 1;
	if ((eflags & EVENT_FILE_FL_PID_FILTER) && trace_event_ignore_this_pid(file))
		return 3;
	return 0;
}
NOKPROBE_SYMBOL(rfprobe_commit_verdict);


void *rfprobe_per_cpu_ptr(void __percpu *ptr, int cpu)
{
	return per_cpu_ptr(ptr, cpu);
}

void __percpu *rfprobe_alloc_percpu(size_t size, size_t align)
{
	return __alloc_percpu(size, align);
}

void rfprobe_free_percpu(void __percpu *ptr)
{
	free_percpu(ptr);
}

unsigned int rfprobe_nr_cpu_ids(void)
{
	return nr_cpu_ids;
}

bool rfprobe_cpu_possible(unsigned int cpu)
{
	return cpu_possible(cpu);
}

u64 rfprobe_local_clock(void)
{
	return local_clock();
}

/*
 * t probes. The in-kernel t probes attach the tracepoint's (probestub,
 * NULL) pair and detach it when their event goes; sharing that pair would
 * let either side silence the other. Each rfprobe t probe attaches a pair
 * of its own, (function, its context), and the handler sees the registers
 * an fprobe on the probestub would see: the first five tracepoint
 * arguments in si..r9 (di = NULL, the stub's data), the rest on the stack
 * above the return address (sp = the stack pointer at entry), so $argN,
 * $stackN and arguments past the fifth read what they read on the stub.
 * __probe_ip is the stub's ftrace location (after its endbr64), as the
 * in-kernel t events record.
 *
 * Tracepoints call probes as void (*)(void *data, PROTO). Without kCFI the
 * function is rfprobe_tp_probe, which calls the handler directly. kCFI
 * checks that call against the tracepoint's own prototype, which only the
 * tracepoint's functions have: there the pair is (probestub, context) and
 * an ftrace_ops on the stub calls the handler for the calls whose data
 * argument is this context (an in-kernel t event's fprobe on the same stub
 * also sees them: see Documentation/trace/rfprobetrace.rst).
 */
struct rfprobe_tp {
	struct tracepoint *tp;
	void *probe;
	unsigned long ip;
	atomic_long_t nmissed;
#ifdef RFPROBE_KCFI
	struct ftrace_ops ops;
#endif
};

/* The partial pt_regs the handler reads (see rfprobe_perf_regs()). */
static __always_inline void rfprobe_tp_regs(struct pt_regs *regs, struct rfprobe_tp *t,
					    unsigned long a1, unsigned long a2,
					    unsigned long a3, unsigned long a4,
					    unsigned long a5, unsigned long sp)
{
	regs->di = 0;
	regs->si = a1;
	regs->dx = a2;
	regs->cx = a3;
	regs->r8 = a4;
	regs->r9 = a5;
	regs->ax = 0;
	regs->bp = 0;
	regs->ip = t->ip;
	regs->sp = sp;
}

/* ftrace's recursion lock around the handler, as for the f probes. */
static __always_inline void rfprobe_tp_run(struct rfprobe_tp *t, unsigned long parent_ip,
					   struct pt_regs *regs)
{
	int bit = ftrace_test_recursion_trylock(t->ip, parent_ip);

	if (bit < 0) {
		atomic_long_inc(&t->nmissed);
		return;
	}
	rfprobe_fprobe_depth_enter();
	rfprobe_ops_entry(t->probe, t->ip, regs);
	rfprobe_fprobe_depth_exit();
	ftrace_test_recursion_unlock(bit);
}

#ifndef RFPROBE_KCFI
/* __builtin_frame_address() makes the compiler set up rbp here. */
static void notrace
rfprobe_tp_probe(void *data, unsigned long a1, unsigned long a2, unsigned long a3,
		 unsigned long a4, unsigned long a5)
{
	struct rfprobe_tp *t = data;
	/*
	 * Only the members a partial pt_regs has are set: the handler reads
	 * no others, and zeroing all 21 words (CONFIG_INIT_STACK_ALL_ZERO
	 * included) costs every hit.
	 */
	struct pt_regs regs __uninitialized;

	/* The frame address is where the prologue pushed rbp. */
	rfprobe_tp_regs(&regs, t, a1, a2, a3, a4, a5,
			(unsigned long)__builtin_frame_address(0) + sizeof(long));
	rfprobe_tp_run(t, _RET_IP_, &regs);
}
NOKPROBE_SYMBOL(rfprobe_tp_probe);
#define RFPROBE_TP_FUNC(t) ((void *)rfprobe_tp_probe)

/* Without kCFI the tracepoint calls rfprobe_tp_probe: no ftrace_ops. */
static inline int rfprobe_tp_ops_register(struct rfprobe_tp *t, unsigned long stub)
{
	return 0;
}

static inline void rfprobe_tp_ops_unregister(struct rfprobe_tp *t)
{
}
#else
static void notrace rfprobe_tp_ops_func(unsigned long ip, unsigned long parent_ip,
					struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct rfprobe_tp *t = container_of(op, struct rfprobe_tp, ops);
	const struct pt_regs *in = &arch_ftrace_regs(fregs)->regs;
	struct pt_regs regs __uninitialized;

	/*
	 * Another user's call of the stub (an in-kernel t event's, another
	 * rfprobe t probe's): not ours.
	 */
	if (in->di != (unsigned long)t)
		return;
	/*
	 * A copy, with di = NULL as on the stub of the in-kernel t events:
	 * the other ftrace_ops on the stub read the same registers.
	 */
	rfprobe_tp_regs(&regs, t, in->si, in->dx, in->cx, in->r8, in->r9, in->sp);
	rfprobe_tp_run(t, parent_ip, &regs);
}
NOKPROBE_SYMBOL(rfprobe_tp_ops_func);
#define RFPROBE_TP_FUNC(t) ((t)->tp->probestub)

/* The ftrace_ops on the stub: a fresh one for every attach (see rfprobe_ops_reset()). */
static int rfprobe_tp_ops_register(struct rfprobe_tp *t, unsigned long stub)
{
	int ret;

	memset(&t->ops, 0, sizeof(t->ops));
	t->ops.func = rfprobe_tp_ops_func;
	ret = ftrace_set_filter_ip(&t->ops, stub, 0, 0);
	if (!ret)
		ret = register_ftrace_function(&t->ops);
	if (ret)
		ftrace_free_filter(&t->ops);
	return ret;
}

/* Waits for callbacks in flight (ftrace_shutdown() synchronizes). */
static void rfprobe_tp_ops_unregister(struct rfprobe_tp *t)
{
	unregister_ftrace_function(&t->ops);
	ftrace_free_filter(&t->ops);
}
#endif

struct rfprobe_tp *rfprobe_tp_new(void *probe)
{
	struct rfprobe_tp *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (t)
		t->probe = probe;
	return t;
}

int rfprobe_tp_attach(struct rfprobe_tp *t, struct tracepoint *tp)
{
	unsigned long stub = (unsigned long)tp->probestub;
	u32 insn;
	int ret;

	t->ip = stub;
	if (!copy_from_kernel_nofault(&insn, (void *)stub, sizeof(insn)) && rfprobe_is_endbr(insn))
		t->ip += ENDBR_INSN_SIZE;
	t->tp = tp;
	ret = rfprobe_tp_ops_register(t, stub);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(tp, RFPROBE_TP_FUNC(t), t);
	if (ret)
		rfprobe_tp_ops_unregister(t);
	return ret;
}
/*
 * The registrations that attach a probe when its event is enabled can fail
 * (ftrace and tracepoint registration allocate): fail_function may make
 * them fail, so that the rollback of a partly enabled multi-probe event is
 * tested (selftests/stress/faults.tc).
 */
ALLOW_ERROR_INJECTION(rfprobe_tp_attach, ERRNO);

/* Detaches and waits until no CPU runs the probe any more. */
void rfprobe_tp_detach(struct rfprobe_tp *t)
{
	WARN_ON_ONCE(tracepoint_probe_unregister(t->tp, RFPROBE_TP_FUNC(t), t));
	tracepoint_synchronize_unregister();
	rfprobe_tp_ops_unregister(t);
	t->tp = NULL;
}

/*
 * Exit probes: the Rust fprobe handlers, set by name (rfprobe_helpers.h),
 * of exactly fprobe's handler types (the compat header's register type).
 */
static_assert(__same_type(&rfprobe_fexit, fprobe_exit_cb));
static_assert(__same_type(&rfprobe_fexit_entry, fprobe_entry_cb));
void rfprobe_fprobe_handlers(struct fprobe *fp, bool with_entry, bool gate, unsigned int slot)
{
	fp->exit_handler = slot ? rfprobe_fexit_1 : rfprobe_fexit;
	if (with_entry)
		fp->entry_handler = slot ? rfprobe_fexit_entry_1 : rfprobe_fexit_entry;
	else if (gate)
		fp->entry_handler = slot ? rfprobe_fexit_gate_1 : rfprobe_fexit_gate;
}

/*
 * w probes. One perf hardware breakpoint per CPU, created when the event is
 * enabled and released when it is disabled, as upstream's wprobe events do.
 * The overflow handler runs in the debug exception (an NMI-like context:
 * the record path is NMI-safe) with the registers of the access; on x86 a
 * data breakpoint traps after the instruction, so the ip is the next one.
 */
struct rfprobe_wp {
	struct perf_event * __percpu *bp;
	void *probe;
	/*
	 * Trigger-armed watchpoints (w@0) only. @want is the address the
	 * triggers ask for (0: disarmed), changed lock-free from any context
	 * (NMI too); the breakpoints follow it from a work item (moving one
	 * sleeps: modify_user_hw_breakpoint() disables and enables it by IPI
	 * and validates the address as perf does). @lock serialises that with
	 * attach and detach; @at is where the breakpoints are.
	 */
	bool by_trigger;
	atomic_long_t want;
	unsigned long at;
	struct mutex lock;
	struct irq_work iw;
	struct work_struct work;
	/* local_clock() of the last request, for the arming latency. */
	atomic64_t asked_ns;
	atomic64_t max_lat_ns;
	atomic_long_t moves;
	atomic_long_t refused;
	/* Disarmed because the module holding the address went. */
	atomic_long_t gone;
};

/*
 * The address whose access trapped, on this CPU, for a trigger-armed
 * watchpoint's $addr (rfprobe_wp_hit_slot()): set by the handler before the
 * probe runs; a #DB handler cannot nest on its CPU (DR7 is cleared while
 * it runs).
 */
static DEFINE_PER_CPU(unsigned long, rfprobe_wp_hit);

/*
 * Where disarmed breakpoints wait: a placeholder address only. A disarmed
 * breakpoint is disabled (attr.disabled: perf keeps its debug register
 * slot reserved but installs nothing), so no access anywhere traps; the
 * word itself is read by kmemleak's scan and /proc/kcore like any .bss.
 */
static unsigned long rfprobe_wp_park __aligned(8);

unsigned long rfprobe_wp_hit_slot(void)
{
	return (unsigned long)&rfprobe_wp_hit;
}

static void rfprobe_wp_kick(struct irq_work *iw)
{
	struct rfprobe_wp *w = container_of(iw, struct rfprobe_wp, iw);

	/* High priority: the watch is blind until the move. */
	queue_work(system_highpri_wq, &w->work);
}

static void rfprobe_wp_move(struct work_struct *work);

struct rfprobe_wp *rfprobe_wp_new(void *probe, bool by_trigger)
{
	struct rfprobe_wp *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (!w)
		return NULL;
	w->probe = probe;
	w->by_trigger = by_trigger;
	mutex_init(&w->lock);
	init_irq_work(&w->iw, rfprobe_wp_kick);
	INIT_WORK(&w->work, rfprobe_wp_move);
	return w;
}

/*
 * A trigger asks for @addr (0: disarm): with @only_if set, only when the
 * watchpoint wants @expect now (set: 0, not armed; clear: the address it is
 * armed at; clear without a field: any). Any context, NMI included.
 * Returns 1 if the request changed it, 0 if not.
 */
int notrace rfprobe_wp_request(struct rfprobe_wp *w, unsigned long addr,
			       unsigned long expect, bool only_if)
{
	long old = atomic_long_read(&w->want);

	do {
		if ((only_if && old != expect) || old == addr)
			return 0;
	} while (!atomic_long_try_cmpxchg(&w->want, &old, addr));
	atomic64_set(&w->asked_ns, local_clock());
	irq_work_queue(&w->iw);
	return 1;
}
NOKPROBE_SYMBOL(rfprobe_wp_request);

unsigned long rfprobe_wp_armed(struct rfprobe_wp *w)
{
	return atomic_long_read(&w->want);
}

unsigned long rfprobe_wp_gone(struct rfprobe_wp *w)
{
	return atomic_long_read(&w->gone);
}

void rfprobe_wp_stats(struct rfprobe_wp *w, unsigned long *at, unsigned long *moves,
		      unsigned long *refused, u64 *max_lat_ns)
{
	mutex_lock(&w->lock);
	*at = w->at == (unsigned long)&rfprobe_wp_park ? 0 : w->at;
	mutex_unlock(&w->lock);
	*moves = atomic_long_read(&w->moves);
	*refused = atomic_long_read(&w->refused);
	*max_lat_ns = atomic64_read(&w->max_lat_ns);
}

#ifdef CONFIG_HAVE_HW_BREAKPOINT
static void notrace rfprobe_wp_handler(struct perf_event *bp, struct perf_sample_data *data,
				       struct pt_regs *regs)
{
	struct rfprobe_wp *w = bp->overflow_handler_context;

	this_cpu_write(rfprobe_wp_hit, bp->attr.bp_addr);
	rfprobe_ops_entry(w->probe, instruction_pointer(regs), regs);
}
NOKPROBE_SYMBOL(rfprobe_wp_handler);

/*
 * Points every CPU's breakpoint at @addr; under @lock, attached. On a
 * refusal (perf validates the address: the CPU entry area, ...) the
 * breakpoints stay where they were.
 */
static int rfprobe_wp_point(struct rfprobe_wp *w, unsigned long addr)
{
	struct perf_event_attr attr;
	int cpu, err = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *bp = per_cpu(*w->bp, cpu);

		if (!bp)
			continue;
		attr = bp->attr;
		attr.bp_addr = addr;
		attr.disabled = addr == (unsigned long)&rfprobe_wp_park;
		err = modify_user_hw_breakpoint(bp, &attr);
		if (err)
			break;
	}
	if (err) {
		for_each_online_cpu(cpu) {
			struct perf_event *bp = per_cpu(*w->bp, cpu);

			if (!bp || bp->attr.bp_addr == w->at)
				continue;
			attr = bp->attr;
			attr.bp_addr = w->at;
			attr.disabled = w->at == (unsigned long)&rfprobe_wp_park;
			WARN_ON_ONCE(modify_user_hw_breakpoint(bp, &attr));
		}
	} else {
		w->at = addr;
	}
	cpus_read_unlock();
	return err;
}

/* A refused request: disarmed again, counted. Under @lock. */
static void rfprobe_wp_refuse(struct rfprobe_wp *w, unsigned long want)
{
	atomic_long_inc(&w->refused);
	atomic_long_cmpxchg(&w->want, want, 0);
}

/*
 * Would perf watch @addr? Asked while detached, so that a request is
 * refused when it is made, enabled or not: a disabled breakpoint on one
 * CPU is created (perf validates the address) and released. Only -EINVAL
 * is the address's fault (-ENOSPC: no free slot on that CPU, so nothing is
 * known until the breakpoints are registered). The triggers check the
 * alignment to the watchpoint's length, so a 1-byte write breakpoint
 * overlaps what perf refuses exactly when the watchpoint's would.
 */
static int rfprobe_wp_check(struct rfprobe_wp *w, unsigned long addr)
{
	struct perf_event_attr attr;
	struct perf_event *bp;

	hw_breakpoint_init(&attr);
	attr.bp_addr = addr;
	attr.bp_len = HW_BREAKPOINT_LEN_1;
	attr.bp_type = HW_BREAKPOINT_W;
	attr.exclude_user = 1;
	attr.disabled = 1;
	cpus_read_lock();
	bp = perf_event_create_kernel_counter(&attr, cpumask_first(cpu_online_mask), NULL,
					      rfprobe_wp_handler, w);
	cpus_read_unlock();
	if (IS_ERR(bp))
		return PTR_ERR(bp);
	perf_event_release_kernel(bp);
	return 0;
}

/* The work item: the breakpoints follow @want. */
static void rfprobe_wp_move(struct work_struct *work)
{
	struct rfprobe_wp *w = container_of(work, struct rfprobe_wp, work);
	unsigned long want, to;
	u64 lat;

	mutex_lock(&w->lock);
	want = atomic_long_read(&w->want);
	to = want ?: (unsigned long)&rfprobe_wp_park;
	if (!w->bp && want && rfprobe_wp_check(w, want) == -EINVAL)
		rfprobe_wp_refuse(w, want);
	if (w->bp && to != w->at) {
		if (rfprobe_wp_point(w, to)) {
			/* Not watchable. */
			rfprobe_wp_refuse(w, want);
		} else {
			atomic_long_inc(&w->moves);
			lat = local_clock() - atomic64_read(&w->asked_ns);
			if (want && (s64)lat > 0 && lat > atomic64_read(&w->max_lat_ns))
				atomic64_set(&w->max_lat_ns, lat);
		}
	}
	mutex_unlock(&w->lock);
}

int rfprobe_wp_attach(struct rfprobe_wp *w, unsigned long addr, unsigned int len,
		      unsigned int type)
{
	struct perf_event_attr attr;
	struct perf_event * __percpu *bp;
	int err = 0;

	hw_breakpoint_init(&attr);
	if (w->by_trigger) {
		mutex_lock(&w->lock);
		addr = atomic_long_read(&w->want) ?: (unsigned long)&rfprobe_wp_park;
	}
	attr.bp_addr = addr;
	switch (len) {
	case 1:
		attr.bp_len = HW_BREAKPOINT_LEN_1;
		break;
	case 2:
		attr.bp_len = HW_BREAKPOINT_LEN_2;
		break;
	case 4:
		attr.bp_len = HW_BREAKPOINT_LEN_4;
		break;
	case 8:
		attr.bp_len = HW_BREAKPOINT_LEN_8;
		break;
	default:
		err = -EINVAL;
		goto out;
	}
	switch (type) {
	case 1:
		attr.bp_type = HW_BREAKPOINT_R;
		break;
	case 2:
		attr.bp_type = HW_BREAKPOINT_W;
		break;
	case 3:
		attr.bp_type = HW_BREAKPOINT_RW;
		break;
	default:
		err = -EINVAL;
		goto out;
	}
	/* Kernel data only: a user task touching the same address is not ours. */
	attr.exclude_user = 1;
	if (w->by_trigger && addr != (unsigned long)&rfprobe_wp_park &&
	    rfprobe_wp_check(w, addr) == -EINVAL) {
		/* A request that could not be checked when made (no slot). */
		rfprobe_wp_refuse(w, addr);
		addr = attr.bp_addr = (unsigned long)&rfprobe_wp_park;
	}
	attr.disabled = addr == (unsigned long)&rfprobe_wp_park;
	bp = register_wide_hw_breakpoint(&attr, rfprobe_wp_handler, w);
	if (IS_ERR_PCPU(bp)) {
		err = PTR_ERR_PCPU(bp);
		goto out;
	}
	w->bp = bp;
	w->at = addr;
out:
	if (w->by_trigger)
		mutex_unlock(&w->lock);
	return err;
}
/* As the other attach functions: fail_function may make it fail. */
ALLOW_ERROR_INJECTION(rfprobe_wp_attach, ERRNO);

/* Releases the breakpoints; no handler of this probe runs on return. */
void rfprobe_wp_detach(struct rfprobe_wp *w)
{
	mutex_lock(&w->lock);
	if (!w->bp) {
		mutex_unlock(&w->lock);
		return;
	}
	/*
	 * Each CPU's breakpoint is removed by a synchronous IPI, and the #DB
	 * handler runs with interrupts off, so none runs on return; the RCU
	 * grace period (NMI-like handlers are RCU readers) keeps that true
	 * whatever the removal path does.
	 */
	unregister_wide_hw_breakpoint(w->bp);
	w->bp = NULL;
	w->at = 0;
	mutex_unlock(&w->lock);
	synchronize_rcu();
}

/*
 * Module @mod goes (@init_only: it went live, and its init memory is freed
 * next): a trigger-armed watchpoint that wants or watches an address in
 * that memory (any of it, whatever symbol precedes it) is disarmed now,
 * its breakpoints moved away before the notification returns, and counted
 * in @gone. Returns 1 if it was.
 */
int rfprobe_wp_module_going(struct rfprobe_wp *w, struct module *mod, bool init_only)
{
	unsigned long want;
	bool in;

	if (!w->by_trigger)
		return 0;
	mutex_lock(&w->lock);
	want = atomic_long_read(&w->want);
	if (init_only)
		in = within_module_init(want, mod) || within_module_init(w->at, mod);
	else
		in = within_module(want, mod) || within_module(w->at, mod);
	if (in) {
		atomic_long_cmpxchg(&w->want, want, 0);
		atomic_long_inc(&w->gone);
		if (w->bp && w->at != (unsigned long)&rfprobe_wp_park)
			WARN_ON_ONCE(rfprobe_wp_point(w, (unsigned long)&rfprobe_wp_park));
	}
	mutex_unlock(&w->lock);
	return in;
}
#else
int rfprobe_wp_attach(struct rfprobe_wp *w, unsigned long addr, unsigned int len,
		      unsigned int type)
{
	return -EOPNOTSUPP;
}

int rfprobe_wp_module_going(struct rfprobe_wp *w, struct module *mod, bool init_only)
{
	return 0;
}

void rfprobe_wp_detach(struct rfprobe_wp *w)
{
}

static void rfprobe_wp_move(struct work_struct *work)
{
}
#endif

/*
 * Frees the context: detached, and no trigger can request anything any
 * more (they are gone, and their handlers with them).
 */
void rfprobe_wp_free(struct rfprobe_wp *w)
{
	irq_work_sync(&w->iw);
	cancel_work_sync(&w->work);
	kfree(w);
}

unsigned long rfprobe_tp_nmissed(struct rfprobe_tp *t)
{
	return atomic_long_read(&t->nmissed);
}

void rfprobe_tp_free(struct rfprobe_tp *t)
{
	kfree(t);
}

const char *rfprobe_tracepoint_name(struct tracepoint *tp)
{
	return tp->name;
}

static size_t notrace copy_sym(char *buf, size_t len, const char *sym, int n)
{
	size_t m = n < 0 ? 0 : min_t(size_t, n, len);

	memcpy(buf, sym, m);
	return m;
}

size_t notrace rfprobe_sprint_symbol(char *buf, size_t len, unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	return copy_sym(buf, len, sym, sprint_symbol(sym, addr));
}
NOKPROBE_SYMBOL(rfprobe_sprint_symbol);

size_t rfprobe_sprint_symbol_no_offset(char *buf, size_t len, unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	return copy_sym(buf, len, sym, sprint_symbol_no_offset(sym, addr));
}


struct tracepoint *rfprobe_tp_module_find(struct tp_module *tpm, const char *name)
{
	struct module *mod = tpm->mod;
	tracepoint_ptr_t *iter;

	if (!mod->num_tracepoints)
		return NULL;
	for (iter = mod->tracepoints_ptrs; iter < mod->tracepoints_ptrs + mod->num_tracepoints; iter++) {
		struct tracepoint *tp = tracepoint_ptr_deref(iter);

		if (!strcmp(tp->name, name))
			return tp;
	}
	return NULL;
}

void rfprobe_mutex_lock(struct mutex *m)
{
	mutex_lock(m);
}

void rfprobe_mutex_unlock(struct mutex *m)
{
	mutex_unlock(m);
}

const char *rfprobe_module_name(struct module *mod)
{
	return module_name(mod);
}

/* Layout facts the fetch programs of %pd/%pD need, from the kernel itself. */
const char *rfprobe_tp_module_name(struct tp_module *tpm)
{
	return module_name(tpm->mod);
}

#ifdef RFPROBE_OPS_FUNC_IN_C
static void notrace rfprobe_ops_func(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct rfprobe_ops *ro = container_of(op, struct rfprobe_ops, ops);
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		atomic_long_inc(&ro->nmissed);
		return;
	}
	rfprobe_fprobe_depth_enter();
	rfprobe_ops_entry(ro->data, ip, &arch_ftrace_regs(fregs)->regs);
	rfprobe_fprobe_depth_exit();
	ftrace_test_recursion_unlock(bit);
}
#endif
NOKPROBE_SYMBOL(rfprobe_ops_func);

/*
 * preempt_enable_notrace()'s reschedule, for trace_fprobe/cpu.rs, which
 * calls it when the decremented count reaches zero (a reschedule is due).
 * Without CONFIG_PREEMPTION, preempt_enable_notrace() does not reschedule.
 */
void notrace rfprobe_preempt_schedule_notrace(void)
{
#ifdef CONFIG_PREEMPTION
	__preempt_schedule_notrace();
#endif
}
NOKPROBE_SYMBOL(rfprobe_preempt_schedule_notrace);

/*
 * A fresh ftrace_ops for every registration: unregistering leaves ftrace
 * state (trampoline, hashes, flags) behind that must not be reused.
 */
static void rfprobe_ops_reset(struct rfprobe_ops *ro)
{
	memset(&ro->ops, 0, sizeof(ro->ops));
	ro->ops.func = rfprobe_ops_func;
}

struct rfprobe_ops *rfprobe_ops_new(void *data)
{
	struct rfprobe_ops *ro = kzalloc(sizeof(*ro), GFP_KERNEL);

	if (!ro)
		return NULL;
	rfprobe_ops_reset(ro);
	ro->data = data;
	return ro;
}

/* Attaches to the functions at @ips (function starts or ftrace locations). */
int rfprobe_ops_register_ips(struct rfprobe_ops *ro, unsigned long *ips, unsigned int cnt)
{
	int ret;

	/* No address would mean "every function" to ftrace. */
	if (!cnt)
		return -EINVAL;

	rfprobe_ops_reset(ro);
	ret = ftrace_set_filter_ips(&ro->ops, ips, cnt, 0, 1);
	if (!ret)
		ret = register_ftrace_function(&ro->ops);
	if (ret)
		ftrace_free_filter(&ro->ops);
	return ret;
}
/* See rfprobe_tp_attach(). */
ALLOW_ERROR_INJECTION(rfprobe_ops_register_ips, ERRNO);

/*
 * Functions join (@remove 0) or leave (@remove 1) the filter of a
 * registered probe in place: ftrace updates the patched sites without
 * unregistering the ops, so the probe's other functions keep their hits.
 * All or nothing (ftrace applies a copy of the hash). The caller never
 * removes the last function (an empty filter means "every function").
 */
int rfprobe_ops_update_ips(struct rfprobe_ops *ro, unsigned long *ips, unsigned int cnt,
			   int remove)
{
	if (!cnt)
		return 0;
	return ftrace_set_filter_ips(&ro->ops, ips, cnt, remove, 0);
}
ALLOW_ERROR_INJECTION(rfprobe_ops_update_ips, ERRNO);

int rfprobe_fprobe_update_ips(struct fprobe *fp, unsigned long *ips, unsigned int cnt,
			      int remove)
{
	if (!cnt)
		return 0;
	return rfprobe_fprobe_set_filter_ips(fp, ips, cnt, remove);
}
ALLOW_ERROR_INJECTION(rfprobe_fprobe_update_ips, ERRNO);

/*
 * ftrace's list of traceable functions with their addresses
 * ("ADDR NAME [MOD]" lines, since 6.5), read like user space reads it: the
 * list is not reachable from modules otherwise (kallsyms iteration is not
 * exported). Tracefs is at /sys/kernel/tracing, or automounted under
 * debugfs.
 */
static struct lock_class_key rfprobe_funcs_seq_key;

struct file *rfprobe_open_ftrace_funcs(void)
{
	struct file *f = filp_open("/sys/kernel/tracing/available_filter_functions_addrs",
				   O_RDONLY, 0);

	if (IS_ERR(f))
		f = filp_open("/sys/kernel/debug/tracing/available_filter_functions_addrs",
			      O_RDONLY, 0);
	/*
	 * rfprobe reads this private open file with its own mutex held, and
	 * takes that mutex inside the seq_file lock of its own control files.
	 * All seq_file locks share one lockdep class, which makes that look
	 * like a cycle; this file is rfprobe's alone (nobody else can hold
	 * its lock), so its lock gets a class of its own.
	 */
	if (!IS_ERR(f) && f->f_op->read == seq_read && f->private_data)
		lockdep_set_class(&((struct seq_file *)f->private_data)->lock,
				  &rfprobe_funcs_seq_key);
	return f;
}

/*
 * kernel_read() refuses files without ->read_iter, as ftrace's seq files
 * are (their ->read is seq_read). seq_read() is seq_read_iter() on a user
 * buffer; this is the same on a kernel buffer.
 */
ssize_t rfprobe_file_read(struct file *f, void *buf, size_t len, loff_t *pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;
	struct kiocb kiocb;
	ssize_t ret;

	if (f->f_op->read != seq_read)
		return kernel_read(f, buf, len, pos);
	init_sync_kiocb(&kiocb, f);
	kiocb.ki_pos = *pos;
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, len);
	ret = seq_read_iter(&kiocb, &iter);
	*pos = kiocb.ki_pos;
	return ret;
}

void rfprobe_file_close(struct file *f)
{
	filp_close(f, NULL);
}

/*
 * Is module @name loaded? find_module() is not exported; a loaded module
 * (not a built-in one) has /sys/module/NAME/initstate.
 */
/* Is @addr in the init text of @mod (freed once the module is live)? */
bool rfprobe_within_module_init(unsigned long addr, struct module *mod)
{
	return within_module_init(addr, mod);
}

/* The module's init text, [*start, *end) (empty once freed). */
void rfprobe_module_init_range(struct module *mod, unsigned long *start, unsigned long *end)
{
	*start = (unsigned long)mod->mem[MOD_INIT_TEXT].base;
	*end = *start + mod->mem[MOD_INIT_TEXT].size;
}

bool rfprobe_module_loaded(const char *name)
{
	char buf[MODULE_NAME_LEN + 32];
	struct path path;

	if (snprintf(buf, sizeof(buf), "/sys/module/%s/initstate", name) >= sizeof(buf))
		return false;
	if (kern_path(buf, LOOKUP_FOLLOW, &path))
		return false;
	path_put(&path);
	return true;
}

void rfprobe_ops_unregister(struct rfprobe_ops *ro)
{
	unregister_ftrace_function(&ro->ops);
	ftrace_free_filter(&ro->ops);
}

void rfprobe_ops_free(struct rfprobe_ops *ro)
{
	kfree(ro);
}

unsigned long rfprobe_ops_nmissed(struct rfprobe_ops *ro)
{
	return atomic_long_read(&ro->nmissed);
}

void rfprobe_synchronize_rcu(void)
{
	synchronize_rcu();
}

/* See rfprobe_helpers.h. */
int rfprobe_class_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct rfprobe_event_class *c = container_of(call->class, struct rfprobe_event_class, class);

	return c->reg(call, type, data);
}

enum print_line_t rfprobe_event_trace(struct trace_iterator *iter, int flags,
				      struct trace_event *event)
{
	const struct rfprobe_event_funcs *f =
		container_of(event->funcs, struct rfprobe_event_funcs, funcs);

	return f->trace(iter, flags, event);
}

/*
 * Is a dynamic event referenced (eprobes, triggers, hist actions, perf,
 * trace_get_event_file() users)? trace_event_dyn_busy() is not exported.
 */
bool rfprobe_event_busy(struct trace_event_call *call)
{
#ifdef CONFIG_PERF_EVENTS
	if (READ_ONCE(call->perf_refcount))
		return true;
#endif
	return atomic_read(&call->refcnt) != 0;
}

/*
 * find_trace_event_call() for the event list head @events (ftrace_events):
 * is GRP/EVENT taken by any event of the system? Caller holds event_mutex,
 * which every adder of events holds too.
 */
bool rfprobe_event_name_taken(struct list_head *events, const char *system, const char *name)
{
	struct trace_event_call *call;

	list_for_each_entry(call, events, list) {
		if (!call->class->system || strcmp(call->class->system, system))
			continue;
		if (!strcmp(trace_event_name(call), name))
			return true;
	}
	return false;
}

void rfprobe_assert_held(struct mutex *m)
{
	lockdep_assert_held(m);
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

/* tracepoint_synchronize_unregister() is a static inline. */

/*
 * perf (the tracepoint PMU on rfprobe events). The perf calls are wrapped
 * here so that the Rust code is the same with and without
 * CONFIG_PERF_EVENTS.
 */

/* This CPU's perf events on @call, or NULL when there are none. */
struct hlist_head *notrace rfprobe_perf_head(struct trace_event_call *call)
{
#ifdef CONFIG_PERF_EVENTS
	struct hlist_head __percpu *list = READ_ONCE(call->perf_events);
	struct hlist_head *head;

	if (!list)
		return NULL;
	head = this_cpu_ptr(list);
	return hlist_empty(head) ? NULL : head;
#else
	return NULL;
#endif
}
NOKPROBE_SYMBOL(rfprobe_perf_head);

/*
 * perf_trace_buf_alloc(): this CPU's perf record buffer for the current
 * recursion context, with the pt_regs slot that goes with it. Every
 * successful call must be followed by rfprobe_perf_submit() or
 * rfprobe_perf_discard() (they release the recursion context).
 */
void *notrace rfprobe_perf_alloc(int size, struct pt_regs **regs, int *rctx)
{
#ifdef CONFIG_PERF_EVENTS
	return perf_trace_buf_alloc(size, regs, rctx);
#else
	return NULL;
#endif
}
NOKPROBE_SYMBOL(rfprobe_perf_alloc);

/* perf_trace_buf_submit(): one sample of @type for the events on @head. */
void notrace rfprobe_perf_submit(void *rec, int size, int rctx, u16 type,
				 struct pt_regs *regs, struct hlist_head *head)
{
#ifdef CONFIG_PERF_EVENTS
	perf_trace_buf_submit(rec, size, rctx, type, 1, regs, head, NULL);
#endif
}
NOKPROBE_SYMBOL(rfprobe_perf_submit);

/*
 * Gives back a buffer from rfprobe_perf_alloc() without a sample
 * (perf_swevent_put_recursion_context() is not exported): perf_tp_event()
 * with no events to deliver to only releases the recursion context.
 */
void notrace rfprobe_perf_discard(void *rec, int rctx)
{
#ifdef CONFIG_PERF_EVENTS
	struct hlist_head none = HLIST_HEAD_INIT;

	perf_tp_event(0, 0, rec, sizeof(u64) - sizeof(u32), NULL, &none, rctx, NULL);
#endif
}
NOKPROBE_SYMBOL(rfprobe_perf_discard);

/*
 * perf's registers for a sample of an entry or tracepoint probe, whose
 * handler only has a partial pt_regs (argument registers, ax, bp, sp, ip;
 * the rest is not saved and must not reach user space): those, with
 * kernel-mode segments and no flags, as perf_arch_fetch_caller_regs()
 * fills them. Samples then point at the probed function (the tracepoint's
 * stub for t probes) and callchains unwind from there.
 */
void notrace rfprobe_perf_regs(struct pt_regs *dst, const struct pt_regs *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->di = src->di;
	dst->si = src->si;
	dst->dx = src->dx;
	dst->cx = src->cx;
	dst->r8 = src->r8;
	dst->r9 = src->r9;
	dst->ax = src->ax;
	dst->bp = src->bp;
	dst->sp = src->sp;
	dst->ip = src->ip;
	dst->cs = __KERNEL_CS;
	dst->ss = __KERNEL_DS;
}
NOKPROBE_SYMBOL(rfprobe_perf_regs);

/*
 * Records of a removed event. trace_remove_event_call() marks every
 * instance the event was ever enabled in (tr->clear_trace, from the file's
 * WAS_ENABLED flag) and leaves the reset to its caller: C's
 * dyn_event_release() consumes the marks at once with
 * tracing_reset_all_online_cpus(), which modules cannot call. rfprobe
 * consumes them the same way, under event_mutex right after the removal:
 * each marked instance is reset (the exported ring-buffer API, as
 * tracing_reset_online_cpus() does) and its mark cleared. A mark left set
 * would make the next reset by anyone (any dynamic event removal, any
 * module unload) wipe records written long after the removal.
 *
 * The instance list is stable under event_mutex (instances are created and
 * removed holding it). The mark itself is also written, under
 * trace_types_lock only, by other resetters (synth_event_delete()): a
 * benign race on a bool, the resets themselves being serialised by each
 * buffer's mutex.
 *
 * The instances are not remembered: the core's marks say which they are,
 * so an instance removed and another created at its address meanwhile is
 * never touched, and a failed enable marks nothing.
 *
 * struct trace_array is private to kernel/trace/trace.h, which a
 * distribution's headers do not have: the members read here and on the
 * direct path are at offsets taken from the running kernel's BTF
 * (trace_probe/src/core_layout.rs), set once by rfprobe_tr_layout_init()
 * before any probe is enabled; built with trace.h, they are checked
 * against offsetof() there. Without a layout the marks are left to the
 * core, which consumes them at its next reset.
 */
#ifdef RFPROBE_HAVE_TRACE_H
#include RFPROBE_HAVE_TRACE_H
#endif

struct rfprobe_tr_layout {
	long list, buffer, max_buffer, buffer_disabled, clear_trace, trace_flags;
	/* The size of trace_flags (4 or 8) and the stack-trace options' masks. */
	unsigned int trace_flags_size;
	u64 stack_flags;
};

/* The layout in use, from BTF (or, failing that, trace.h's below). */
static struct rfprobe_tr_layout rfprobe_tr __read_mostly;
static bool rfprobe_tr_ok __read_mostly;

#ifdef RFPROBE_HAVE_TRACE_H
/* The layout trace.h gives: constants the compiler folds into the hot path. */
static const struct rfprobe_tr_layout rfprobe_tr_h = {
	.list = offsetof(struct trace_array, list),
	.buffer = offsetof(struct trace_array, array_buffer.buffer),
#ifdef RFPROBE_TR_MAX_BUFFER
	.max_buffer = offsetof(struct trace_array, RFPROBE_TR_MAX_BUFFER.buffer),
#else
	.max_buffer = -1,
#endif
	.buffer_disabled = offsetof(struct trace_array, buffer_disabled),
	.clear_trace = offsetof(struct trace_array, clear_trace),
	.trace_flags = offsetof(struct trace_array, trace_flags),
	.trace_flags_size = sizeof(((struct trace_array *)0)->trace_flags),
	.stack_flags = RFPROBE_TRACE_ITER(STACKTRACE) | RFPROBE_TRACE_ITER(USERSTACKTRACE),
};
/*
 * With trace.h the accesses use its constants (rfprobe_tr_layout_init() has
 * checked that BTF agrees: the hot path pays nothing for the layout);
 * without it, the offsets BTF gave.
 */
#define RFPROBE_TR_LAYOUT rfprobe_tr_h

static bool rfprobe_tr_equal(const struct rfprobe_tr_layout *a, const struct rfprobe_tr_layout *b)
{
	return a->list == b->list && a->buffer == b->buffer && a->max_buffer == b->max_buffer &&
	       a->buffer_disabled == b->buffer_disabled && a->clear_trace == b->clear_trace &&
	       a->trace_flags == b->trace_flags && a->trace_flags_size == b->trace_flags_size &&
	       a->stack_flags == b->stack_flags;
}
#else
#define RFPROBE_TR_LAYOUT rfprobe_tr
#endif

/* Member @m of the struct trace_array at @tr, as @type. */
#define RFPROBE_TR(tr, type, m) (*(type *)((char *)(tr) + RFPROBE_TR_LAYOUT.m))

/* The trace_flags of the struct trace_array at @tr, of its width. */
static __always_inline u64 rfprobe_tr_flags(void *tr)
{
	if (RFPROBE_TR_LAYOUT.trace_flags_size == 8)
		return READ_ONCE(RFPROBE_TR(tr, u64, trace_flags));
	return READ_ONCE(RFPROBE_TR(tr, unsigned int, trace_flags));
}

static int rfprobe_tr_layout_set(const struct rfprobe_tr_layout *l)
{
#ifdef RFPROBE_HAVE_TRACE_H
	if (!rfprobe_tr_equal(l, &rfprobe_tr_h)) {
		pr_err("rfprobe: struct trace_array in BTF differs from kernel/trace/trace.h\n");
		return -EINVAL;
	}
#endif
	rfprobe_tr = *l;
	/* Read under event_mutex, which the caller holds or has released since. */
	smp_store_release(&rfprobe_tr_ok, true);
	return 0;
}

int rfprobe_tr_layout_init(long list, long buffer, long max_buffer, long buffer_disabled,
			   long clear_trace, long trace_flags, unsigned int trace_flags_size,
			   u64 stack_flags)
{
	const struct rfprobe_tr_layout l = {
		.list = list,
		.buffer = buffer,
		.max_buffer = max_buffer,
		.buffer_disabled = buffer_disabled,
		.clear_trace = clear_trace,
		.trace_flags = trace_flags,
		.trace_flags_size = trace_flags_size,
		.stack_flags = stack_flags,
	};

	if (trace_flags_size != 4 && trace_flags_size != 8)
		return -EINVAL;

	return rfprobe_tr_layout_set(&l);
}

/* The layout trace.h gives, when BTF has none: -EOPNOTSUPP without trace.h. */
int rfprobe_tr_layout_init_builtin(void)
{
#ifdef RFPROBE_HAVE_TRACE_H
	return rfprobe_tr_layout_set(&rfprobe_tr_h);
#else
	return -EOPNOTSUPP;
#endif
}

static void rfprobe_buffer_reset(struct trace_buffer *buffer)
{
	/* Disables recording, waits for running commits, resets every CPU. */
	if (buffer)
		ring_buffer_reset(buffer);
}

int rfprobe_consume_clear_trace(struct list_head *trace_arrays)
{
	struct list_head *pos;
	int n = 0;

	if (!smp_load_acquire(&rfprobe_tr_ok))
		return -EOPNOTSUPP;
	for (pos = trace_arrays->next; pos != trace_arrays; pos = pos->next) {
		void *tr = (char *)pos - RFPROBE_TR_LAYOUT.list;

		if (!READ_ONCE(RFPROBE_TR(tr, bool, clear_trace)))
			continue;
		rfprobe_buffer_reset(RFPROBE_TR(tr, struct trace_buffer *, buffer));
		if (RFPROBE_TR_LAYOUT.max_buffer >= 0)
			rfprobe_buffer_reset(RFPROBE_TR(tr, struct trace_buffer *, max_buffer));
		WRITE_ONCE(RFPROBE_TR(tr, bool, clear_trace), false);
		n++;
	}
	return n;
}

/*
 * The direct record path (see Documentation/design.rst, "Record path"):
 * for the common event (no filter, trigger, PID filter or soft disable, no
 * stacktrace option, no tracepoint_printk, no ftrace export) a record is
 * reserved and committed straight in the ring buffer, with the header the
 * tracing core would write (rfprobe_record.h), and the per-CPU flag that
 * lets the sched_switch hook save the task's comm set as the core sets it.
 * Anything else takes trace_event_buffer_reserve()/_commit().
 *
 * Needs struct trace_array's layout (rfprobe_tr_layout_init(), from BTF)
 * and three private symbols, found at the first definition:
 * trace_taskinfo_save (a per-CPU variable, from BTF), tracepoint_printk_key
 * and trace_event_exports_enabled (kallsyms). Without them every record
 * takes the generic path.
 */
#include "rfprobe_record.h"

/* The ring buffer's private members rfprobe_file_refused() reads, from BTF. */
static struct {
	long record_disabled, buffers, cpu_record_disabled, current_context, nest;
} rfprobe_rb __read_mostly;
static bool rfprobe_rb_ok __read_mostly;

/* Member @m of the ring buffer struct at @p, as @type. */
#define RFPROBE_RB(p, type, m) (*(type *)((char *)(p) + rfprobe_rb.m))
/* kernel/trace/ring_buffer.c's RB_CTX_TRANSITION and RB_CTX_NORMAL. */
#define RFPROBE_RB_CTX_TRANSITION 0
#define RFPROBE_RB_CTX_NORMAL 4

void rfprobe_rb_layout_init(long record_disabled, long buffers, long cpu_record_disabled,
			    long current_context, long nest)
{
	rfprobe_rb.record_disabled = record_disabled;
	rfprobe_rb.buffers = buffers;
	rfprobe_rb.cpu_record_disabled = cpu_record_disabled;
	rfprobe_rb.current_context = current_context;
	rfprobe_rb.nest = nest;
	smp_store_release(&rfprobe_rb_ok, true);
}

/*
 * After a refused reservation in @file's instance, on the CPU and context
 * level of the refusal: what ring_buffer_lock_reserve() refuses for, as
 * the buffer shows it now (trace_probe::profile::refusal() decides):
 * tracing_on 0 (tracer_tracing_off() sets buffer_disabled), the buffer's
 * record_disabled (tracing_on 0 too, tracing_stop_tr(), a resize), this
 * CPU's (tracing_cpumask, a resize or reset of the CPU's buffer), and its
 * recursion protection: this context level's bit and the transition bit
 * both held (by reservations below this one on the stack, so they are
 * still held). Sets those that hold; the caller's flags start false.
 * Nothing set: no room. Without a layout, nothing is set ("full").
 */
void notrace rfprobe_file_refused(struct trace_event_file *file, bool *off, bool *buffer_disabled,
				  bool *cpu_disabled, bool *recursion)
{
	struct trace_buffer *buffer;
	void **buffers, *cb;
	unsigned long nest;
	unsigned int ctx, bit;

	if (!smp_load_acquire(&rfprobe_tr_ok))
		return;
	*off = READ_ONCE(RFPROBE_TR(file->tr, int, buffer_disabled));
	/* tracing_on 0 is the first reason refusal() takes: nothing else to read. */
	if (*off)
		return;
	buffer = READ_ONCE(RFPROBE_TR(file->tr, struct trace_buffer *, buffer));
	if (!smp_load_acquire(&rfprobe_rb_ok) || !buffer)
		return;
	*buffer_disabled = atomic_read(&RFPROBE_RB(buffer, atomic_t, record_disabled));
	buffers = RFPROBE_RB(buffer, void **, buffers);
	cb = buffers ? READ_ONCE(buffers[raw_smp_processor_id()]) : NULL;
	if (!cb)
		return;
	*cpu_disabled = atomic_read(&RFPROBE_RB(cb, atomic_t, cpu_record_disabled));
	ctx = READ_ONCE(RFPROBE_RB(cb, unsigned int, current_context));
	nest = READ_ONCE(RFPROBE_RB(cb, unsigned long, nest));
	bit = RFPROBE_RB_CTX_NORMAL - interrupt_context_level();
	*recursion = nest < 32 - RFPROBE_RB_CTX_NORMAL && (ctx & (1U << (bit + nest))) &&
		     (ctx & (1U << (RFPROBE_RB_CTX_TRANSITION + nest)));
}
NOKPROBE_SYMBOL(rfprobe_file_refused);

static bool __percpu *rfprobe_taskinfo_save __read_mostly;
static struct static_key *rfprobe_printk_key __read_mostly;
static struct static_key *rfprobe_exports_key __read_mostly;

int rfprobe_direct_init(unsigned long taskinfo_save, unsigned long printk_key,
			unsigned long exports_key)
{
	if (!smp_load_acquire(&rfprobe_tr_ok))
		return -EOPNOTSUPP;
	if (!taskinfo_save || !printk_key || !exports_key)
		return -ENOENT;
	rfprobe_taskinfo_save = (bool __percpu *)taskinfo_save;
	rfprobe_printk_key = (struct static_key *)printk_key;
	rfprobe_exports_key = (struct static_key *)exports_key;
	return 0;
}

static __always_inline struct rfprobe_direct
__rfprobe_direct_reserve(struct trace_event_file *file, unsigned long len,
			 struct ring_buffer_event **eventp)
{
	struct rfprobe_direct d = { NULL, NULL };
	void *tr = file->tr;
	struct ring_buffer_event *event;
	struct trace_entry *ent;
	unsigned int ctx;

	if (unlikely(rfprobe_tr_flags(tr) & RFPROBE_TR_LAYOUT.stack_flags))
		return d;
	/* != 0: the count is -1 while static_key_enable() patches. */
	if (unlikely(static_key_count(rfprobe_printk_key) != 0 ||
		     static_key_count(rfprobe_exports_key) != 0))
		return d;
	/*
	 * Read once: the commit must go to the buffer reserved on even if a
	 * snapshot swaps the instance's buffers meanwhile (update_max_tr()),
	 * as trace_event_buffer_reserve() keeps it in fbuffer->buffer.
	 */
	d.buffer = READ_ONCE(RFPROBE_TR(tr, struct trace_buffer *, buffer));
	event = ring_buffer_lock_reserve(d.buffer, len);
	if (unlikely(!event))
		return d;
	/*
	 * The context after the reservation (nothing is live across the
	 * call): the reservation disabled preemption once more, which
	 * rfprobe_trace_ctx_dec() must not count.
	 */
	ctx = rfprobe_trace_ctx_dec(IS_ENABLED(CONFIG_PREEMPT_COUNT) ? 1 : 0);
	ent = rfprobe_rb_event_data(event);
	rfprobe_entry_setup(ent, file->event_call->event.type, ctx);
	d.rec = ent;
	*eventp = event;
	return d;
}

struct rfprobe_direct notrace rfprobe_direct_reserve(struct trace_event_file *file,
						    unsigned long len)
{
	struct ring_buffer_event *event;

	return __rfprobe_direct_reserve(file, len, &event);
}
NOKPROBE_SYMBOL(rfprobe_direct_reserve);

/* The same, for an event with a filter: also the ring-buffer event. */
struct rfprobe_direct notrace rfprobe_direct_reserve_ev(struct trace_event_file *file,
						       unsigned long len,
						       struct ring_buffer_event **event)
{
	return __rfprobe_direct_reserve(file, len, event);
}
NOKPROBE_SYMBOL(rfprobe_direct_reserve_ev);

/*
 * The event's filter on a filled direct record: true if it matches (the
 * caller commits it), false if not: then it is discarded here, which also
 * ends the reservation (as the core did before its per-CPU temporary
 * buffer: the record is rolled back when nothing was written after it).
 * The filter runs once per record, and rfprobe knows its verdict.
 */
bool notrace rfprobe_direct_filter(struct trace_event_file *file, struct trace_buffer *buffer,
				   struct ring_buffer_event *event, void *rec)
{
	if (filter_match_preds(rcu_dereference_raw(file->filter), rec))
		return true;
	ring_buffer_discard_commit(buffer, event);
	return false;
}
NOKPROBE_SYMBOL(rfprobe_direct_filter);

void notrace rfprobe_direct_commit(struct trace_buffer *buffer)
{
	raw_cpu_write(*rfprobe_taskinfo_save, true);
	ring_buffer_unlock_commit(buffer);
}
NOKPROBE_SYMBOL(rfprobe_direct_commit);
