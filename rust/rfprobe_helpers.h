/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C side of rfprobe (rust/helpers/, one file per subsystem): what Rust
 * cannot call or express itself (static inlines and macros, callbacks whose
 * C types Rust cannot carry, the tracepoint probe and watchpoint handlers,
 * the direct record path). This header is bindgen's view of all of it
 * (rfprobe_bindings.h); each helpers/X.c includes its own helpers/X.h.
 */
#ifndef RFPROBE_HELPERS_H
#define RFPROBE_HELPERS_H

#include "rfprobe_compat.h"
#include "helpers/module.h"
#include "helpers/kernel.h"
#include "helpers/cpu.h"
#include "helpers/nofault.h"
#include "helpers/env.h"
#include "helpers/events.h"
#include "helpers/ring.h"
#include "helpers/perf.h"
#include "helpers/ftrace.h"
#include "helpers/direct.h"
#include "helpers/tracepoint.h"
#include "helpers/watch.h"

#endif /* RFPROBE_HELPERS_H */
