#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# UML job: n2sctp's kernel backend for real. An n2echo server and client over
# kernel SCTP on loopback: 500 messages over 16 streams checked, graceful
# shutdown; then (optional) a 100-byte ping-pong for PINGPONG_SECS.
# Usage (inside UML, via uml_run.sh): job_sctp_kernel_echo.sh N2ECHO [PINGPONG_SECS]
set -u
N2ECHO=$1
PP=${2:-0}
ASSOCS=1
[ "$PP" != 0 ] && ASSOCS=2
"$N2ECHO" server --backend kernel --addr 127.0.0.1 --port 38412 --assocs $ASSOCS --timeout 60 \
	--ready /tmp/ready >/tmp/server.log 2>&1 &
SRV=$!
i=0
while [ ! -f /tmp/ready ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ ! -f /tmp/ready ]; then
	echo "FAIL: kernel SCTP server did not start"; cat /tmp/server.log; exit 1
fi
rc=0
"$N2ECHO" client --backend kernel --addr 127.0.0.1 --port 38412 --msgs 500 --timeout 30 || rc=1
if [ "$PP" != 0 ]; then
	"$N2ECHO" client --backend kernel --addr 127.0.0.1 --port 38412 --pingpong "$PP" || rc=1
fi
wait $SRV || rc=1
echo "---- server"; cat /tmp/server.log
exit $rc
