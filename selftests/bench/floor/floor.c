// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of the benchmark (Documentation/benchmarks.rst, "The floor"):
 * the cheapest way to put an event's record into the ftrace ring buffer
 * from the attach point rfprobe uses. Built by selftests/bench/run.sh for
 * the benchmark only; never part of rfprobe.
 *
 * It writes records of an existing event (an rfprobe event defined for the
 * shape and left disabled, pinned with trace_get_event_file()) into the
 * event's ring buffer: ring_buffer_lock_reserve(), the trace_entry header
 * the tracing core writes (rfprobe_record.h, shared with rfprobe), the
 * probe addresses where the record has them (__probe_ip, or __probe_func
 * and __probe_ret_ip), zeros for the rest (no fetch),
 * ring_buffer_unlock_commit(). The attach
 * points are rfprobe's: a private ftrace_ops without SAVE_REGS and with
 * ftrace's recursion lock (entry), an fprobe exit handler (exit), a
 * tracepoint probe (t), a wide hardware breakpoint (wp: writes of the 8
 * bytes at SYMBOL, which must be rfprobe_floor_watched). And the trampoline
 * floors, the attach points BPF's fentry/fexit use: an ftrace direct call
 * to a trampoline of tramp.S that saves only the argument registers, with
 * ftrace's recursion lock (dentry); one that runs the function's body
 * itself and writes the record after it (dexit, functions whose arguments
 * are all in registers).
 *
 *   echo 'entry|exit|dentry|dexit|tp|wp FUNC-OR-TRACEPOINT-OR-SYMBOL GROUP EVENT SIZE [READS]' > /sys/kernel/debug/rfprobe_floor/control
 *   echo off > /sys/kernel/debug/rfprobe_floor/control
 *
 * READS makes it the "reads floor": the same loads of the same addresses as
 * the shape's program, plain loads (READ_ONCE) with no fault handling,
 * their values stored where the record has them. Comma-separated steps on
 * one value, as rfprobe's dump_fetcharg lists them (selftests/bench/guest.sh
 * translates that listing):
 *   aN          value = argument N (0-based; a tracepoint's Nth argument)
 *   iVAL        value = VAL
 *   r           value = the return value
 *   dOFF        value = the 8-byte word at value+OFF
 *   mS:OFF:DST  read S (1, 2, 4, 8) bytes at value+OFF, store at record+DST
 *   vS:DST      store S bytes of the value at record+DST
 *   sOFF:DST:DYN  copy the string at value+OFF to record+DYN, __data_loc
 *               at record+DST
 *   c           value = the clock (trace_clock_local()) minus the clock at
 *               the call's entry (exit, dexit: $duration), which the entry
 *               then reads: an fprobe entry handler into its entry data
 *               (exit), the trampoline's entry call into its frame (dexit,
 *               a trampoline of its own: the others read no clock)
 * Writing anything to /sys/kernel/debug/rfprobe_floor/poke writes
 * rfprobe_floor_watched once (the watchpoint shape's loop).
 *
 * Interpreted, one switch per step: the floor's own dispatch (a few
 * instructions per step) is in the reads floor, which makes it slightly
 * higher than hand-written loads would be.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/fprobe.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/ring_buffer.h>
#include <linux/slab.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include "trace.h"
#include "rfprobe_record.h"

enum floor_kind { FLOOR_OFF, FLOOR_ENTRY, FLOOR_EXIT, FLOOR_DENTRY, FLOOR_DEXIT, FLOOR_TP, FLOOR_WP };

/*
 * What tramp.S saves: the argument registers, then rax and (at exit) rdx;
 * then the clock at the call's entry (dexit with a "c" step).
 */
struct floor_direct_regs {
	unsigned long args[6];
	unsigned long ax, dx;
	u64 clock, pad;
};

void rfprobe_floor_tramp_entry(void);
void rfprobe_floor_tramp_exit(void);
void rfprobe_floor_tramp_exit_clock(void);
void rfprobe_floor_direct_entry(struct floor_direct_regs *r, unsigned long body, unsigned long parent);
void rfprobe_floor_exit_enter(void);
void rfprobe_floor_exit_enter_clock(struct floor_direct_regs *r);
void rfprobe_floor_direct_exit(struct floor_direct_regs *r, unsigned long body, unsigned long parent);
void rfprobe_floor_direct_exit_clock(struct floor_direct_regs *r, unsigned long body,
				     unsigned long parent);

#define FLOOR_MAX 256
#define FLOOR_STEPS 16

enum floor_op { OP_ARG, OP_IMM, OP_RET, OP_DEREF, OP_MEM, OP_VAL, OP_STR, OP_CLOCK };

struct floor_step {
	u8 op, size;
	u16 dst, dyn;
	long off;
};

static struct floor {
	enum floor_kind kind;
	struct trace_event_file *file;
	unsigned short type;
	unsigned int size;
	struct ftrace_ops ops;
	struct fprobe fp;
	struct tracepoint *tp;
	struct perf_event * __percpu *wp;
	unsigned int nsteps;
	/* A step reads the clock: the entry reads it too. */
	bool clock;
	struct floor_step steps[FLOOR_STEPS];
} floor;
static DEFINE_MUTEX(floor_lock);

/*
 * Tasks inside rfprobe_floor_tramp_exit's call of a body (per CPU: a task
 * is counted in on one CPU and out on another; the sum is what counts).
 * While any is, the module is pinned: they come back through its text.
 * floor_exit_live: the dexit floor writes records (cleared at "off"; a
 * body that returns later only counts itself out). floor_draining: the
 * tasks of an earlier dexit floor are still out (a new one is refused).
 */
static DEFINE_PER_CPU(long, floor_inflight);
static bool floor_exit_live;
static atomic_t floor_draining = ATOMIC_INIT(0);

/*
 * Functions that do not return: their body would never come back through
 * rfprobe_floor_tramp_exit (BPF refuses fexit on them for the same reason).
 */
static const char *const floor_noreturn[] = {
	"do_exit", "do_group_exit", "make_task_dead", "kthread_exit",
	"kthread_complete_and_exit", "__x64_sys_exit", "__x64_sys_exit_group",
	"__module_put_and_kthread_exit",
};

/* The watchpoint shape's data: written once per write to .../poke. */
u64 rfprobe_floor_watched __aligned(8);
static struct dentry *floor_dir;

static __always_inline void floor_store(u8 *rec, unsigned int dst, unsigned int size,
					unsigned long v)
{
	switch (size) {
	case 1: WRITE_ONCE(*(u8 *)(rec + dst), v); break;
	case 2: WRITE_ONCE(*(u16 *)(rec + dst), v); break;
	case 4: WRITE_ONCE(*(u32 *)(rec + dst), v); break;
	default: WRITE_ONCE(*(u64 *)(rec + dst), v); break;
	}
}

/* The reads floor's steps (see the top of this file). */
static __always_inline void floor_reads(u8 *rec, struct pt_regs *regs, const unsigned long *args,
					unsigned long ret, const u64 *entry_clock)
{
	unsigned long v = 0;
	unsigned int i, n;

	for (i = 0; i < floor.nsteps; i++) {
		const struct floor_step *st = &floor.steps[i];

		switch (st->op) {
		case OP_ARG:
			v = args ? args[st->size] : regs_get_kernel_argument(regs, st->size);
			break;
		case OP_IMM:
			v = st->off;
			break;
		case OP_RET:
			v = regs ? regs_return_value(regs) : ret;
			break;
		case OP_DEREF:
			v = READ_ONCE(*(unsigned long *)(v + st->off));
			break;
		case OP_MEM:
			switch (st->size) {
			case 1: floor_store(rec, st->dst, 1, READ_ONCE(*(u8 *)(v + st->off))); break;
			case 2: floor_store(rec, st->dst, 2, READ_ONCE(*(u16 *)(v + st->off))); break;
			case 4: floor_store(rec, st->dst, 4, READ_ONCE(*(u32 *)(v + st->off))); break;
			default: floor_store(rec, st->dst, 8, READ_ONCE(*(u64 *)(v + st->off))); break;
			}
			break;
		case OP_VAL:
			floor_store(rec, st->dst, st->size, v);
			break;
		case OP_CLOCK:
			/* Constant NULL where the caller has no clock: no call. */
			if (entry_clock)
				v = trace_clock_local() - *entry_clock;
			break;
		case OP_STR:
			for (n = 0; st->dyn + n < floor.size; n++) {
				u8 c = READ_ONCE(*(u8 *)(v + st->off + n));

				WRITE_ONCE(rec[st->dyn + n], c);
				if (!c)
					break;
			}
			WRITE_ONCE(*(u32 *)(rec + st->dst), ((n + 1) << 16) | st->dyn);
			break;
		}
	}
}

/*
 * One record: the header, @a and @b (the probe addresses of an exit
 * record; @a only for entry records), zeros for the rest (records are
 * multiples of 4 bytes), then the reads floor's loads if it has steps:
 * arguments from @regs, or from @args if it is set (tracepoints, the
 * trampolines), the return value from @regs, or @ret, the clock at the
 * call's entry at @entry_clock (read by a "c" step only).
 */
static __always_inline void floor_write(unsigned long a, unsigned long b, unsigned int first,
					struct pt_regs *regs, const unsigned long *args,
					unsigned long ret, const u64 *entry_clock)
{
	/* Read per hit, like the core: a snapshot swaps the buffers. */
	struct trace_buffer *buffer = READ_ONCE(floor.file->tr->array_buffer.buffer);
	unsigned int size = floor.size, i;
	struct ring_buffer_event *event;
	struct trace_entry *ent;
	unsigned int ctx = rfprobe_trace_ctx_dec(0);
	u8 *rec;

	event = ring_buffer_lock_reserve(buffer, size);
	if (!event)
		return;
	ent = rfprobe_rb_event_data(event);
	rfprobe_entry_setup(ent, floor.type, ctx);
	rec = (u8 *)ent;
	if (first >= 16)
		*(unsigned long *)(rec + 8) = a;
	if (first >= 24)
		*(unsigned long *)(rec + 16) = b;
	for (i = first; i + 8 <= size; i += 8)
		WRITE_ONCE(*(u64 *)(rec + i), 0); /* not a memset() call */
	if (i < size)
		WRITE_ONCE(*(u32 *)(rec + i), 0);
	if (floor.nsteps)
		floor_reads(rec, regs, args, ret, entry_clock);
	ring_buffer_unlock_commit(buffer);
}

static void notrace floor_ops_func(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit < 0)
		return;
	floor_write(ip, 0, 16, &arch_ftrace_regs(fregs)->regs, NULL, 0, NULL);
	ftrace_test_recursion_unlock(bit);
}

#ifdef RFPROBE_FPROBE_FGRAPH
#define FLOOR_FPROBE_REGS struct ftrace_regs
#else
#define FLOOR_FPROBE_REGS struct pt_regs
#endif

/* The exit floor's entry with a "c" step: the clock into the entry data. */
static int notrace floor_exit_entry(struct fprobe *fp, unsigned long entry_ip,
				    unsigned long ret_ip, FLOOR_FPROBE_REGS *regs, void *data)
{
	*(u64 *)data = trace_clock_local();
	return 0;
}

#ifdef RFPROBE_FPROBE_FGRAPH
/* fprobe on fgraph: the exit sees the return registers only, in ftrace_regs. */
static __always_inline void floor_exit_common(unsigned long entry_ip, unsigned long ret_ip,
					      struct ftrace_regs *fregs, const u64 *entry_clock)
{
	struct pt_regs regs;

	floor_write(entry_ip, ret_ip, 24, ftrace_partial_regs(fregs, &regs), NULL, 0,
		    entry_clock);
}
#else
static __always_inline void floor_exit_common(unsigned long entry_ip, unsigned long ret_ip,
					      struct pt_regs *regs, const u64 *entry_clock)
{
	floor_write(entry_ip, ret_ip, 24, regs, NULL, 0, entry_clock);
}
#endif

/* Without a "c" step the exit reads no entry data (a constant NULL). */
static void notrace floor_exit(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
			       FLOOR_FPROBE_REGS *regs, void *data)
{
	floor_exit_common(entry_ip, ret_ip, regs, NULL);
}

static void notrace floor_exit_clock(struct fprobe *fp, unsigned long entry_ip,
				     unsigned long ret_ip, FLOOR_FPROBE_REGS *regs, void *data)
{
	floor_exit_common(entry_ip, ret_ip, regs, data);
}

/* The trampolines' C side (tramp.S): @body is where fentry's call returns. */
void notrace rfprobe_floor_direct_entry(struct floor_direct_regs *r, unsigned long body,
					unsigned long parent)
{
	unsigned long ip = body - MCOUNT_INSN_SIZE;
	int bit = ftrace_test_recursion_trylock(ip, parent);

	if (bit < 0)
		return;
	floor_write(ip, 0, 16, NULL, r->args, 0, NULL);
	ftrace_test_recursion_unlock(bit);
}

void notrace rfprobe_floor_exit_enter(void)
{
	this_cpu_inc(floor_inflight);
}

/* The same, and the clock at the call's entry into the frame. */
void notrace rfprobe_floor_exit_enter_clock(struct floor_direct_regs *r)
{
	this_cpu_inc(floor_inflight);
	r->clock = trace_clock_local();
}

/* The dexit floor's trampoline: with the entry clock for a "c" step only. */
static unsigned long floor_tramp_exit(void)
{
	return floor.clock ? (unsigned long)rfprobe_floor_tramp_exit_clock :
			     (unsigned long)rfprobe_floor_tramp_exit;
}

static __always_inline void floor_direct_exit(struct floor_direct_regs *r, unsigned long body,
					      unsigned long parent, const u64 *entry_clock)
{
	unsigned long ip = body - MCOUNT_INSN_SIZE;
	int bit = ftrace_test_recursion_trylock(ip, parent);

	if (bit >= 0) {
		if (READ_ONCE(floor_exit_live))
			floor_write(ip, parent, 24, NULL, r->args, r->ax, entry_clock);
		ftrace_test_recursion_unlock(bit);
	}
	this_cpu_dec(floor_inflight);
}

void notrace rfprobe_floor_direct_exit(struct floor_direct_regs *r, unsigned long body,
				       unsigned long parent)
{
	floor_direct_exit(r, body, parent, NULL);
}

void notrace rfprobe_floor_direct_exit_clock(struct floor_direct_regs *r, unsigned long body,
					     unsigned long parent)
{
	floor_direct_exit(r, body, parent, &r->clock);
}

static long floor_inflight_sum(void)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(floor_inflight, cpu);
	return n;
}

/* Once no task is in a body: RCU Tasks for the instructions after their
 * count went (they run preemptible), then the module's pin goes. */
static int floor_drain(void *unused)
{
	while (floor_inflight_sum())
		msleep(10);
	synchronize_rcu_tasks();
	atomic_set(&floor_draining, 0);
	module_put_and_kthread_exit(0);
}

static void notrace floor_wp_handler(struct perf_event *bp, struct perf_sample_data *data,
				     struct pt_regs *regs)
{
	floor_write(instruction_pointer(regs), 0, 16, regs, NULL, 0, NULL);
}

/* Registered on tracepoints of any prototype: only the first two arguments
 * are read, and only by the steps that name them. */
static void notrace floor_tp_probe(void *data, unsigned long a0, unsigned long a1)
{
	unsigned long args[2] = { a0, a1 };

	floor_write(0, 0, 8, NULL, args, 0, NULL);
}

/* Parses READS into floor.steps (see the top of this file). */
static int floor_parse_reads(char *reads, unsigned int max_arg)
{
	char *tok;

	floor.nsteps = 0;
	floor.clock = false;
	while ((tok = strsep(&reads, ",")) != NULL) {
		struct floor_step *st;
		unsigned int size = 0, dst = 0, dyn = 0;
		long off = 0;
		char offs[24];

		if (!*tok)
			continue;
		if (floor.nsteps == FLOOR_STEPS)
			return -E2BIG;
		st = &floor.steps[floor.nsteps++];
		memset(st, 0, sizeof(*st));
		switch (tok[0]) {
		case 'a':
			st->op = OP_ARG;
			if (kstrtouint(tok + 1, 0, &size) || size > max_arg)
				return -EINVAL;
			break;
		case 'i':
			st->op = OP_IMM;
			if (kstrtoul(tok + 1, 0, (unsigned long *)&off))
				return -EINVAL;
			break;
		case 'r':
			st->op = OP_RET;
			break;
		case 'd':
			st->op = OP_DEREF;
			if (kstrtol(tok + 1, 0, &off))
				return -EINVAL;
			break;
		case 'm':
			st->op = OP_MEM;
			if (sscanf(tok + 1, "%u:%23[^:]:%u", &size, offs, &dst) != 3 || kstrtol(offs, 0, &off))
				return -EINVAL;
			break;
		case 'v':
			st->op = OP_VAL;
			if (sscanf(tok + 1, "%u:%u", &size, &dst) != 2)
				return -EINVAL;
			break;
		case 'c':
			st->op = OP_CLOCK;
			floor.clock = true;
			break;
		case 's':
			st->op = OP_STR;
			if (sscanf(tok + 1, "%23[^:]:%u:%u", offs, &dst, &dyn) != 3 || kstrtol(offs, 0, &off))
				return -EINVAL;
			break;
		default:
			return -EINVAL;
		}
		if ((st->op == OP_MEM || st->op == OP_VAL) && size != 1 && size != 2 && size != 4 && size != 8)
			return -EINVAL;
		if ((st->op == OP_MEM || st->op == OP_VAL) && dst + size > floor.size)
			return -EINVAL;
		if (st->op == OP_STR && (dst + 4 > floor.size || dyn >= floor.size))
			return -EINVAL;
		st->size = size;
		st->off = off;
		st->dst = dst;
		st->dyn = dyn;
	}
	return 0;
}

struct tp_find {
	const char *name;
	struct tracepoint *tp;
};

static void floor_tp_match(struct tracepoint *tp, void *priv)
{
	struct tp_find *f = priv;

	if (!strcmp(tp->name, f->name))
		f->tp = tp;
}

static void floor_off(void)
{
	switch (floor.kind) {
	case FLOOR_ENTRY:
		unregister_ftrace_function(&floor.ops);
		ftrace_free_filter(&floor.ops);
		break;
	case FLOOR_EXIT:
		unregister_fprobe(&floor.fp);
		break;
	case FLOOR_DENTRY:
		/* Waits for tasks on the trampoline (RCU Tasks: the ops is
		 * a module's, FTRACE_OPS_FL_DYNAMIC). */
		unregister_ftrace_direct(&floor.ops, (unsigned long)rfprobe_floor_tramp_entry, true);
		break;
	case FLOOR_DEXIT:
		WRITE_ONCE(floor_exit_live, false);
		if (unregister_ftrace_direct(&floor.ops, floor_tramp_exit(), true)) {
			/* Call sites may still lead here: stay pinned, keep the file. */
			pr_warn("rfprobe_floor: dexit not unregistered; the module stays loaded\n");
			floor.kind = FLOOR_OFF;
			return;
		}
		/* No task enters any more (unregistering waited for those on
		 * their way in); the records of those still in a body are off.
		 * They come back through the trampoline later (asleep in a
		 * read, perhaps): a thread drops the pin once they have, rather
		 * than "off" waiting for them (it could be one of them). */
		atomic_set(&floor_draining, 1);
		if (IS_ERR(kthread_run(floor_drain, NULL, "rfprobe_floor_drain"))) {
			pr_warn("rfprobe_floor: no drain thread; the module stays loaded\n");
			break;
		}
		break;
	case FLOOR_TP:
		tracepoint_probe_unregister(floor.tp, floor_tp_probe, NULL);
		tracepoint_synchronize_unregister();
		break;
	case FLOOR_WP:
		unregister_wide_hw_breakpoint(floor.wp);
		synchronize_rcu();
		break;
	case FLOOR_OFF:
		return;
	}
	trace_put_event_file(floor.file);
	floor.kind = FLOOR_OFF;
}

static int floor_on(const char *kind, const char *func, const char *grp, const char *ev,
		    unsigned int size, char *reads)
{
	struct trace_event_file *file;
	int ret;

	/* At least the probe addresses floor_write() stores. */
	if (size < (strcmp(kind, "exit") && strcmp(kind, "dexit") ? 16 : 24) || size > FLOOR_MAX ||
	    size % 4)
		return -EINVAL;
	file = trace_get_event_file(NULL, grp, ev);
	if (IS_ERR(file))
		return PTR_ERR(file);
	memset(&floor.ops, 0, sizeof(floor.ops));
	memset(&floor.fp, 0, sizeof(floor.fp));
	floor.file = file;
	floor.type = file->event_call->event.type;
	floor.size = size;
	/* A tracepoint probe has its first two arguments (floor_tp_probe). */
	ret = floor_parse_reads(reads, strcmp(kind, "tp") ? 5 : 1);
	/* Only an exit has a clock at the entry. */
	if (!ret && floor.clock && strcmp(kind, "exit") && strcmp(kind, "dexit"))
		ret = -EINVAL;
	if (ret) {
		trace_put_event_file(file);
		return ret;
	}
	if (!strcmp(kind, "entry")) {
		floor.kind = FLOOR_ENTRY;
		floor.ops.func = floor_ops_func;
		ret = ftrace_set_filter(&floor.ops, (unsigned char *)func, strlen(func), 1);
		if (!ret)
			ret = register_ftrace_function(&floor.ops);
		if (ret)
			ftrace_free_filter(&floor.ops);
	} else if (!strcmp(kind, "dentry") || !strcmp(kind, "dexit")) {
		bool exit = !strcmp(kind, "dexit");

		floor.kind = exit ? FLOOR_DEXIT : FLOOR_DENTRY;
		ret = 0;
		if (exit && (atomic_read(&floor_draining) ||
			     match_string(floor_noreturn, ARRAY_SIZE(floor_noreturn), func) >= 0))
			ret = -EBUSY;
		if (!ret)
			ret = ftrace_set_filter(&floor.ops, (unsigned char *)func, strlen(func), 1);
		if (!ret && exit) {
			/* Dropped by floor_drain() after "off". */
			__module_get(THIS_MODULE);
			WRITE_ONCE(floor_exit_live, true);
		}
		if (!ret)
			ret = register_ftrace_direct(&floor.ops, exit ?
						     floor_tramp_exit() :
						     (unsigned long)rfprobe_floor_tramp_entry);
		if (ret && exit && floor_exit_live) {
			WRITE_ONCE(floor_exit_live, false);
			module_put(THIS_MODULE);
		}
		if (ret)
			ftrace_free_filter(&floor.ops);
	} else if (!strcmp(kind, "exit")) {
		floor.kind = FLOOR_EXIT;
		floor.fp.exit_handler = floor_exit;
		if (floor.clock) {
			floor.fp.exit_handler = floor_exit_clock;
			floor.fp.entry_handler = floor_exit_entry;
			floor.fp.entry_data_size = sizeof(u64);
		}
		ret = register_fprobe(&floor.fp, func, NULL);
	} else if (!strcmp(kind, "wp")) {
		struct perf_event_attr attr;

		if (strcmp(func, "rfprobe_floor_watched")) {
			ret = -EINVAL;
		} else {
			floor.kind = FLOOR_WP;
			hw_breakpoint_init(&attr);
			attr.bp_addr = (unsigned long)&rfprobe_floor_watched;
			attr.bp_len = HW_BREAKPOINT_LEN_8;
			attr.bp_type = HW_BREAKPOINT_W;
			attr.exclude_user = 1;
			floor.wp = register_wide_hw_breakpoint(&attr, floor_wp_handler, NULL);
			ret = IS_ERR_PCPU(floor.wp) ? PTR_ERR_PCPU(floor.wp) : 0;
		}
	} else if (!strcmp(kind, "tp") && IS_ENABLED(CONFIG_CFI_CLANG)) {
		/* The tracepoint's indirect call would not match this probe's type hash. */
		ret = -EOPNOTSUPP;
	} else if (!strcmp(kind, "tp")) {
		struct tp_find f = { .name = func };

		floor.kind = FLOOR_TP;
		for_each_kernel_tracepoint(floor_tp_match, &f);
		floor.tp = f.tp;
		ret = f.tp ? tracepoint_probe_register(f.tp, floor_tp_probe, NULL) : -ENOENT;
	} else {
		ret = -EINVAL;
	}
	if (ret) {
		floor.kind = FLOOR_OFF;
		trace_put_event_file(file);
	}
	return ret;
}

/* Under floor_lock: the control line and its READS part. */
static char floor_line[512], floor_reads_text[320];

static ssize_t floor_control(struct file *f, const char __user *ubuf, size_t cnt, loff_t *pos)
{
	char kind[8], func[64], grp[32], ev[32];
	unsigned int size;
	int ret;

	if (cnt >= sizeof(floor_line))
		return -E2BIG;
	mutex_lock(&floor_lock);
	if (copy_from_user(floor_line, ubuf, cnt)) {
		mutex_unlock(&floor_lock);
		return -EFAULT;
	}
	floor_line[cnt] = 0;
	floor_reads_text[0] = 0;
	floor_off();
	if (!strncmp(floor_line, "off", 3))
		ret = 0;
	else if (sscanf(floor_line, "%7s %63s %31s %31s %u %319s", kind, func, grp, ev, &size,
			floor_reads_text) >= 5)
		ret = floor_on(kind, func, grp, ev, size, floor_reads_text);
	else
		ret = -EINVAL;
	mutex_unlock(&floor_lock);
	return ret ? ret : cnt;
}

static const struct file_operations floor_fops = {
	.write = floor_control,
};

static ssize_t floor_poke(struct file *f, const char __user *ubuf, size_t cnt, loff_t *pos)
{
	WRITE_ONCE(rfprobe_floor_watched, rfprobe_floor_watched + 1);
	return cnt;
}

static const struct file_operations floor_poke_fops = {
	.write = floor_poke,
};

static int __init floor_init(void)
{
	floor_dir = debugfs_create_dir("rfprobe_floor", NULL);
	debugfs_create_file("control", 0200, floor_dir, NULL, &floor_fops);
	debugfs_create_file("poke", 0200, floor_dir, NULL, &floor_poke_fops);
	return 0;
}

static void __exit floor_exit_mod(void)
{
	debugfs_remove(floor_dir);
	mutex_lock(&floor_lock);
	floor_off();
	mutex_unlock(&floor_lock);
}

module_init(floor_init);
module_exit(floor_exit_mod);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rfprobe benchmark floor: cheapest ring-buffer record per hit");
