#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# Issue 15: how long each listing endpoint holds the control loop with many subscribers.
#
#   bench_web_list.sh SOLOCORE       (a figure, not a pass/fail bound: suite bench)
#   env: SUBS (1000000) SIMs in the database, all on one policy; ROUNDS (5) per request
#
# `solocore run` on loopback with SUBS SIMs (`sims generate` + `sims import`, then every SIM put
# on policy "p1" with sqlite3). A probe client sends GET /api/v1/version back to back on its own
# keep-alive connection; the web server runs on the control thread, so the longest probe
# answer while a request is in flight is how long that request kept the loop from anything
# else (NGAP and NAS included). Each request runs ROUNDS times, the "after a change" ones
# right after a subscriber was created and deleted (a change makes cached counts stale).
# Printed per request: its own time (median, max) and the probe's worst answer during it;
# "idle" is the probe's worst answer with nothing else running.
set -u
SOLOCORE=$1
SUBS=${SUBS:-1000000} ROUNDS=${ROUNDS:-5}
TMP=$(mktemp -d /tmp/solocore-list-XXXXXX)
CORE=
trap '[ -n "$CORE" ] && kill $CORE 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
for p in python3 curl sqlite3; do
	command -v $p >/dev/null 2>&1 || { echo "SKIP: $p not found"; exit 77; }
done
WEB=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
N2=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$SOLOCORE" sims generate --count "$SUBS" --imsi-start 001010000000001 --random-keys >"$TMP/s.toml"
"$SOLOCORE" sims import "$TMP/s.toml" --db "$TMP/s.db" >/dev/null 2>&1 || exit 1
rm -f "$TMP/s.toml"
sqlite3 "$TMP/s.db" "INSERT INTO policies (name, created, updated) VALUES ('p1', 0, 0);
	UPDATE subscribers SET policy = 'p1';" || exit 1
cat >"$TMP/run.yaml" <<Y
db: { path: "$TMP/s.db" }
web: { listen: "127.0.0.1", port: $WEB }
n2: { address: "127.0.0.1", port: $N2, sctp: usrsctp, usrsctp_encaps: udp, udp_port: $N2 }
Y
SOLOCORE_WEB_TOKEN=list-bench-4711 "$SOLOCORE" run -c "$TMP/run.yaml" >"$TMP/core.log" 2>&1 &
CORE=$!
for i in $(seq 600); do curl -sf "127.0.0.1:$WEB/api/v1/health" >/dev/null && break; sleep 0.1; done
echo "bench_web_list: $(date -u +%Y-%m-%dT%H:%MZ) $SUBS subscribers on policy p1, $ROUNDS rounds"
python3 - "$WEB" "$ROUNDS" <<'PY'
import http.client, json, sys, threading, time
port, rounds = int(sys.argv[1]), int(sys.argv[2])
H = {"Authorization": "Bearer list-bench-4711"}
probe, stop = [], threading.Event()

def probe_main():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    while not stop.is_set():
        t0 = time.perf_counter()
        c.request("GET", "/api/v1/version", headers=H)
        c.getresponse().read()
        probe.append((t0, time.perf_counter()))

def req(c, method, path, body=None):
    c.request(method, path, body=body, headers=H)
    r = c.getresponse()
    r.read()
    return r.status

def change(c):
    body = json.dumps({"imsi": "001019999999999", "k": "465B5CE8B199B49FAA5F0A2EE238A6BC",
                       "opc": "E8ED289DEBA952E4283B54E88E6183CA"})
    req(c, "POST", "/api/v1/subscribers", body)
    req(c, "DELETE", "/api/v1/subscribers/001019999999999")

def worst(t0, t1):
    return max((b - a for a, b in list(probe) if b >= t0 and a <= t1), default=0.0)

cases = [
    ("list first page after a change", "/api/v1/subscribers?limit=50", True),
    ("list first page", "/api/v1/subscribers?limit=50", False),
    ("list imsi=0 (prefix of all)", "/api/v1/subscribers?limit=50&imsi=0", False),
    ("list imsi=00101000 (1e7 range)", "/api/v1/subscribers?limit=50&imsi=00101000", False),
    ("list offset=500000", "/api/v1/subscribers?limit=50&offset=500000", False),
    ("list offset=999950", "/api/v1/subscribers?limit=50&offset=999950", False),
    ("list after= cursor, limit=1000", "/api/v1/subscribers?limit=1000&after=001010000500000", False),
    ("metrics after a change", "/metrics", True),
    ("health after a change", "/api/v1/health", True),
    ("stats", "/api/v1/stats", False),
    ("policies (1 policy, all SIMs)", "/api/v1/policies", False),
    ("policy p1", "/api/v1/policies/p1", False),
    ("audit limit=1000", "/api/v1/audit?limit=1000", False),
    ("users", "/api/v1/users", False),
    ("ues limit=1000", "/api/v1/ues?limit=1000", False),
    ("sessions limit=1000", "/api/v1/sessions?limit=1000", False),
]
th = threading.Thread(target=probe_main, daemon=True)
th.start()
time.sleep(1.0)
t0 = time.perf_counter(); time.sleep(2.0)
idle = worst(t0, time.perf_counter())
c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
print("%-34s %6s %10s %10s %12s" % ("request", "status", "med ms", "max ms", "loop stall ms"))
print("%-34s %6s %10s %10s %12.1f" % ("idle (probe alone, 2 s)", "", "", "", 1e3 * idle))
for name, path, after_change in cases:
    times, stalls, st = [], [], None
    for _ in range(rounds):
        if after_change:
            change(c)
            time.sleep(0.05)
        a = time.perf_counter()
        st = req(c, "GET", path)
        b = time.perf_counter()
        time.sleep(0.05)
        times.append(b - a)
        stalls.append(worst(a, b))
    times.sort()
    print("%-34s %6s %10.1f %10.1f %12.1f" % (name, st, 1e3 * times[len(times) // 2], 1e3 * times[-1],
                                              1e3 * max(stalls)))
stop.set()
PY
