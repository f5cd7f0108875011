// SPDX-License-Identifier: GPL-2.0

//! What differs between the kernels rfprobe builds for, on the Rust side:
//! the one module (with `rust/rfprobe_compat.h` for C) that the facts the
//! build probed choose between. Kbuild probes each fact from the kernel's
//! headers and artefacts and passes it as a `--cfg rfprobe_*`; `CONFIG_*`
//! options arrive as `--cfg` by themselves. Logic files call what is here
//! and never test a kernel version. A wrong probe does not compile: each
//! branch uses the very items its fact says the kernel has.
//!
//! Facts used here:
//! * `rfprobe_kcrate_pin_init`: the kernel crate of 7.x (pin-init is its
//!   own crate, `CStr` is `core::ffi::CStr` with `CStrExt`, `module!` takes
//!   `authors`, `UserSlice::new` takes a `UserPtr`, `KVec` has `truncate`
//!   and no `set_len`).
//! * `rfprobe_fprobe_fgraph`: fprobe handlers take `struct ftrace_regs`
//!   (6.14 and later), see [`fprobe_regs`].
//! * `rfprobe_pcpu_hot`: x86's `struct pcpu_hot` holds the current task and
//!   the preempt count (6.12), else they are per-CPU variables of their own
//!   ([`CURRENT_TASK`], [`PREEMPT_COUNT`]); `CONFIG_HAS_SEPARATE_PREEMPT_RESCHED_BITS`:
//!   the preempt count is 64-bit, `PREEMPT_NEED_RESCHED` its bit 63.

use crate::bindings;
use kernel::alloc::{Allocator, Vec};
use kernel::ffi::c_char;
pub(crate) use kernel::str::CStr;

/// The kernel's `CStr` as rfprobe uses it, on either generation of the
/// kernel crate.
pub(crate) trait CStrCompat {
    /// The string's bytes, without the NUL.
    fn str_bytes(&self) -> &[u8];
    /// The C pointer to the string.
    fn char_ptr(&self) -> *const c_char;
}

impl CStrCompat for CStr {
    #[cfg(rfprobe_kcrate_pin_init)]
    fn str_bytes(&self) -> &[u8] {
        self.to_bytes()
    }
    #[cfg(not(rfprobe_kcrate_pin_init))]
    fn str_bytes(&self) -> &[u8] {
        self.as_bytes()
    }
    #[cfg(rfprobe_kcrate_pin_init)]
    fn char_ptr(&self) -> *const c_char {
        use kernel::str::CStrExt;
        CStrExt::as_char_ptr(self)
    }
    #[cfg(not(rfprobe_kcrate_pin_init))]
    fn char_ptr(&self) -> *const c_char {
        self.as_char_ptr()
    }
}

/// The NUL-terminated string at `ptr` as a `CStr`.
///
/// # Safety
///
/// `ptr` is a valid NUL-terminated string that lives and does not change
/// for `'a`.
pub(crate) unsafe fn cstr_from_ptr<'a>(ptr: *const c_char) -> &'a CStr {
    #[cfg(rfprobe_kcrate_pin_init)]
    use kernel::str::CStrExt;
    // SAFETY: Caller.
    unsafe { CStr::from_char_ptr(ptr) }
}

/// A reader of `len` bytes of user memory at `addr`.
pub(crate) fn user_reader(addr: usize, len: usize) -> kernel::uaccess::UserSliceReader {
    #[cfg(rfprobe_kcrate_pin_init)]
    let ptr = kernel::uaccess::UserPtr::from_addr(addr);
    #[cfg(not(rfprobe_kcrate_pin_init))]
    let ptr = addr;
    kernel::uaccess::UserSlice::new(ptr, len).reader()
}

/// Removes and returns element `i` of `v`, shifting the rest down; `None`
/// if out of range (the 6.12 `KVec` has no `remove`).
pub(crate) fn vec_remove<T, A: Allocator>(v: &mut Vec<T, A>, i: usize) -> Option<T> {
    #[cfg(rfprobe_kcrate_pin_init)]
    {
        v.remove(i).ok()
    }
    #[cfg(not(rfprobe_kcrate_pin_init))]
    {
        let len = v.len();
        if i >= len {
            return None;
        }
        let p = v.as_mut_ptr();
        // SAFETY: `i < len`: element `i` is initialised and read exactly
        // once; the tail `i+1..len` is moved down by one (overlapping
        // copy), then the length shrinks so the moved-out slot at `len-1`
        // is not dropped again.
        unsafe {
            let item = core::ptr::read(p.add(i));
            core::ptr::copy(p.add(i + 1), p.add(i), len - i - 1);
            v.set_len(len - 1);
            Some(item)
        }
    }
}

/// The registers an fprobe handler was given, as a `pt_regs`: with
/// `rfprobe_fprobe_fgraph`, a `struct ftrace_regs` (x86: the `pt_regs` in
/// `struct __arch_ftrace_regs`) of which an exit handler has only the
/// return registers (ax, dx, bp, sp, ip; the definition checks refuse the
/// rest there), else the `pt_regs` itself.
///
/// # Safety
///
/// `regs` is the register argument of a running fprobe handler.
#[inline(always)]
pub(crate) unsafe fn fprobe_regs(
    regs: *mut bindings::rfprobe_fprobe_regs,
) -> *mut bindings::pt_regs {
    #[cfg(rfprobe_fprobe_fgraph)]
    {
        regs.cast::<u8>()
            .wrapping_add(bindings::RFPROBE_CONST_FREGS_REGS)
            .cast::<bindings::pt_regs>()
    }
    #[cfg(not(rfprobe_fprobe_fgraph))]
    {
        regs
    }
}

/// fprobe runs on the function-graph tracer: its handlers take
/// `ftrace_regs`, exit handlers see only the return registers, and a
/// registered fprobe's functions cannot change (`rfprobe_fprobe_fgraph`).
pub(crate) const FPROBE_FGRAPH: bool = cfg!(rfprobe_fprobe_fgraph);

/// Where fprobe runs on fgraph its entry handlers (those of C's `f` and `t`
/// events) run one preemption level deeper (an RCU-sched guard): rfprobe's
/// entry callbacks disable preemption once more there, so that records
/// carry C's preemption depth (`rust/rfprobe_compat.h` for the C ones).
pub(crate) const FPROBE_EXTRA_PREEMPT_LEVEL: bool = FPROBE_FGRAPH;

/// Where fprobe runs on fgraph: the words of per-call data fgraph keeps
/// for it, which hold, for every call of a function, a header
/// ([`FPROBE_HEADER_WORDS`]) and the entry data of each exit fprobe on
/// the function, declining ones included; when they do not fit, no fprobe
/// there sees the call (`fprobe_fgraph_entry`). Kbuild probes
/// `FGRAPH_DATA_BITS`; 0 elsewhere.
#[cfg(rfprobe_fprobe_fgraph)]
pub(crate) const FGRAPH_DATA_WORDS: usize = bindings::RFPROBE_CONST_FGRAPH_DATA_WORDS;
#[cfg(not(rfprobe_fprobe_fgraph))]
pub(crate) const FGRAPH_DATA_WORDS: usize = 0;
/// The words of an exit fprobe's header in fgraph's per-call data: one
/// where the arch encodes it in one (`ARCH_DEFINE_ENCODE_FPROBE_HEADER`).
#[cfg(rfprobe_fprobe_fgraph)]
pub(crate) const FPROBE_HEADER_WORDS: usize = bindings::RFPROBE_CONST_FPROBE_HEADER_WORDS;
#[cfg(not(rfprobe_fprobe_fgraph))]
pub(crate) const FPROBE_HEADER_WORDS: usize = 0;
// The parser's limit on an exit probe's entry data on such a kernel is the
// fprobe core's.
#[cfg(rfprobe_fprobe_fgraph)]
const _: () = assert!(
    bindings::RFPROBE_CONST_MAX_FPROBE_DATA_SIZE
        == crate::trace_probe::facts::FGRAPH_MAX_ENTRY_DATA
);

/// Sets an unregistered fprobe's `nr_maxactive` (rethook's pool of
/// in-flight exits; 0: the default). With `rfprobe_fprobe_fgraph` exits
/// ride the function-graph shadow stack: there is no pool, and definitions
/// with a maxactive are refused as the kernel's own fprobe events refuse
/// them.
///
/// # Safety
///
/// `fp` is a valid, unregistered `struct fprobe`.
pub(crate) unsafe fn fprobe_set_maxactive(fp: *mut bindings::fprobe, maxactive: u32) {
    #[cfg(rfprobe_fprobe_fgraph)]
    let _ = (fp, maxactive);
    #[cfg(not(rfprobe_fprobe_fgraph))]
    // SAFETY: Caller.
    unsafe {
        (*fp).nr_maxactive = maxactive as i32
    };
}

/// The module's `module!` invocation, in the form the kernel crate takes.
#[cfg(rfprobe_kcrate_pin_init)]
macro_rules! rfprobe_module {
    (type: $t:tt, name: $n:tt, author: $a:tt, description: $d:tt, license: $l:tt,) => {
        module! {
            type: $t,
            name: $n,
            authors: [$a],
            description: $d,
            license: $l,
        }
    };
}
#[cfg(not(rfprobe_kcrate_pin_init))]
macro_rules! rfprobe_module {
    (type: $t:tt, name: $n:tt, author: $a:tt, description: $d:tt, license: $l:tt,) => {
        module! {
            type: $t,
            name: $n,
            author: $a,
            description: $d,
            license: $l,
        }
    };
}
pub(crate) use rfprobe_module;

// This CPU's current task and preempt count, for trace_fprobe/cpu.rs: the
// per-CPU symbol (a `%gs`-relative operand, never read as a Rust static)
// and the offset in it, as asm text (an asm `const` operand needs rustc
// 1.82; 6.12 accepts 1.78). rust/rfprobe_bindings.h's constants check them.
#[cfg(rfprobe_pcpu_hot)]
mod pcpu_syms {
    extern "C" {
        /// `DEFINE_PER_CPU(struct pcpu_hot, pcpu_hot)`.
        pub(crate) static pcpu_hot: u8;
    }
}
#[cfg(rfprobe_pcpu_hot)]
pub(crate) use pcpu_syms::{pcpu_hot as CURRENT_TASK, pcpu_hot as PREEMPT_COUNT};
#[cfg(rfprobe_pcpu_hot)]
const _: () = assert!(bindings::RFPROBE_CONST_PCPU_HOT_CURRENT_TASK == 0);
#[cfg(rfprobe_pcpu_hot)]
const _: () = assert!(bindings::RFPROBE_CONST_PCPU_HOT_PREEMPT_COUNT == 8);
#[cfg(not(rfprobe_pcpu_hot))]
mod pcpu_syms {
    extern "C" {
        /// `DEFINE_PER_CPU_CACHE_HOT(struct task_struct *, current_task)`.
        pub(crate) static current_task: u8;
        /// `DEFINE_PER_CPU_CACHE_HOT(unsigned long, __preempt_count)` (or
        /// `int` without 64-bit preempt counts).
        pub(crate) static __preempt_count: u8;
    }
}
#[cfg(not(rfprobe_pcpu_hot))]
pub(crate) use pcpu_syms::{__preempt_count as PREEMPT_COUNT, current_task as CURRENT_TASK};

/// The offsets in [`CURRENT_TASK`] and [`PREEMPT_COUNT`], as asm text.
#[cfg(rfprobe_pcpu_hot)]
macro_rules! pcpu_off {
    (current_task) => {
        "0"
    };
    (preempt_count) => {
        "8"
    };
}
#[cfg(not(rfprobe_pcpu_hot))]
macro_rules! pcpu_off {
    (current_task) => {
        "0"
    };
    (preempt_count) => {
        "0"
    };
}
pub(crate) use pcpu_off;

/// The preempt count's increment and decrement instructions (its width).
#[cfg(all(CONFIG_PREEMPT_COUNT, CONFIG_HAS_SEPARATE_PREEMPT_RESCHED_BITS))]
macro_rules! preempt_count_op {
    (inc) => {
        "incq"
    };
    (dec) => {
        "decq"
    };
}
#[cfg(all(CONFIG_PREEMPT_COUNT, not(CONFIG_HAS_SEPARATE_PREEMPT_RESCHED_BITS)))]
macro_rules! preempt_count_op {
    (inc) => {
        "incl"
    };
    (dec) => {
        "decl"
    };
}
#[cfg(CONFIG_PREEMPT_COUNT)]
pub(crate) use preempt_count_op;
const _: () = assert!(
    bindings::RFPROBE_CONST_PREEMPT_COUNT_SIZE
        == if cfg!(CONFIG_HAS_SEPARATE_PREEMPT_RESCHED_BITS) {
            8
        } else {
            4
        }
);
