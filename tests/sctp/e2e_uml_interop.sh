#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# Wire compatibility of the usrsctp raw-IP backend with Linux kernel SCTP:
# a network namespace holds a TAP device; User-Mode Linux (kernel SCTP) is
# attached to it and runs tests/uml/job_sctp_interop.sh; on the host side
# n2echo runs usrsctp over raw IP, first as server then as client. Both
# directions exchange 300 messages over 16 streams and shut down gracefully.
# Usage: e2e_uml_interop.sh UML_RUN UMLHELPER N2ECHO JOB
# Exit 77 (skip) without root, `ip netns`, TUN/TAP or UML.
set -u
UML_RUN=$1 HELPER=$2 N2ECHO=$3 JOB=$4
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (netns, TAP, raw IP)"; exit 77; fi
if [ ! -x /usr/bin/linux.uml ]; then echo "SKIP: /usr/bin/linux.uml not found (user-mode-linux)"; exit 77; fi
if [ ! -c /dev/net/tun ]; then echo "SKIP: /dev/net/tun missing"; exit 77; fi
NS=n2iop$$
TMP=$(mktemp -d)
cleanup() {
	for p in ${SRV:-} ${CLI:-}; do kill "$p" 2>/dev/null; done
	ip netns del "$NS" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
if ! ip netns add "$NS" 2>"$TMP/err"; then echo "SKIP: 'ip netns add' failed: $(cat "$TMP/err")"; exit 77; fi
if ! ip -n "$NS" tuntap add dev t0 mode tap 2>"$TMP/err"; then echo "SKIP: no TAP device: $(cat "$TMP/err")"; exit 77; fi
ip -n "$NS" addr add 10.38.42.1/24 dev t0 && ip -n "$NS" link set t0 up && ip -n "$NS" link set lo up || exit 1

# 1: our usrsctp server for the kernel client.
ip netns exec "$NS" "$N2ECHO" server --backend usrsctp --encap raw --addr 10.38.42.1 --port 38412 \
	--assocs 1 --timeout 90 >"$TMP/server.log" 2>&1 &
SRV=$!
# 2: our usrsctp client, retried until the kernel server in UML listens
# (before that the kernel answers INIT with ABORT, or nobody answers at all).
(
	i=0
	while [ $i -lt 60 ]; do
		if ip netns exec "$NS" "$N2ECHO" client --backend usrsctp --encap raw --addr 10.38.42.2 \
			--port 38412 --msgs 300 --timeout 5 >"$TMP/client.log" 2>&1; then exit 0; fi
		sleep 0.5
		i=$((i + 1))
	done
	exit 1
) &
CLI=$!

rc=0
ip netns exec "$NS" "$UML_RUN" --helper "$HELPER" --timeout 120 --env eth0=tuntap,t0 -- "$JOB" "$N2ECHO" || rc=1
wait "$SRV" || { echo "FAIL: usrsctp server"; rc=1; }
SRV=
wait "$CLI" || { echo "FAIL: usrsctp client never completed against the kernel server"; rc=1; }
CLI=
echo "---- host usrsctp server"; grep -v " INFO " "$TMP/server.log"
echo "---- host usrsctp client (last attempt)"; grep -v " INFO " "$TMP/client.log"
[ $rc = 0 ] && echo "PASS: kernel SCTP <-> usrsctp raw IP, both directions"
exit $rc
