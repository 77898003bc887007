#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# UML job (tests/uml/uml_run.sh): registration over kernel SCTP for real. The core with
# n2.sctp: kernel and ransim --backend kernel on loopback inside User-Mode Linux (whose
# kernel has SCTP): 10 UEs register (SUCI profile A), answer the configuration update and
# deregister; the AMF counters agree.
# Usage (inside UML): job_reg_kernel.sh SOLOCORE E2E_CORE RANSIM
set -u
SOLOCORE=$1 CORE=$2 RANSIM=$3
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
TMP=$(mktemp -d /tmp/e2e-uml.XXXXXX)
NSC= NSR=
CORE_PID=
trap 'stop_ransim; stop_core' EXIT

gen_sims "$TMP/sims.toml" 10 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/core.yaml" 127.0.0.1 kernel
start_core "$TMP/core.yaml" || exit 1
run_ransim kernel -c "$TMP/core.yaml" --addr 127.0.0.1 --backend kernel --cuc --suci A \
	--sims "$TMP/sims.toml" --ues 10 --concurrency 5 --timeout 60
expect kernel ues_ok 10; expect kernel ues_registered 10; expect kernel ues_failed 0
expect kernel cuc_received 10; expect kernel ngap_tx 81; expect kernel ngap_rx 61
expect_rc kernel 0
core_stats
expect_stat reg_accepted 10; expect_stat dereg_ue 10
stop_core
if [ $FAILS != 0 ]; then show_logs; exit 1; fi
echo "PASS: 10 UEs registered and deregistered over kernel SCTP"
grep -E '^(ues_ok|proc registration|elapsed_ms)' "$TMP/kernel.out"
exit 0
