#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# n2sctp end to end over usrsctp raw IP (protocol 132, as real gNBs speak it):
# an n2echo server in one network namespace, two n2echo clients in another,
# joined by a veth pair. Needs root and `ip netns`; exits 77 (skip) otherwise.
# Usage: e2e_netns.sh /path/to/n2echo
set -u
N2ECHO=${1:?usage: e2e_netns.sh N2ECHO}

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (network namespaces, raw IP sockets)"
	exit 77
fi
if ! command -v ip >/dev/null 2>&1; then
	echo "SKIP: iproute2 'ip' not found"
	exit 77
fi

tag=n2s$$
NS_S=$tag-s
NS_C=$tag-c
TMP=$(mktemp -d)
cleanup() {
	[ -n "${SRV_PID:-}" ] && kill "$SRV_PID" 2>/dev/null
	ip netns del "$NS_S" 2>/dev/null
	ip netns del "$NS_C" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

if ! ip netns add "$NS_S" 2>"$TMP/err"; then
	echo "SKIP: 'ip netns add' failed: $(cat "$TMP/err")"
	exit 77
fi
ip netns add "$NS_C" || exit 1
ip link add "${tag}a" type veth peer name "${tag}b" || { echo "FAIL: veth"; exit 1; }
ip link set "${tag}a" netns "$NS_S" && ip link set "${tag}b" netns "$NS_C" || exit 1
ip -n "$NS_S" addr add 10.38.41.1/24 dev "${tag}a" && ip -n "$NS_C" addr add 10.38.41.2/24 dev "${tag}b" || exit 1
for ns in "$NS_S" "$NS_C"; do ip -n "$ns" link set lo up; done
ip -n "$NS_S" link set "${tag}a" up && ip -n "$NS_C" link set "${tag}b" up || exit 1

ip netns exec "$NS_S" "$N2ECHO" server --backend usrsctp --encap raw --addr 10.38.41.1 --port 38412 \
	--assocs 2 --timeout 60 --ready "$TMP/ready" >"$TMP/server.log" 2>&1 &
SRV_PID=$!
i=0
while [ ! -f "$TMP/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ ! -f "$TMP/ready" ]; then
	echo "FAIL: server did not start"; cat "$TMP/server.log"; exit 1
fi

rc=0
ip netns exec "$NS_C" "$N2ECHO" client --backend usrsctp --encap raw --addr 10.38.41.1 --port 38412 \
	--msgs 300 --timeout 30 >"$TMP/client1.log" 2>&1 &
C1=$!
ip netns exec "$NS_C" "$N2ECHO" client --backend usrsctp --encap raw --addr 10.38.41.1 --port 38412 \
	--msgs 300 --timeout 30 >"$TMP/client2.log" 2>&1 &
C2=$!
wait $C1 || rc=1
wait $C2 || rc=1
wait $SRV_PID || rc=1
SRV_PID=
for f in server client1 client2; do echo "---- $f"; grep -v " INFO " "$TMP/$f.log"; done
if [ $rc = 0 ]; then echo "PASS: 2 clients x 300 messages echoed over usrsctp raw IP between namespaces"; fi
exit $rc
