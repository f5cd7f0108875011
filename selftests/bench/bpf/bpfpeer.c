// SPDX-License-Identifier: GPL-2.0
/*
 * Loads the BPF peer of one benchmark shape (peer.bpf.c), runs a command
 * while it is attached, then counts the records it wrote (guest side of
 * selftests/bench/guest.sh, built static on the host with libbpf):
 *
 *   bpfpeer OBJ SHAPE CMD [ARG...]
 *       prints CMD's output, then "records=N" (or "bpfpeer: ..." and exit 1)
 *
 * SHAPE is a program name of OBJ; the duration shape also attaches its
 * entry program (duration_entry).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>

static long records;

static int count(void *ctx, void *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	records++;
	return 0;
}

static int wanted(const char *prog, const char *shape)
{
	if (!strcmp(prog, shape))
		return 1;
	return !strcmp(shape, "duration") && !strcmp(prog, "duration_entry");
}

int main(int argc, char **argv)
{
	struct bpf_link *links[2] = { NULL, NULL };
	struct ring_buffer *ring;
	struct bpf_object *obj;
	struct bpf_program *p;
	int n = 0, status, i;
	pid_t pid;

	if (argc < 4) {
		fprintf(stderr, "usage: bpfpeer OBJ SHAPE CMD [ARG...]\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "bpfpeer: open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, wanted(bpf_program__name(p), argv[2]));
	if (bpf_object__load(obj)) {
		fprintf(stderr, "bpfpeer: load %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, obj) {
		if (!wanted(bpf_program__name(p), argv[2]))
			continue;
		links[n] = bpf_program__attach(p);
		if (!links[n]) {
			fprintf(stderr, "bpfpeer: attach %s: %s\n", bpf_program__name(p), strerror(errno));
			return 1;
		}
		n++;
	}
	if (!n) {
		fprintf(stderr, "bpfpeer: no program %s\n", argv[2]);
		return 1;
	}
	ring = ring_buffer__new(bpf_object__find_map_fd_by_name(obj, "rb"), count, NULL, NULL);
	if (!ring) {
		fprintf(stderr, "bpfpeer: ring buffer: %s\n", strerror(errno));
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("bpfpeer: fork");
		return 1;
	}
	if (!pid) {
		execv(argv[3], argv + 3);
		perror("bpfpeer: exec");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bpfpeer: %s failed\n", argv[3]);
		return 1;
	}
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	if (ring_buffer__consume(ring) < 0) {
		fprintf(stderr, "bpfpeer: consume: %s\n", strerror(errno));
		return 1;
	}
	printf("records=%ld\n", records);
	ring_buffer__free(ring);
	bpf_object__close(obj);
	return 0;
}
