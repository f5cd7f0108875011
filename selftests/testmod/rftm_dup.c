// SPDX-License-Identifier: GPL-2.0
/* The second of two static functions named rftm_same (see rftm_main.c). */
#include <linux/compiler.h>
#include "rftm.h"

static RFTM_PROBED int rftm_same(struct rftm_obj *o, int tag)
{
	return (int)READ_ONCE(o->id) * 100 + tag;
}

int rftm_call_dup_b(struct rftm_obj *o, int tag)
{
	return rftm_same(o, tag);
}
