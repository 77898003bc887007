#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# Issue 15 item 8: how long a 15 MiB subscriber import over the API holds up signalling.
#
#   e2e_web_stall.sh SOLOCORE SOLOCORE_LOAD     (a figure, not a pass/fail bound: suite bench)
#   env: PRELOAD (240000) SIMs in the database first (the UDM store is sized from them: room
#        for the import); IMPORT (56200) SIMs of ~300 bytes in the 15 MiB body; LOAD_S (20)
#
# `solocore run` on loopback (usrsctp over UDP, no root), `solocore-load register` with 200
# UEs re-registering at concurrency 16 for LOAD_S seconds; 5 s in, the import is POSTed.
# Printed: the import's answer and time, and solocore-load's per-procedure p50/p99/max,
# which holds the worst NGAP round trip of the run (the stall). Run it with the binary
# before and after a change, back to back.
set -u
SOLOCORE=$1 LOAD=$2
PRELOAD=${PRELOAD:-240000} IMPORT=${IMPORT:-56200} LOAD_S=${LOAD_S:-20}
TMP=$(mktemp -d /tmp/solocore-stall-XXXXXX)
CORE=
trap '[ -n "$CORE" ] && kill $CORE 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
command -v curl >/dev/null 2>&1 || { echo "SKIP: curl not found"; exit 77; }
port() { python3 -c 'import socket,sys; s=socket.socket(socket.AF_INET, getattr(socket, sys.argv[1])); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' "$1"; }
N2=$(port SOCK_STREAM) UDP=$(port SOCK_DGRAM) WEB=$(port SOCK_STREAM) LUDP=$(port SOCK_DGRAM)
"$SOLOCORE" sims generate --count "$PRELOAD" --imsi-start 001010000000001 --random-keys >"$TMP/pre.toml"
"$SOLOCORE" sims import "$TMP/pre.toml" --db "$TMP/s.db" >/dev/null || exit 1
python3 - "$TMP/imp.toml" "$IMPORT" <<'PY'
import os, sys
out, n = sys.argv[1], int(sys.argv[2])
with open(out, "w") as f:
    for i in range(n):
        f.write('[imsi-00101%010d]\nki = "%s"\nopc = "%s"\n' % (500000000 + i, os.urandom(16).hex(), os.urandom(16).hex()))
        f.write('dnns = ["internet", "ims", "iot.example", "video.example"]\n')
        f.write('slices = [{ sst = 1, sd = "010203" }, { sst = 2 }]\n')
        f.write('ambr_ul = 100000000\nambr_dl = 1000000000\ndefault_5qi = 9\narp = 8\n\n')
PY
cat >"$TMP/run.yaml" <<Y
db: { path: "$TMP/s.db" }
web: { listen: "127.0.0.1", port: $WEB }
n2:
  address: "127.0.0.1"
  port: $N2
  sctp: usrsctp
  usrsctp_encaps: udp
  udp_port: $UDP
Y
SOLOCORE_WEB_TOKEN=stall-token-4711 "$SOLOCORE" run -c "$TMP/run.yaml" >"$TMP/core.log" 2>&1 &
CORE=$!
for i in $(seq 100); do curl -sf "127.0.0.1:$WEB/api/v1/health" >/dev/null && break; sleep 0.1; done
echo "import body: $(wc -c <"$TMP/imp.toml") bytes, $IMPORT SIMs; $PRELOAD SIMs preloaded"
"$LOAD" register --sims "$TMP/pre.toml" --addr 127.0.0.1 --port "$N2" --encap udp \
	--udp-port "$LUDP" --udp-peer-port "$UDP" --ues 200 --concurrency 16 --dereg normal \
	--passes 1000000 --duration "$LOAD_S" --json --no-progress >"$TMP/load.json" 2>"$TMP/load.err" &
LP=$!
sleep 5
curl -s -o "$TMP/imp.out" -w 'import: HTTP %{http_code} in %{time_total} s\n' \
	-H 'Authorization: Bearer stall-token-4711' --data-binary @"$TMP/imp.toml" \
	"127.0.0.1:$WEB/api/v1/subscribers/import"
cat "$TMP/imp.out"; echo
wait $LP; echo "solocore-load exit $?"
python3 - "$TMP/load.json" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print("no JSON report:", e); sys.exit(0)
def walk(o, p=""):
    if isinstance(o, dict):
        for k, v in o.items():
            walk(v, p + "." + k if p else k)
    elif isinstance(o, (int, float)) and any(x in p for x in ("max", "p99", "p50", "msgs", "errors", "cycles")):
        print("%s = %s" % (p, o))
walk(j)
PY
tail -3 "$TMP/load.err"
