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
 * tracepoint probe (t).
 *
 *   echo 'entry|exit|tp FUNC-OR-TRACEPOINT GROUP EVENT SIZE' > /sys/kernel/debug/rfprobe_floor/control
 *   echo off > /sys/kernel/debug/rfprobe_floor/control
 */
#include <linux/debugfs.h>
#include <linux/fprobe.h>
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

enum floor_kind { FLOOR_OFF, FLOOR_ENTRY, FLOOR_EXIT, FLOOR_TP };

#define FLOOR_MAX 256

static struct floor {
	enum floor_kind kind;
	struct trace_event_file *file;
	unsigned short type;
	unsigned int size;
	struct ftrace_ops ops;
	struct fprobe fp;
	struct tracepoint *tp;
} floor;
static DEFINE_MUTEX(floor_lock);
static struct dentry *floor_dir;

/*
 * One record: the header, @a and @b (the probe addresses of an exit
 * record; @a only for entry records), zeros for the rest (records are
 * multiples of 4 bytes).
 */
static __always_inline void floor_write(unsigned long a, unsigned long b, unsigned int first)
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
	ring_buffer_unlock_commit(buffer);
}

static void notrace floor_ops_func(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit < 0)
		return;
	floor_write(ip, 0, 16);
	ftrace_test_recursion_unlock(bit);
}

static void notrace floor_exit(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
			       struct pt_regs *regs, void *data)
{
	floor_write(entry_ip, ret_ip, 24);
}

static void notrace floor_tp_probe(void *data)
{
	floor_write(0, 0, 8);
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
	case FLOOR_TP:
		tracepoint_probe_unregister(floor.tp, floor_tp_probe, NULL);
		tracepoint_synchronize_unregister();
		break;
	case FLOOR_OFF:
		return;
	}
	trace_put_event_file(floor.file);
	floor.kind = FLOOR_OFF;
}

static int floor_on(const char *kind, const char *func, const char *grp, const char *ev,
		    unsigned int size)
{
	struct trace_event_file *file;
	int ret;

	/* At least the probe addresses floor_write() stores. */
	if (size < (strcmp(kind, "exit") ? 16 : 24) || size > FLOOR_MAX || size % 4)
		return -EINVAL;
	file = trace_get_event_file(NULL, grp, ev);
	if (IS_ERR(file))
		return PTR_ERR(file);
	memset(&floor.ops, 0, sizeof(floor.ops));
	memset(&floor.fp, 0, sizeof(floor.fp));
	floor.file = file;
	floor.type = file->event_call->event.type;
	floor.size = size;
	if (!strcmp(kind, "entry")) {
		floor.kind = FLOOR_ENTRY;
		floor.ops.func = floor_ops_func;
		ret = ftrace_set_filter(&floor.ops, (unsigned char *)func, strlen(func), 1);
		if (!ret)
			ret = register_ftrace_function(&floor.ops);
		if (ret)
			ftrace_free_filter(&floor.ops);
	} else if (!strcmp(kind, "exit")) {
		floor.kind = FLOOR_EXIT;
		floor.fp.exit_handler = floor_exit;
		ret = register_fprobe(&floor.fp, func, NULL);
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

static ssize_t floor_control(struct file *f, const char __user *ubuf, size_t cnt, loff_t *pos)
{
	char buf[160], kind[8], func[64], grp[32], ev[32];
	unsigned int size;
	int ret;

	if (cnt >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	buf[cnt] = 0;
	mutex_lock(&floor_lock);
	floor_off();
	if (!strncmp(buf, "off", 3))
		ret = 0;
	else if (sscanf(buf, "%7s %63s %31s %31s %u", kind, func, grp, ev, &size) == 5)
		ret = floor_on(kind, func, grp, ev, size);
	else
		ret = -EINVAL;
	mutex_unlock(&floor_lock);
	return ret ? ret : cnt;
}

static const struct file_operations floor_fops = {
	.write = floor_control,
};

static int __init floor_init(void)
{
	floor_dir = debugfs_create_dir("rfprobe_floor", NULL);
	debugfs_create_file("control", 0200, floor_dir, NULL, &floor_fops);
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
