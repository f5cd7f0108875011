// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF peers of the benchmark's shapes (selftests/bench/guest.sh): for
 * each shape BPF can express, an fentry/fexit (or tp_btf) program that
 * writes one record per hit into a BPF ring buffer with what the ftrace
 * record of the same shape holds: a timestamp (the ftrace ring buffer's
 * event header has one), the task's PID and the probed function's address
 * (the common fields and __probe_ip), then the shape's values, read the
 * way the C and rfprobe events read them. bpfpeer.c loads one program by
 * its name (the shape) and counts the records.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 25);
} rb SEC(".maps");

/* Entry timestamps of the duration shape, per task. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, u64);
} start SEC(".maps");

struct head {
	u64 ts;
	u64 ip;
	u32 pid;
	u32 pad;
};

/* Reserves a record of type @T with its head filled; NULL if the ring is full. */
#define RESERVE(T, ctx)                                                   \
	({                                                                \
		T *r_ = bpf_ringbuf_reserve(&rb, sizeof(T), 0);           \
		if (r_) {                                                 \
			r_->h.ts = bpf_ktime_get_ns();                    \
			r_->h.ip = bpf_get_func_ip(ctx);                  \
			r_->h.pid = (u32)bpf_get_current_pid_tgid();      \
		}                                                         \
		r_;                                                       \
	})

struct rec_noargs { struct head h; };
SEC("fentry/vfs_read")
int BPF_PROG(noargs, struct file *file, char *buf, size_t count, loff_t *pos)
{
	struct rec_noargs *r = RESERVE(struct rec_noargs, ctx);

	if (r)
		bpf_ringbuf_submit(r, 0);
	return 0;
}

struct rec_count { struct head h; u64 count; };
SEC("fentry/vfs_read")
int BPF_PROG(count, struct file *file, char *buf, size_t count, loff_t *pos)
{
	struct rec_count *r = RESERVE(struct rec_count, ctx);

	if (r) {
		r->count = count;
		bpf_ringbuf_submit(r, 0);
	}
	return 0;
}

/* count_filter: the event's filter "count == 1" (every hit of the loop passes). */
SEC("fentry/vfs_read")
int BPF_PROG(count_filter, struct file *file, char *buf, size_t count, loff_t *pos)
{
	struct rec_count *r;

	if (count != 1)
		return 0;
	r = RESERVE(struct rec_count, ctx);
	if (r) {
		r->count = count;
		bpf_ringbuf_submit(r, 0);
	}
	return 0;
}

struct rec_fpos_count { struct head h; s64 f_pos; u64 count; };
SEC("fentry/vfs_read")
int BPF_PROG(fpos_count, struct file *file, char *buf, size_t count, loff_t *pos)
{
	struct rec_fpos_count *r = RESERVE(struct rec_fpos_count, ctx);

	if (r) {
		r->f_pos = file->f_pos;
		r->count = count;
		bpf_ringbuf_submit(r, 0);
	}
	return 0;
}

struct rec_args4 { struct head h; u32 f_flags; u32 pad; s64 f_pos; u64 buf; u64 count; };
SEC("fentry/vfs_read")
int BPF_PROG(args4, struct file *file, char *buf, size_t count, loff_t *pos)
{
	struct rec_args4 *r = RESERVE(struct rec_args4, ctx);

	if (r) {
		r->f_flags = file->f_flags;
		r->f_pos = file->f_pos;
		r->buf = (u64)buf;
		r->count = count;
		bpf_ringbuf_submit(r, 0);
	}
	return 0;
}

/* string: the dentry's name, up to 64 bytes (ftrace's records hold it whole). */
struct rec_string { struct head h; char name[64]; };
SEC("fentry/vfs_read")
int BPF_PROG(string, struct file *file, char *buf, size_t count, loff_t *pos)
{
	struct rec_string *r = RESERVE(struct rec_string, ctx);

	if (r) {
		bpf_probe_read_kernel_str(r->name, sizeof(r->name), file->f_path.dentry->d_name.name);
		bpf_ringbuf_submit(r, 0);
	}
	return 0;
}

struct rec_retval { struct head h; s64 ret; };
SEC("fexit/vfs_read")
int BPF_PROG(retval, struct file *file, char *buf, size_t count, loff_t *pos, ssize_t ret)
{
	struct rec_retval *r = RESERVE(struct rec_retval, ctx);

	if (r) {
		r->ret = ret;
		bpf_ringbuf_submit(r, 0);
	}
	return 0;
}

struct rec_ret_entry { struct head h; u64 count; s64 ret; };
SEC("fexit/vfs_read")
int BPF_PROG(ret_entry, struct file *file, char *buf, size_t count, loff_t *pos, ssize_t ret)
{
	struct rec_ret_entry *r = RESERVE(struct rec_ret_entry, ctx);

	if (r) {
		r->count = count;
		r->ret = ret;
		bpf_ringbuf_submit(r, 0);
	}
	return 0;
}

/* duration: the entry time in a per-task map, the record at exit. */
SEC("fentry/vfs_read")
int BPF_PROG(duration_entry, struct file *file)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();
	u64 t = bpf_ktime_get_ns();

	bpf_map_update_elem(&start, &tid, &t, BPF_ANY);
	return 0;
}

struct rec_duration { struct head h; u64 duration; };
SEC("fexit/vfs_read")
int BPF_PROG(duration, struct file *file, char *buf, size_t count, loff_t *pos, ssize_t ret)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();
	struct rec_duration *r;
	u64 *t = bpf_map_lookup_elem(&start, &tid);

	if (!t)
		return 0;
	r = RESERVE(struct rec_duration, ctx);
	if (r) {
		r->duration = r->h.ts - *t;
		bpf_ringbuf_submit(r, 0);
	}
	bpf_map_delete_elem(&start, &tid);
	return 0;
}

struct rec_bitfield { struct head h; u32 in_execve; u32 pad; };
SEC("fentry/__set_task_comm")
int BPF_PROG(bitfield, struct task_struct *tsk)
{
	struct rec_bitfield *r = RESERVE(struct rec_bitfield, ctx);

	if (r) {
		r->in_execve = BPF_CORE_READ_BITFIELD(tsk, in_execve);
		bpf_ringbuf_submit(r, 0);
	}
	return 0;
}

/* tracepoint: task_rename's task->pid (BTF-typed tracepoint arguments). */
struct rec_tp { struct head h; s32 pid; u32 pad; };
SEC("tp_btf/task_rename")
int BPF_PROG(tracepoint, struct task_struct *task, const char *comm)
{
	struct rec_tp *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);

	if (r) {
		r->h.ts = bpf_ktime_get_ns();
		r->h.ip = 0;
		r->h.pid = (u32)bpf_get_current_pid_tgid();
		r->pid = task->pid;
		bpf_ringbuf_submit(r, 0);
	}
	return 0;
}
