#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# Run one job inside User-Mode Linux and return the job's exit status.
#
#   uml_run.sh --helper PATH [--timeout SECS] [--mem SIZE] [--env KEY=VALUE]... [--keep] -- COMMAND [ARGS...]
#
# --env puts KEY=VALUE on the kernel command line: init and the job see it in
# their environment (no spaces). init itself understands UML_NO_HMAC=1 (do not
# load hmac: kernel SCTP listeners then fail with ENOSYS, for testing that).
# Boots /usr/bin/linux.uml (Debian's user-mode-linux: kernel 6.1 with the sctp,
# hmac, tun and veth modules) with the host's / as a read-only hostfs root and
# tests/uml/init.sh as init. init mounts the usual pseudo file systems, loads
# sctp and hmac, runs COMMAND ARGS (host paths; the whole host tree is visible
# read-only, /tmp is a fresh tmpfs), writes its exit status to the results
# directory and powers off. UML exits 0 either way, so the verdict is that
# result file. A UML that does not finish in time is killed (whole process group).
# Exit: the job's status; 1 on timeout or no result; 77 when UML is missing.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
UML=${UML_KERNEL:-/usr/bin/linux.uml}
TIMEOUT=120
MEM=512M
KEEP=0
HELPER=
EXTRA=${UML_EXTRA:-}
while [ $# -gt 0 ]; do
	case $1 in
	--helper) HELPER=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--env) EXTRA="$EXTRA $2"; shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
if [ $# -lt 1 ] || [ -z "$HELPER" ]; then
	echo "usage: uml_run.sh --helper PATH [--timeout SECS] [--mem SIZE] [--env K=V]... [--keep] -- COMMAND [ARGS...]" >&2
	exit 2
fi
# Absolute: init runs from / inside UML.
HELPER=$(cd "$(dirname "$HELPER")" && pwd)/$(basename "$HELPER")
if [ ! -x "$UML" ]; then
	echo "SKIP: $UML not found (Debian package user-mode-linux)"
	exit 77
fi
if [ ! -d /usr/lib/uml/modules ]; then
	echo "SKIP: /usr/lib/uml/modules missing (user-mode-linux package incomplete)"
	exit 77
fi

R=$(mktemp -d /tmp/uml-results.XXXXXX)
cleanup() {
	[ -n "${UPID:-}" ] && kill -KILL -- "-$UPID" 2>/dev/null
	if [ "$KEEP" = 1 ]; then echo "uml_run: results kept in $R"; else rm -rf "$R"; fi
}
trap cleanup EXIT INT TERM

# The job script: run from the caller's directory (visible read-only in UML),
# every argument single-quoted for sh.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
	printf 'cd %s || exit 1\n' "$(q "$(pwd)")"
	printf 'exec'
	for a in "$@"; do
		printf ' %s' "$(q "$a")"
	done
	printf '\n'
} >"$R/job.sh"

# init mounts a fresh tmpfs on /tmp, which would hide a checkout, build or
# working directory that lives under the host's /tmp (CI clones often do):
# name their top-level /tmp/<dir> so init mounts them back (hostfs, read-only).
BIND=
for p in "$HERE" "$HELPER" "$(pwd)"; do
	case $p in
	/tmp/*)
		top=/tmp/$(printf '%s' "${p#/tmp/}" | cut -d/ -f1)
		case ":$BIND:" in *":$top:"*) ;; *) BIND="${BIND:+$BIND:}$top" ;; esac
		;;
	esac
done
[ -n "$BIND" ] && EXTRA="$EXTRA UML_BIND=$BIND"

# setsid: UML and its helper processes form one process group we can kill.
# umlhelper launch: works around the 6.1 UML / large-XSAVE-host FP bug (see
# umlhelper.c). With that fallback UML carries only the FXSAVE image (x87/SSE)
# of guest processes, so AVX register state is not preserved across fork and
# context switches and glibc's AVX2/AVX-512 string functions corrupt data
# (seen: mangled file names after fork). The guest environment therefore tells
# glibc and OpenSSL not to use AVX (GLIBC_TUNABLES, OPENSSL_ia32cap: clear the
# AVX bit and every CPUID.7 extension). Unknown KEY=VALUE words on the kernel
# command line reach init as environment variables.
TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2,-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-AVX_Fast_Unaligned_Load,-ERMS,-FSRM
setsid "$HELPER" launch "$UML" mem="$MEM" root=/dev/root rootfstype=hostfs rootflags=/ ro \
	init="$HERE/init.sh" UML_RESULTS="$R" UML_HELPER="$HELPER" \
	GLIBC_TUNABLES="$TUNABLES" OPENSSL_ia32cap="~0x1000000000000000:0" \
	$EXTRA umid="solocore-$$" uml_dir="$R" con=null con0=null,fd:1 \
	</dev/null >"$R/console.log" 2>&1 &
UPID=$!
ticks=0
timedout=0
while kill -0 "$UPID" 2>/dev/null; do
	if [ $ticks -ge $((TIMEOUT * 10)) ]; then
		kill -KILL -- "-$UPID" 2>/dev/null
		timedout=1
		break
	fi
	sleep 0.1
	ticks=$((ticks + 1))
done
wait "$UPID" 2>/dev/null
UPID=

show() { [ -f "$R/$1" ] && { echo "---- uml $1"; cat "$R/$1"; }; }
if [ $timedout = 1 ]; then
	echo "FAIL: UML did not power off within $TIMEOUT s; killed"
	show init.log; show job.log
	echo "---- uml console (tail)"; tail -n 40 "$R/console.log"
	exit 1
fi
if [ ! -f "$R/rc" ]; then
	echo "FAIL: the job left no result (UML crashed or init failed)"
	show init.log; show job.log
	echo "---- uml console (tail)"; tail -n 40 "$R/console.log"
	exit 1
fi
show init.log
show job.log
rc=$(cat "$R/rc")
echo "uml_run: job exit status $rc (boot to power-off $((ticks / 10)).$((ticks % 10)) s)"
exit "$rc"
