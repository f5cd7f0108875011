// SPDX-License-Identifier: GPL-2.0
/*
 * rfprobe benchmark helper, run in the guest (see run.sh). Built static on
 * the host. Times are CLOCK_MONOTONIC, which counts guest instructions when
 * QEMU runs with -icount shift=0 (1 ns per instruction).
 *
 *   bench loop read N     N x read(/dev/zero, buf, 1)    (hits vfs_read)
 *   bench loop prctl N    N x prctl(PR_SET_NAME)          (hits __set_task_comm
 *                                                          and task_rename)
 *   bench loop poke N     N x write(.../rfprobe_floor/poke, 1 byte)
 *                         (writes rfprobe_floor_watched: watchpoints)
 *       prints "ns_per_op=X.XX"
 *   bench write FILE LIST one write() per line of LIST to FILE (opened once,
 *                         O_WRONLY|O_APPEND); prints "ns=T ok=N fail=N"
 *   bench insmod KO       finit_module(KO); prints "ns=T"
 *   bench rmmod NAME      delete_module(NAME); prints "ns=T"
 *
 * The measured parts run between calls of prof_marker_start() and
 * prof_marker_stop(), which the QEMU plugin insnprof.c (profile.sh) uses to
 * count instructions per code block of exactly those parts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Warm-up iterations before each timed loop (first-hit effects). */
#define WARMUP 1000

/* Markers for insnprof.c: distinct, never inlined, never merged. */
__attribute__((noinline, noipa)) void prof_marker_start(void)
{
	asm volatile("nop" ::: "memory");
}

__attribute__((noinline, noipa)) void prof_marker_stop(void)
{
	asm volatile("nop; nop" ::: "memory");
}

/* One operation of a loop; false on failure. */
static int op_read(int fd)
{
	char buf[1];

	return read(fd, buf, 1) == 1;
}

/* Writes rfprobe_floor_watched (.../rfprobe_floor/poke). */
static int op_poke(int fd)
{
	return write(fd, "1", 1) == 1;
}

static int op_prctl(int fd)
{
	(void)fd;
	return prctl(PR_SET_NAME, "bench", 0, 0, 0) == 0;
}

/*
 * N x op(fd) after the warm-up, timed between the markers; prints
 * "ns_per_op=X.XX". Inlined with op a constant, so the timed loop is a
 * direct call, as if written out.
 */
static inline __attribute__((always_inline)) int timed(long n, int fd, int (*op)(int),
							  const char *what)
{
	long i;
	long long t0, t1;

	for (i = 0; i < WARMUP; i++)
		if (!op(fd))
			die(what);
	prof_marker_start();
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (!op(fd))
			die(what);
	t1 = now_ns();
	prof_marker_stop();
	printf("ns_per_op=%.2f\n", (double)(t1 - t0) / n);
	return 0;
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0)
		die(path);
	return fd;
}

static int write_lines(const char *file, const char *list)
{
	FILE *in = fopen(list, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long ok = 0, fail = 0;
	long long total = 0, t0;
	int fd;

	if (!in)
		die(list);
	fd = open(file, O_WRONLY | O_APPEND);
	if (fd < 0)
		die(file);
	prof_marker_start();
	while ((len = getline(&line, &cap, in)) > 0) {
		t0 = now_ns();
		if (write(fd, line, len) == len)
			ok++;
		else
			fail++;
		total += now_ns() - t0;
	}
	prof_marker_stop();
	close(fd);
	fclose(in);
	free(line);
	printf("ns=%lld ok=%ld fail=%ld\n", total, ok, fail);
	return 0;
}

static int insmod(const char *ko)
{
	long long t0, t1;
	int fd = open(ko, O_RDONLY);

	if (fd < 0)
		die(ko);
	prof_marker_start();
	t0 = now_ns();
	if (syscall(SYS_finit_module, fd, "", 0))
		die("finit_module");
	t1 = now_ns();
	prof_marker_stop();
	close(fd);
	printf("ns=%lld\n", t1 - t0);
	return 0;
}

static int rmmod(const char *name)
{
	long long t0, t1;

	prof_marker_start();
	t0 = now_ns();
	if (syscall(SYS_delete_module, name, O_NONBLOCK))
		die("delete_module");
	t1 = now_ns();
	prof_marker_stop();
	printf("ns=%lld\n", t1 - t0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "loop")) {
		long n = atol(argv[3]);

		if (n <= 0)
			return 2;
		if (!strcmp(argv[2], "read"))
			return timed(n, open_or_die("/dev/zero", O_RDONLY), op_read, "read");
		if (!strcmp(argv[2], "prctl"))
			return timed(n, -1, op_prctl, "prctl");
		if (!strcmp(argv[2], "poke"))
			return timed(n, open_or_die("/sys/kernel/debug/rfprobe_floor/poke", O_WRONLY),
				     op_poke, "write");
	}
	if (argc == 4 && !strcmp(argv[1], "write"))
		return write_lines(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "insmod"))
		return insmod(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "rmmod"))
		return rmmod(argv[2]);
	fprintf(stderr, "usage: bench loop read|prctl|poke N | write FILE LIST | insmod KO | rmmod NAME\n");
	return 2;
}
