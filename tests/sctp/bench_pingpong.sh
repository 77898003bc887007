#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# N2 transport benchmark: a 100-byte ping-pong between two processes (n2echo
# server and client), one message in flight; prints round trips/s and
# messages/s (2 per round trip). Not a pass/fail test (suite 'bench').
#   bench_pingpong.sh N2ECHO [SECONDS] [UML_RUN UMLHELPER JOB]
# usrsctp with UDP encapsulation on 127.0.0.1 always; with the last three
# arguments also kernel SCTP on loopback inside User-Mode Linux.
set -u
N2ECHO=$1
SECS=${2:-5}
TMP=$(mktemp -d)
trap 'kill ${SRV:-} 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM
"$N2ECHO" server --backend usrsctp --encap udp --port 0 --udp-port 0 --assocs 1 --timeout $((SECS + 30)) \
	--ready "$TMP/ready" >"$TMP/server.log" 2>&1 &
SRV=$!
i=0
while [ ! -f "$TMP/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
read -r PORT UPORT <"$TMP/ready"
"$N2ECHO" client --backend usrsctp --encap udp --port "$PORT" --udp-peer-port "$UPORT" --size 100 \
	--pingpong "$SECS" 2>/dev/null | grep '^pingpong' | sed 's/^/usrsctp-udp-loopback: /'
wait $SRV
SRV=
if [ $# -ge 5 ]; then
	"$3" --helper "$4" --timeout $((SECS + 60)) -- "$5" "$N2ECHO" "$SECS" 2>/dev/null | grep '^pingpong' |
		sed 's/^/kernel-sctp-in-uml: /'
fi
