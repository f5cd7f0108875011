/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bindgen input for rfprobe: the kernel headers whose APIs the module uses.
 * Only what rust/bindgen_parameters allow-lists is generated.
 */
#include <linux/debugfs.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include "rfprobe_helpers.h"
