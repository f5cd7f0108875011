// SPDX-License-Identifier: GPL-2.0
//! Which functions an exit probe may reach through a call-through
//! trampoline (`exit_attach` `trampoline`), on the test kernel's BTF.

mod defs_common;

use trace_probe::callthrough::{check, Refusal};

#[test]
fn register_arguments_only() {
    let Some(btf) = defs_common::test_kernel_btf("register_arguments_only") else {
        return;
    };
    // ssize_t vfs_read(struct file *, char __user *, size_t, loff_t *)
    assert_eq!(check(btf, b"vfs_read"), Ok(()));
    // void __set_task_comm(struct task_struct *, const char *, bool)
    assert_eq!(check(btf, b"__set_task_comm"), Ok(()));
    // Functions that never return, as BPF's fexit refuses them.
    assert_eq!(check(btf, b"do_exit"), Err(Refusal::NoReturn));
    assert_eq!(check(btf, b"do_group_exit"), Err(Refusal::NoReturn));
    assert_eq!(check(btf, b"kthread"), Err(Refusal::NoReturn));
    assert_eq!(check(btf, b"get_signal"), Err(Refusal::NoReturn));
    // A compiler clone is not judged by its origin's prototype.
    assert_eq!(check(btf, b"vfs_read.isra.0"), Err(Refusal::NoPrototype));
    assert_eq!(check(btf, b"vfs_read.part.0"), Err(Refusal::NoPrototype));
    // int _printk(const char *fmt, ...)
    assert_eq!(check(btf, b"_printk"), Err(Refusal::Variadic));
    assert_eq!(
        check(btf, b"no_such_function_here"),
        Err(Refusal::NoPrototype)
    );
}

#[test]
fn stack_arguments() {
    let Some(btf) = defs_common::test_kernel_btf("stack_arguments") else {
        return;
    };
    // unsigned long do_mmap(struct file *, unsigned long addr, unsigned
    // long len, unsigned long prot, unsigned long flags, vm_flags_t,
    // unsigned long pgoff, unsigned long *populate, struct list_head *uf)
    assert_eq!(check(btf, b"do_mmap"), Err(Refusal::StackArgs));
}
