// SPDX-License-Identifier: GPL-2.0
/*
 * insnprof: a QEMU TCG plugin (host side) that counts executed guest
 * instructions per translation block between two marker addresses of the
 * benchmark program (bench.c: prof_marker_start/prof_marker_stop). Every
 * start marker opens a new "epoch"; at exit it writes one line per block
 * and epoch:  EPOCH VADDR NINSNS COUNT   (COUNT = instructions executed).
 * profile.sh symbolises them. Exact, not sampled: with -icount shift=0 the
 * counts add up to the guest time the loop measures.
 *
 *   -plugin insnprof.so,start=0xADDR,stop=0xADDR,out=FILE
 *
 * Only the few plugin API calls needed are declared here (QEMU plugin API
 * version 1, as in QEMU 7.2); the symbols are exported by QEMU itself.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

#define MAX_EPOCHS 256
#define HASH_BITS 20

struct block {
	uint64_t vaddr;
	uint32_t n;
	struct block *next;
	uint64_t *counts; /* [MAX_EPOCHS], allocated on first counted run */
};

static struct block *table[1 << HASH_BITS];
static uint64_t start_addr, stop_addr;
static const char *out_path = "insnprof.out";
static int active, epoch;

static struct block *block_of(uint64_t vaddr, uint32_t n)
{
	uint64_t h = (vaddr * 0x9E3779B97F4A7C15ULL) >> (64 - HASH_BITS);
	struct block *b;

	for (b = table[h]; b; b = b->next)
		if (b->vaddr == vaddr && b->n == n)
			return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->vaddr = vaddr;
	b->n = n;
	b->next = table[h];
	table[h] = b;
	return b;
}

static void exec_block(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	(void)vcpu;
	if (!active)
		return;
	if (!b->counts) {
		b->counts = calloc(MAX_EPOCHS, sizeof(uint64_t));
		if (!b->counts)
			abort();
	}
	b->counts[epoch] += b->n;
}

static void exec_start(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	if (epoch < MAX_EPOCHS - 1)
		epoch++;
	active = 1;
}

static void exec_stop(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	active = 0;
}

static void translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b = block_of(vaddr, qemu_plugin_tb_n_insns(tb));

	(void)id;
	/* The stop marker's own block is not counted, the start marker's is. */
	if (vaddr == stop_addr)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_stop, QEMU_PLUGIN_CB_NO_REGS, NULL);
	if (vaddr == start_addr)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_start, QEMU_PLUGIN_CB_NO_REGS, NULL);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_block, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	FILE *f = fopen(out_path, "w");
	struct block *b;
	int h, e;

	(void)id;
	(void)udata;
	if (!f)
		return;
	for (h = 0; h < (1 << HASH_BITS); h++)
		for (b = table[h]; b; b = b->next)
			if (b->counts)
				for (e = 0; e < MAX_EPOCHS; e++)
					if (b->counts[e])
						fprintf(f, "%d %#" PRIx64 " %u %" PRIu64 "\n", e, b->vaddr, b->n,
							b->counts[e]);
	fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "start=", 6))
			start_addr = strtoull(argv[i] + 6, NULL, 0);
		else if (!strncmp(argv[i], "stop=", 5))
			stop_addr = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "out=", 4))
			out_path = strdup(argv[i] + 4);
		else
			return -1;
	}
	if (!start_addr || !stop_addr)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
