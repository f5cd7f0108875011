// SPDX-License-Identifier: GPL-2.0
/*
 * Attaches the fentry and fexit programs of coexist.bpf.o, runs a command
 * while they are attached, detaches them and prints what they counted
 * (bpf_coexist.tc; built static with libbpf for the test guest):
 *
 *   bpfcount OBJ CMD [ARG...]
 *       prints CMD's output, then "bpf: entry=N exit=N"
 *       (or "bpfcount: ..." and exit 1)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	struct bpf_link *links[2];
	struct bpf_object *obj;
	unsigned long long v[2];
	const char *names[2] = { "on_entry", "on_exit" };
	int fd, status, i;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: bpfcount OBJ CMD [ARG...]\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "bpfcount: load %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < 2; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(obj, names[i]);

		links[i] = p ? bpf_program__attach(p) : NULL;
		if (!links[i]) {
			fprintf(stderr, "bpfcount: attach %s: %s\n", names[i], strerror(errno));
			return 1;
		}
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("bpfcount: fork");
		return 1;
	}
	if (!pid) {
		execvp(argv[2], argv + 2);
		perror("bpfcount: exec");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bpfcount: %s failed\n", argv[2]);
		return 1;
	}
	for (i = 0; i < 2; i++)
		bpf_link__destroy(links[i]);
	fd = bpf_object__find_map_fd_by_name(obj, "hits");
	for (i = 0; i < 2; i++) {
		unsigned int k = i;

		if (fd < 0 || bpf_map_lookup_elem(fd, &k, &v[i])) {
			fprintf(stderr, "bpfcount: read the counts: %s\n", strerror(errno));
			return 1;
		}
	}
	printf("bpf: entry=%llu exit=%llu\n", v[0], v[1]);
	bpf_object__close(obj);
	return 0;
}
