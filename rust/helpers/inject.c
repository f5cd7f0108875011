// SPDX-License-Identifier: GPL-2.0
/*
 * rfprobe's error-injection points: the registrations that attach a probe
 * when its event is enabled, or change its functions in place, can fail
 * (ftrace, tracepoint and perf registration allocate), so fail_function
 * may make each fail, and the rollback of a partly enabled multi-probe
 * event is tested (selftests/stress/faults.tc), as is what an exit
 * probe's function does when its direct call fails: it stays on fprobe
 * with the reason (selftests/test.d/rfprobe/exit_trampoline_faults.tc).
 * Each is an entry point that calls the registration in its subsystem's
 * file.
 *
 * The one helper file built with __fentry__ calls (Kbuild): fail_function
 * puts a kprobe on the function's entry, and without an ftrace site there
 * it is an int3 kprobe that the kernel may optimize into a jump, whose
 * handler cannot change where the function returns: the injected failure
 * would never reach the caller. None of these runs on the hot path.
 */
#include <linux/error-injection.h>
#include "direct.h"
#include "ftrace.h"
#include "tracepoint.h"
#include "watch.h"
#include "inject.h"

int rfprobe_ops_register_ips(struct rfprobe_ops *ro, unsigned long *ips, unsigned int cnt)
{
	return __rfprobe_ops_register_ips(ro, ips, cnt);
}
ALLOW_ERROR_INJECTION(rfprobe_ops_register_ips, ERRNO);

int rfprobe_ops_update_ips(struct rfprobe_ops *ro, unsigned long *ips, unsigned int cnt,
			   int remove)
{
	return __rfprobe_ops_update_ips(ro, ips, cnt, remove);
}
ALLOW_ERROR_INJECTION(rfprobe_ops_update_ips, ERRNO);

int rfprobe_fprobe_update_ips(struct fprobe *fp, unsigned long *ips, unsigned int cnt,
			      int remove)
{
	return __rfprobe_fprobe_update_ips(fp, ips, cnt, remove);
}
ALLOW_ERROR_INJECTION(rfprobe_fprobe_update_ips, ERRNO);

int rfprobe_tp_attach(struct rfprobe_tp *t, struct tracepoint *tp)
{
	return __rfprobe_tp_attach(t, tp);
}
ALLOW_ERROR_INJECTION(rfprobe_tp_attach, ERRNO);

int rfprobe_wp_attach(struct rfprobe_wp *w, unsigned long addr, unsigned int len,
		      unsigned int type)
{
	return __rfprobe_wp_attach(w, addr, len, type);
}
ALLOW_ERROR_INJECTION(rfprobe_wp_attach, ERRNO);

int rfprobe_direct_register(unsigned int slot, unsigned long ip)
{
	return __rfprobe_direct_register(slot, ip);
}
ALLOW_ERROR_INJECTION(rfprobe_direct_register, ERRNO);
