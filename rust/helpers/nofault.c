// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel address range copy_from_kernel_nofault() accepts, and the
 * exception-table encoding trace_fprobe/nofault.rs writes, checked here at
 * build time.
 */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <asm/extable.h>
#include <asm/processor.h>
#include <asm/vsyscall.h>
#include "nofault.h"

unsigned long rfprobe_task_size_max(void)
{
	return TASK_SIZE_MAX;
}

/*
 * The lowest address copy_from_kernel_nofault_allowed() accepts (x86-64:
 * at or above TASK_SIZE_MAX + PAGE_SIZE, and canonical for the CPU's
 * virtual address width). Every address from there up is canonical, so
 * with the vsyscall page excluded one compare says what the kernel's
 * check says (trace_fprobe/nofault.rs).
 */
unsigned long rfprobe_nofault_kernel_lo(void)
{
	unsigned long lo = TASK_SIZE_MAX + PAGE_SIZE;
	unsigned int bits = boot_cpu_data.x86_virt_bits;

	if (bits && bits < 64)
		lo = max(lo, (unsigned long)(-1L << (bits - 1)));
	return lo;
}

/*
 * trace_fprobe/nofault.rs writes its exception-table entries itself, in
 * _ASM_EXTABLE_TYPE()'s layout (insn and fixup as 32-bit offsets from the
 * entry, then the data word) with this data word: a fault anywhere in the
 * load resumes after it with ax and dx cleared. The build fails here if the
 * kernel's encoding ever differs.
 */
static_assert(sizeof(struct exception_table_entry) == 3 * sizeof(int));
static_assert((EX_TYPE_DEFAULT | EX_FLAG_CLEAR_AX_DX) == 0x3001);
static_assert(VSYSCALL_ADDR == 0xffffffffff600000UL);
