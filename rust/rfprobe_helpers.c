// SPDX-License-Identifier: GPL-2.0
/*
 * C helpers for rfprobe (see rfprobe_helpers.h). The module's logic lives in
 * Rust; this file only exposes static inlines/macros and the module parameter
 * used by the VM runner's own failure test.
 */
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include "rfprobe_helpers.h"

static bool selftest_warn;
module_param(selftest_warn, bool, 0444);
MODULE_PARM_DESC(selftest_warn,
		 "Trigger a deliberate WARN() at load (tests that the VM runner catches splats)");

void rfprobe_selftest_warn(void)
{
	WARN(selftest_warn, "rfprobe: selftest_warn=1: deliberate warning for the runner self-test\n");
}

unsigned int rfprobe_file_flags(const struct file *file)
{
	return file->f_flags;
}

unsigned int rfprobe_file_mode(const struct file *file)
{
	return (__force unsigned int)file->f_mode;
}

bool rfprobe_file_write_trunc(const struct file *file)
{
	return (file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC);
}

bool rfprobe_is_err_or_null(const void *ptr)
{
	return IS_ERR_OR_NULL(ptr);
}

long rfprobe_ptr_err(const void *ptr)
{
	return PTR_ERR(ptr);
}

unsigned long rfprobe_copy_from_user(void *to, const void __user *from, unsigned long n)
{
	return copy_from_user(to, from, n);
}

unsigned long rfprobe_copy_to_user(void __user *to, const void *from, unsigned long n)
{
	return copy_to_user(to, from, n);
}

unsigned long rfprobe_regs_get_kernel_stack_nth(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_stack_nth(regs, n);
}
NOKPROBE_SYMBOL(rfprobe_regs_get_kernel_stack_nth);

const char *rfprobe_current_comm(void)
{
	return current->comm;
}
NOKPROBE_SYMBOL(rfprobe_current_comm);

unsigned long rfprobe_task_size_max(void)
{
	return TASK_SIZE_MAX;
}

bool rfprobe_trace_trigger_soft_disabled(struct trace_event_file *file)
{
	return trace_trigger_soft_disabled(file);
}
NOKPROBE_SYMBOL(rfprobe_trace_trigger_soft_disabled);

unsigned int rfprobe_context_level(void)
{
	return interrupt_context_level();
}
NOKPROBE_SYMBOL(rfprobe_context_level);

void *rfprobe_this_cpu_ptr(void __percpu *ptr)
{
	return this_cpu_ptr(ptr);
}
NOKPROBE_SYMBOL(rfprobe_this_cpu_ptr);

void *rfprobe_this_cpu_ctx_ptr(void __percpu *ptr, unsigned long stride)
{
	return (char *)this_cpu_ptr(ptr) + interrupt_context_level() * stride;
}
NOKPROBE_SYMBOL(rfprobe_this_cpu_ctx_ptr);

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

void *rfprobe_tracepoint_probestub(struct tracepoint *tp)
{
	return tp->probestub;
}

const char *rfprobe_tracepoint_name(struct tracepoint *tp)
{
	return tp->name;
}

static size_t copy_sym(char *buf, size_t len, const char *sym, int n)
{
	size_t m = n < 0 ? 0 : min_t(size_t, n, len);

	memcpy(buf, sym, m);
	return m;
}

size_t rfprobe_sprint_symbol(char *buf, size_t len, unsigned long addr)
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

bool rfprobe_mutex_plausible(struct mutex *m, const char *name)
{
	struct mutex copy;

	if (copy_from_kernel_nofault(&copy, m, sizeof(copy)))
		return false;
	/* An empty wait list points to itself; a busy one to kernel memory. */
	if (!(copy.wait_list.next == &m->wait_list && copy.wait_list.prev == &m->wait_list) &&
	    (!virt_addr_valid(copy.wait_list.next) || !virt_addr_valid(copy.wait_list.prev)))
		return false;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	{
		char buf[32] = {};
		int i;

		if (!copy.dep_map.name)
			return false;
		for (i = 0; i < sizeof(buf) - 1; i++) {
			if (copy_from_kernel_nofault(&buf[i], copy.dep_map.name + i, 1))
				return false;
			if (!buf[i])
				break;
		}
		if (strcmp(buf, name))
			return false;
	}
#endif
	return true;
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

const char *rfprobe_tp_module_name(struct tp_module *tpm)
{
	return module_name(tpm->mod);
}

struct rfprobe_ops {
	struct ftrace_ops ops;
	void *data;
	unsigned long nmissed;
};

static void notrace rfprobe_ops_func(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct rfprobe_ops *ro = container_of(op, struct rfprobe_ops, ops);
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		ro->nmissed++;
		return;
	}
	rfprobe_ops_entry(ro->data, ip, &arch_ftrace_regs(fregs)->regs);
	ftrace_test_recursion_unlock(bit);
}
NOKPROBE_SYMBOL(rfprobe_ops_func);

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

int rfprobe_ops_register_sym(struct rfprobe_ops *ro, const char *sym)
{
	int ret;

	rfprobe_ops_reset(ro);
	ret = ftrace_set_filter(&ro->ops, (unsigned char *)sym, strlen(sym), 1);

	if (!ret)
		ret = register_ftrace_function(&ro->ops);
	if (ret)
		ftrace_free_filter(&ro->ops);
	return ret;
}

int rfprobe_ops_register_ip(struct rfprobe_ops *ro, unsigned long ip)
{
	int ret;

	rfprobe_ops_reset(ro);
	ret = ftrace_set_filter_ip(&ro->ops, ip, 0, 1);

	if (!ret)
		ret = register_ftrace_function(&ro->ops);
	if (ret)
		ftrace_free_filter(&ro->ops);
	return ret;
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
	return ro->nmissed;
}

void rfprobe_synchronize_rcu(void)
{
	synchronize_rcu();
}
