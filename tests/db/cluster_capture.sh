#!/bin/bash
# SPDX-License-Identifier: AGPL-3.0-or-later
# Issue 31 point 1 (adversary): K and OPc never cross the cluster link in clear. In a private
# network namespace (only its own loopback), a real dqlite node (`test_cluster --node`, behind
# the mutual-TLS terminator as solocore runs it), tshark capturing lo while
# `solocore sims import --cluster` writes a SIM with a known K and OPc through it. The capture
# must hold the import's traffic (TLS 1.3 records to the node's port: ClientHello seen, the
# import answered "imported 1") and neither K nor OPc: not as the 16 raw bytes dqlite sends a
# BLOB parameter as, nor as hex text in either case.
# Usage: cluster_capture.sh SOLOCORE TEST_CLUSTER TSHARK
set -u
SOLOCORE=$(readlink -f "${1:?solocore binary}")
NODE=$(readlink -f "${2:?test_cluster binary}")
TSHARK=${3:-tshark}
[ "$(id -u)" = 0 ] || { echo "FAIL: needs root (a network namespace and a capture on its lo)"; exit 1; }
[ -x "$TSHARK" ] || TSHARK=$(command -v "$TSHARK") || { echo "FAIL: tshark not found: cannot check the capture"; exit 1; }
# Its own namespace: the capture sees only this test's loopback.
[ -n "${CAPTURE_IN_NS:-}" ] || exec unshare -n env CAPTURE_IN_NS=1 "$0" "$SOLOCORE" "$NODE" "$TSHARK"
ip link set lo up || { echo "FAIL: lo up in the namespace"; exit 1; }

T=$(mktemp -d /tmp/solocore-capture-XXXXXX)
K=7C3F0A5D19E4B28866D1F0A3C5E79B12
OPC=A1B2C3D4E5F60718293A4B5C6D7E8F90
PORT=$((20000 + RANDOM % 10000))
NODE_PID= CAP_PID=
cleanup() {
	[ -n "$CAP_PID" ] && kill "$CAP_PID" 2>/dev/null && wait "$CAP_PID" 2>/dev/null
	[ -n "$NODE_PID" ] && kill -9 "$NODE_PID" 2>/dev/null && wait "$NODE_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

"$SOLOCORE" cluster init --dir "$T/n1" --name n1 >/dev/null || { echo "FAIL: cluster init"; exit 1; }
"$NODE" --node 1 "127.0.0.1:$PORT" "$T/n1" >"$T/node.out" 2>"$T/node.err" &
NODE_PID=$!
for _ in $(seq 300); do grep -q ready "$T/node.out" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$T/node.out" || { echo "FAIL: node did not start"; cat "$T/node.err"; exit 1; }

PROBE=$((PORT + 1))
"$TSHARK" -i lo -f "tcp port $PORT or udp port $PROBE" -w "$T/link.pcap" -q 2>"$T/tshark.err" &
CAP_PID=$!
for _ in $(seq 100); do grep -q "Capturing on" "$T/tshark.err" 2>/dev/null && break; sleep 0.1; done
grep -q "Capturing on" "$T/tshark.err" || { echo "FAIL: tshark did not start: $(cat "$T/tshark.err")"; exit 1; }
# "Capturing on" comes before packets are really taken (the first handshake was missing from
# some captures): UDP probes until one is in the file, so the import is captured from its SYN.
live=0
for _ in $(seq 100); do
	echo probe >"/dev/udp/127.0.0.1/$PROBE" 2>/dev/null
	[ "$("$TSHARK" -r "$T/link.pcap" -Y "udp.port == $PROBE" 2>/dev/null | wc -l)" -ge 1 ] && { live=1; break; }
	sleep 0.1
done
[ "$live" = 1 ] || { echo "FAIL: the capture never saw a probe: $(cat "$T/tshark.err")"; exit 1; }

printf '[imsi-001010000000077]\nki = "%s"\nopc = "%s"\n' "$K" "$OPC" >"$T/sims.toml"
"$SOLOCORE" sims import "$T/sims.toml" --cluster "127.0.0.1:$PORT" --cluster-dir "$T/n1" 2>"$T/import.err"; rc=$?
sleep 0.5
kill -INT "$CAP_PID"; wait "$CAP_PID" 2>/dev/null; CAP_PID=
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

[ "$rc" = 0 ] && grep -q "imported 1 " "$T/import.err" && echo "ok: sims import --cluster imported the SIM (K crossed the link)" ||
	{ fail "import rc=$rc: $(cat "$T/import.err")"; }
pkts=$("$TSHARK" -r "$T/link.pcap" -Y "tcp.port == $PORT" 2>/dev/null | wc -l)
hello=$("$TSHARK" -r "$T/link.pcap" -d "tcp.port==$PORT,tls" -Y "tls.handshake.type == 1" 2>/dev/null | wc -l)
echo "capture: $pkts packets on port $PORT, $hello TLS ClientHello(s)"
[ "$pkts" -ge 10 ] && [ "$hello" -ge 1 ] || fail "the capture does not hold the import's TLS traffic"
# Nothing of the link in clear: K and OPc as raw bytes (the BLOB parameters) or as hex text.
python3 - "$T/link.pcap" "$K" "$OPC" <<'PY' || fails=$((fails + 1))
import sys
data = open(sys.argv[1], "rb").read()
bad = []
for name, h in (("K", sys.argv[2]), ("OPc", sys.argv[3])):
    for form, needle in (("raw", bytes.fromhex(h)), ("hex", h.encode()), ("hex lower", h.lower().encode())):
        if needle in data:
            bad.append(f"{name} as {form}")
print("capture: K / OPc found: " + (", ".join(bad) if bad else "none") + f" ({len(data)} bytes of pcap)")
if bad:
    print("FAIL: secrets in clear on the cluster link")
sys.exit(1 if bad else 0)
PY
[ "$fails" = 0 ] && echo "PASS: cluster link capture" || echo "$fails failure(s)"
[ "$fails" = 0 ]
