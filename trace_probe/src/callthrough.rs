// SPDX-License-Identifier: GPL-2.0
//! Whether an exit probe may reach a function through a call-through
//! trampoline (`exit_attach` `trampoline`): the trampoline runs at the
//! function's entry, calls the function's body itself with the argument
//! registers as they came, and writes the record after the body returns,
//! as BPF's fexit does. That holds for a function whose arguments are all
//! in registers (the body would look for stack arguments above the
//! trampoline's frame) and that returns (a call that never returns would
//! keep the trampoline's frame, and the module, forever). Every other
//! function stays on fprobe; [`Refusal`] says why.

use super::btf_query::{Btf, TypeId};

/// Integer argument registers of the x86-64 calling convention.
pub const ARG_REGS: u32 = 6;

/// Functions that never return to their caller, which BPF refuses for
/// fexit for the same reason (kernel/bpf/verifier.c `noreturn_deny`),
/// with the other exits of a task and a kernel thread, and the functions
/// that reach one of them for good.
pub const NORETURN: &[&[u8]] = &[
    b"__x64_sys_exit",
    b"__x64_sys_exit_group",
    b"__ia32_sys_exit",
    b"__ia32_sys_exit_group",
    b"do_exit",
    b"do_group_exit",
    b"do_task_dead",
    b"make_task_dead",
    b"kthread_exit",
    b"kthread_complete_and_exit",
    b"__module_put_and_kthread_exit",
    b"panic",
    b"nmi_panic",
    b"rewind_stack_and_make_dead",
    // Kernel threads end in kthread_exit() from these; a fatal signal
    // ends the task in do_group_exit() from get_signal().
    b"kthread",
    b"kthreadd",
    b"ret_from_fork",
    b"get_signal",
    b"arch_do_signal_or_restart",
    b"__fortify_panic",
    b"usercopy_abort",
];

/// Why a function stays on fprobe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No BTF prototype: its arguments cannot be counted.
    NoPrototype,
    /// Variadic: arguments past the named ones may be on the stack.
    Variadic,
    /// Arguments that do not fit the argument registers (more than six
    /// words, or a structure passed in memory).
    StackArgs,
    /// Does not return to its caller.
    NoReturn,
    /// Its module is not vmlinux (a module function's BTF is the module's).
    Module,
    /// The exit probe reads more entry data than a trampoline frame holds.
    EntryData,
    /// All call-through trampolines are in use.
    NoSlot,
    /// ftrace refused the direct call (another direct-call user, such as a
    /// BPF trampoline, has the function: `EBUSY`).
    Busy,
    /// ftrace could not allocate for the direct call (`ENOMEM`).
    NoMemory,
    /// ftrace refused the direct call for another reason.
    Refused,
    /// The kernel has no ftrace direct calls
    /// (`CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS`).
    NoDirectCalls,
}

impl Refusal {
    /// The words `exit_attach` lists the function with.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::NoPrototype => "no BTF prototype",
            Refusal::Variadic => "variadic",
            Refusal::StackArgs => "arguments on the stack",
            Refusal::NoReturn => "does not return",
            Refusal::Module => "module function",
            Refusal::EntryData => "entry data too large",
            Refusal::NoSlot => "no free trampoline",
            Refusal::Busy => "direct call taken",
            Refusal::NoMemory => "out of memory",
            Refusal::Refused => "direct call refused",
            Refusal::NoDirectCalls => "no direct calls in this kernel",
        }
    }
}

/// Whether `name` (a vmlinux function) can be reached through a
/// call-through trampoline, by its BTF prototype.
pub fn check(btf: &Btf<'_>, name: &[u8]) -> Result<(), Refusal> {
    if NORETURN.contains(&name) {
        return Err(Refusal::NoReturn);
    }
    // The exact name only: a compiler clone (`foo.isra.0`, `foo.part.0`)
    // has its own calling convention, which `foo`'s prototype does not
    // describe (`.isra` may split an argument into several).
    let func = btf.find_func(name).ok_or(Refusal::NoPrototype)?;
    let proto = btf.func_proto(func).map_err(|_| Refusal::NoPrototype)?;
    if proto.is_variadic() {
        return Err(Refusal::Variadic);
    }
    let mut words = 0u32;
    for p in proto.params() {
        let p = p.map_err(|_| Refusal::NoPrototype)?;
        words += arg_words(btf, p.ty)?;
    }
    // A structure returned in memory takes a hidden first argument.
    if ret_in_memory(btf, proto.ret())? {
        words += 1;
    }
    if words > ARG_REGS {
        return Err(Refusal::StackArgs);
    }
    Ok(())
}

/// The argument registers a parameter of type `ty` takes: one per
/// eightbyte, up to two; anything larger is passed in memory.
fn arg_words(btf: &Btf<'_>, ty: TypeId) -> Result<u32, Refusal> {
    match btf.size_of(ty).map_err(|_| Refusal::NoPrototype)? {
        0..=8 => Ok(1),
        9..=16 => Ok(2),
        _ => Err(Refusal::StackArgs),
    }
}

/// A return value larger than two eightbytes comes back in memory.
fn ret_in_memory(btf: &Btf<'_>, ty: TypeId) -> Result<bool, Refusal> {
    if ty == TypeId::VOID {
        return Ok(false);
    }
    Ok(btf.size_of(ty).map_err(|_| Refusal::NoPrototype)? > 16)
}
