#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# n2sctp association failures between processes, usrsctp over UDP on 127.0.0.1
# (no root needed). A killed usrsctp process sends nothing, like a gNB that
# loses power:
#  1. comm lost: the server, with 100 ms heartbeats and at most 2
#     retransmissions, reports down(comm-lost) for the dead client;
#  2. restart:   the client comes back on the same SCTP and UDP ports; the
#     server reports down(restart) then up on the same handle (RFC 9260
#     5.2.4.1), and the new association carries a full echo check.
# Usage: e2e_failures.sh N2ECHO
set -u
N2ECHO=$1
TMP=$(mktemp -d)
trap 'for p in ${SRV:-} ${CLI:-}; do kill -9 $p 2>/dev/null; done; rm -rf "$TMP"' EXIT INT TERM
FAST="--hb 100 --rto-min 50 --rto-initial 100 --rto-max 200 --max-retrans 2"
fail() { echo "FAIL: $*"; for f in "$TMP"/*.log; do echo "---- $f"; grep -v " INFO " "$f"; done; exit 1; }

wait_for() { # FILE PATTERN: up to 20 s
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		[ $i -ge 200 ] && return 1
		sleep 0.1; i=$((i + 1))
	done
}

start_server() { # NAME ASSOCS
	rm -f "$TMP/ready"
	# shellcheck disable=SC2086
	"$N2ECHO" server --backend usrsctp --encap udp --port 0 --udp-port 0 --assocs "$2" --timeout 60 $FAST \
		--ready "$TMP/ready" >"$TMP/$1.log" 2>&1 &
	SRV=$!
	wait_for "$TMP/ready" . || fail "server did not start"
	read -r PORT UPORT <"$TMP/ready"
}

# 1. comm lost
start_server srv-commlost 1
"$N2ECHO" client --backend usrsctp --encap udp --port "$PORT" --udp-peer-port "$UPORT" --pingpong 60 \
	>"$TMP/cli-commlost.log" 2>&1 &
CLI=$!
wait_for "$TMP/srv-commlost.log" "assoc 1 up" || fail "client did not come up"
kill -9 $CLI; wait $CLI 2>/dev/null; CLI=
wait $SRV || fail "server (comm lost) failed"
SRV=
grep -q "assoc 1 down (comm-lost)" "$TMP/srv-commlost.log" || fail "no down(comm-lost) for the dead client"
echo "ok: dead peer reported as comm-lost"

# 2. restart: same local SCTP port and UDP port
start_server srv-restart 2
LP=$((40000 + $$ % 9000))
LU=$((50000 + $$ % 9000))
"$N2ECHO" client --backend usrsctp --encap udp --port "$PORT" --udp-peer-port "$UPORT" --local-port $LP \
	--udp-port $LU --pingpong 60 >"$TMP/cli-1.log" 2>&1 &
CLI=$!
wait_for "$TMP/srv-restart.log" "assoc 1 up" || fail "first client did not come up"
kill -9 $CLI; wait $CLI 2>/dev/null; CLI=
"$N2ECHO" client --backend usrsctp --encap udp --port "$PORT" --udp-peer-port "$UPORT" --local-port $LP \
	--udp-port $LU --msgs 200 --timeout 30 >"$TMP/cli-2.log" 2>&1 || fail "restarted client's echo check"
wait $SRV || fail "server (restart) failed"
SRV=
grep -q "assoc 1 down (restart)" "$TMP/srv-restart.log" || fail "no down(restart)"
[ "$(grep -c "assoc 1 up" "$TMP/srv-restart.log")" = 2 ] || fail "handle not re-announced up after restart"
grep -q "assoc 1 down (shutdown)" "$TMP/srv-restart.log" || fail "restarted association did not shut down cleanly"
echo "ok: peer restart reported as down(restart) + up on the same handle; echo check passed after it"
echo "PASS"
