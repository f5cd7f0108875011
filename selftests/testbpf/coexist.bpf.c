// SPDX-License-Identifier: GPL-2.0
/*
 * BPF fentry and fexit programs on vfs_read for bpf_coexist.tc: each
 * counts the calls whose count argument is the test's marker (reads of
 * RFPROBE_MARK bytes, which nothing else in the guest makes), so that the
 * counts can be compared exactly with rfprobe's and C's records of the same
 * calls. bpfcount.c loads them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* The marker: dd bs=RFPROBE_MARK in the test. */
#define RFPROBE_MARK 7

/* [0]: entries, [1]: exits (with a return value of RFPROBE_MARK). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, u64);
} hits SEC(".maps");

static void hit(u32 k)
{
	u64 *v = bpf_map_lookup_elem(&hits, &k);

	if (v)
		__sync_fetch_and_add(v, 1);
}

SEC("fentry/vfs_read")
int BPF_PROG(on_entry, struct file *file, char *buf, size_t count, loff_t *pos)
{
	if (count == RFPROBE_MARK)
		hit(0);
	return 0;
}

SEC("fexit/vfs_read")
int BPF_PROG(on_exit, struct file *file, char *buf, size_t count, loff_t *pos, ssize_t ret)
{
	if (count == RFPROBE_MARK && ret == RFPROBE_MARK)
		hit(1);
	return 0;
}
