#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# UML job (boot with --env UML_NO_HMAC=1): without the hmac module the kernel
# cannot sign SCTP cookies and listen() fails with ENOSYS. n2sctp must fail
# the listener with -ENOSYS and say what to do; checked on n2echo's output.
# Usage: job_sctp_kernel_enosys.sh N2ECHO
set -u
N2ECHO=$1
if grep -q '^hmac ' /proc/modules; then
	echo "FAIL: hmac is loaded; boot with --env UML_NO_HMAC=1"; exit 1
fi
"$N2ECHO" server --backend kernel --addr 127.0.0.1 --port 38412 >/tmp/out 2>&1
rc=$?
cat /tmp/out
if [ $rc = 0 ]; then echo "FAIL: listener came up without hmac"; exit 1; fi
for want in "ENOSYS" "net.sctp.cookie_hmac_alg=md5" "modprobe hmac" "n2.sctp: usrsctp" "Function not implemented"; do
	if ! grep -qF "$want" /tmp/out; then echo "FAIL: report lacks '$want'"; exit 1; fi
done
# And the documented way out without hmac: cookie_hmac_alg=none.
echo none >/proc/sys/net/sctp/cookie_hmac_alg
"$N2ECHO" server --backend kernel --addr 127.0.0.1 --port 38412 --assocs 1 --timeout 30 --ready /tmp/ready >/tmp/srv 2>&1 &
i=0
while [ ! -f /tmp/ready ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
"$N2ECHO" client --backend kernel --addr 127.0.0.1 --port 38412 --msgs 50 || { cat /tmp/srv; echo "FAIL: with cookie_hmac_alg=none"; exit 1; }
wait
echo "PASS: listener refused with ENOSYS and a clear report; works with cookie_hmac_alg=none"
