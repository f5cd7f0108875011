#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: set-up, fast test kernel, module, boot, and a short demonstration.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$RFPROBE_TOP"
selftests/setup.sh
kdir=$(selftests/build-kernel.sh fast)
ko=$(selftests/build-module.sh "$kdir" build/fast)
selftests/run-vm.sh -k fast -m "$ko" -c "$(cat selftests/demo-guest.sh)"
