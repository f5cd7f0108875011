// SPDX-License-Identifier: GPL-2.0
/*
 * What rfprobe reads of its environment: whole files (BTF blobs), ftrace's
 * list of traceable functions, loaded modules and symbols.
 */
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/seq_file.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include "env.h"

/*
 * BTF blobs (trace_fprobe/btf.rs): a whole sysfs file read into a
 * vmalloc()ed buffer. Not through kernel_read_file(), which asks the LSMs
 * about a read of no known purpose (READING_UNKNOWN): IPE (Debian's
 * kernels) warns about every one.
 */
int rfprobe_read_file(const char *path, size_t max, void **buf, size_t *size)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	loff_t len, pos = 0;
	ssize_t n;
	void *p;

	if (IS_ERR(f))
		return PTR_ERR(f);
	len = i_size_read(file_inode(f));
	if (len <= 0 || len > max) {
		filp_close(f, NULL);
		return len <= 0 ? -EINVAL : -EFBIG;
	}
	p = vmalloc(len);
	if (!p) {
		filp_close(f, NULL);
		return -ENOMEM;
	}
	while (pos < len) {
		n = kernel_read(f, p + pos, len - pos, &pos);
		if (n < 0) {
			vfree(p);
			filp_close(f, NULL);
			return n;
		}
		if (!n)
			break;
	}
	filp_close(f, NULL);
	*buf = p;
	*size = pos;
	return 0;
}

static size_t notrace copy_sym(char *buf, size_t len, const char *sym, int n)
{
	size_t m = n < 0 ? 0 : min_t(size_t, n, len);

	memcpy(buf, sym, m);
	return m;
}

size_t notrace rfprobe_sprint_symbol(char *buf, size_t len, unsigned long addr)
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

const char *rfprobe_module_name(struct module *mod)
{
	return module_name(mod);
}

/*
 * ftrace's list of traceable functions with their addresses
 * ("ADDR NAME [MOD]" lines, since 6.5), read like user space reads it: the
 * list is not reachable from modules otherwise (kallsyms iteration is not
 * exported). Tracefs is at /sys/kernel/tracing, or automounted under
 * debugfs.
 */
static struct lock_class_key rfprobe_funcs_seq_key;

struct file *rfprobe_open_ftrace_funcs(void)
{
	struct file *f = filp_open("/sys/kernel/tracing/available_filter_functions_addrs",
				   O_RDONLY, 0);

	if (IS_ERR(f))
		f = filp_open("/sys/kernel/debug/tracing/available_filter_functions_addrs",
			      O_RDONLY, 0);
	/*
	 * rfprobe reads this private open file with its own mutex held, and
	 * takes that mutex inside the seq_file lock of its own control files.
	 * All seq_file locks share one lockdep class, which makes that look
	 * like a cycle; this file is rfprobe's alone (nobody else can hold
	 * its lock), so its lock gets a class of its own.
	 */
	if (!IS_ERR(f) && f->f_op->read == seq_read && f->private_data)
		lockdep_set_class(&((struct seq_file *)f->private_data)->lock,
				  &rfprobe_funcs_seq_key);
	return f;
}

/*
 * kernel_read() refuses files without ->read_iter, as ftrace's seq files
 * are (their ->read is seq_read). seq_read() is seq_read_iter() on a user
 * buffer; this is the same on a kernel buffer.
 */
ssize_t rfprobe_file_read(struct file *f, void *buf, size_t len, loff_t *pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;
	struct kiocb kiocb;
	ssize_t ret;

	if (f->f_op->read != seq_read)
		return kernel_read(f, buf, len, pos);
	init_sync_kiocb(&kiocb, f);
	kiocb.ki_pos = *pos;
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, len);
	ret = seq_read_iter(&kiocb, &iter);
	*pos = kiocb.ki_pos;
	return ret;
}

void rfprobe_file_close(struct file *f)
{
	filp_close(f, NULL);
}

/*
 * Is module @name loaded? find_module() is not exported; a loaded module
 * (not a built-in one) has /sys/module/NAME/initstate.
 */
/* Is @addr in the init text of @mod (freed once the module is live)? */
bool rfprobe_within_module_init(unsigned long addr, struct module *mod)
{
	return within_module_init(addr, mod);
}

/* The module's init text, [*start, *end) (empty once freed). */
void rfprobe_module_init_range(struct module *mod, unsigned long *start, unsigned long *end)
{
	*start = (unsigned long)mod->mem[MOD_INIT_TEXT].base;
	*end = *start + mod->mem[MOD_INIT_TEXT].size;
}

bool rfprobe_module_loaded(const char *name)
{
	char buf[MODULE_NAME_LEN + 32];
	struct path path;

	if (snprintf(buf, sizeof(buf), "/sys/module/%s/initstate", name) >= sizeof(buf))
		return false;
	if (kern_path(buf, LOOKUP_FOLLOW, &path))
		return false;
	path_put(&path);
	return true;
}
