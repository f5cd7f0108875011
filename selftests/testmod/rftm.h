/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RFTM_H
#define RFTM_H
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/types.h>

/* A debugfs read of a count: "N\n". */
static inline ssize_t rftm_read_count(char __user *ubuf, size_t len, loff_t *ppos, long count)
{
	char buf[24];
	int n = scnprintf(buf, sizeof(buf), "%ld\n", count);

	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

/* An object the probed functions get pointers to. */
struct rftm_obj {
	u64 id;
	const char *name;
	int vals[4];
};

/*
 * Kept as real, separately traceable functions with their own names: no
 * inlining, no interprocedural clones (.isra/.constprop) that would change
 * the prototype BTF describes.
 */
#ifdef __clang__
#define RFTM_PROBED noinline __used
#else
#define RFTM_PROBED noinline __used __attribute__((__noipa__))
#endif

int rftm_call_dup_b(struct rftm_obj *o, int tag);
long rftm_args8(long a1, int a2, u64 a3, struct rftm_obj *a4, short a5, u8 a6, long a7,
		struct rftm_obj *a8);
int rftm_hardirq(struct rftm_obj *o, int seq);
int rftm_softirq(struct rftm_obj *o, int seq);
int rftm_process(struct rftm_obj *o, int seq);
int rftm_resched(struct rftm_obj *o, int seq);
struct dentry;
u64 rftm_sleep(unsigned int ms);
/* An enum with a duplicate value and a negative one (:enum tests). */
enum rftm_color {
	RFTM_RED = 0,
	RFTM_GREEN = 1,
	RFTM_LIME = 1,
	RFTM_BLUE = 2,
	RFTM_NONE = -3,
};
int rftm_paint(enum rftm_color c, int n);
void rftm_sleep_init(struct dentry *dir);
void rftm_watch_init(struct dentry *dir);
extern u64 rftm_watched;
extern struct rftm_obj rftm_watch_obj;
void rftm_watch_write(unsigned int n);
u64 rftm_watch_read(unsigned int n);
void rftm_watch_obj_write(unsigned int n);
struct rftm_obj *rftm_watch_new(void);
void rftm_watch_qstr_write(unsigned int n);
void rftm_watch_use(struct rftm_obj *o, unsigned int n);
void rftm_watch_del(struct rftm_obj *o);
void rftm_watch_exit(void);
void rftm_fault_init(struct dentry *dir);
void ipm_init(struct dentry *dir);
void ipm_exit(void);
#endif
