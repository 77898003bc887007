#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# Issue 9 item 6: the API answers within normal times while solocore-load runs (no stall of
# the control plane, no stall of the UI).
#
#   e2e_web_load.sh SOLOCORE SOLOCORE_LOAD
#   env: LOAD_S (20) seconds of load; CONC (32) solocore-load concurrency; IDLE_ROUNDS (30);
#        STALL_FLOOR_MS (500)
#
# `solocore run` in one network namespace (web API on 127.0.0.1 there, an API token),
# solocore-load in another over usrsctp raw IP (tests/e2e/e2e_lib.sh's topology), 200 SIMs.
# One API client (python3, one request at a time, a new connection each) sends a round of
# requests: GET /api/v1/stats, GET /api/v1/ues?limit=50, GET /metrics, GET of one
# subscriber, POST of a new subscriber and its DELETE. First IDLE_ROUNDS rounds with the core
# idle; then rounds back to back for the whole of a `solocore-load cycle` run (200 UEs,
# concurrency CONC, new cycles started for LOAD_S seconds).
# Asserted: every request got its expected status (200, 201, 204); no request under load took
# longer than its stall bound, max(50 x the idle p50 of the same request in this run, 500 ms)
# (a ratio to this run's own idle figure, no speed threshold; the floor is for the scheduler
# of a shared 2-CPU machine: with two builds beside it, load average 20, the worst request
# took 208 ms, while a real stall -- a KDF, an fsync on the control thread -- takes seconds;
# env STALL_FLOOR_MS); at least 10 rounds ran
# under load; solocore-load ended with exit status 0, no failed UE run, and exactly 27 NGAP
# PDUs per completed cycle plus the NG Setup pair (so the API did not stall the control
# plane); solocore stops cleanly. Prints idle p50/p99, under-load p50/p99/max, msgs/s.
# Needs root and `ip netns` (77 otherwise, from e2e_netns), python3 (77 without).
set -u
SOLOCORE=$1 LOAD=$2
LOAD_S=${LOAD_S:-20}
CONC=${CONC:-32}
IDLE_ROUNDS=${IDLE_ROUNDS:-30}
CORE=
TOKEN=e2e-load-token-7c1d
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../e2e/e2e_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the API client)"; exit 77; }

e2e_netns ewl$$ 10.38.47 e2e-web-load
gen_sims "$TMP/sims.toml" 200 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/run.yaml" "$AMF" usrsctp
cat >>"$TMP/run.yaml" <<EOF
web: { listen: "127.0.0.1", port: 5000 }
EOF

# The API client. drive.py health|idle|load PORT TOKEN OUT ROUNDS|STOPFILE; check.py IDLE LOAD FLOOR_MS.
cat >"$TMP/drive.py" <<'EOF'
import http.client, json, os, sys, time
mode, port, token, out, arg = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
K, OPC = "465B5CE8B199B49FAA5F0A2EE238A6BC", "E8ED289DEBA952E4283B54E88E6183CA"

def req(method, path, body=None):
    hdrs = {"Authorization": "Bearer " + token}
    if body is not None:
        hdrs["Content-Type"] = "application/json"
    t0 = time.perf_counter()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        c.request(method, path, body=body, headers=hdrs)
        r = c.getresponse()
        r.read()
        status = r.status
        c.close()
    except Exception as e:  # a refused or cut connection is a failed request
        status = "%s: %s" % (type(e).__name__, e)
    return status, time.perf_counter() - t0

def one_round(i, rec):
    imsi = "0010100009%05d" % (i % 100000)
    body = json.dumps({"imsi": imsi, "k": K, "opc": OPC})
    for name, method, path, data, want in (
            ("stats", "GET", "/api/v1/stats", None, 200),
            ("ues", "GET", "/api/v1/ues?limit=50", None, 200),
            ("metrics", "GET", "/metrics", None, 200),
            ("sub_get", "GET", "/api/v1/subscribers/001010000000007", None, 200),
            ("sub_post", "POST", "/api/v1/subscribers", body, 201),
            ("sub_delete", "DELETE", "/api/v1/subscribers/" + imsi, None, 204)):
        status, dt = req(method, path, data)
        rec.append({"name": name, "want": want, "status": status, "s": dt, "round": i})

rec = []
if mode == "health":
    sys.exit(0 if req("GET", "/api/v1/health")[0] == 200 else 1)
if mode == "idle":
    for i in range(int(arg)):
        one_round(i, rec)
else:
    i = 0
    while not os.path.exists(arg):
        one_round(50000 + i, rec)
        i += 1
json.dump(rec, open(out, "w"))
EOF
cat >"$TMP/check.py" <<'EOF'
import json, sys
idle, load = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
floor = float(sys.argv[3]) / 1000.0

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100.0 * len(v)))] if v else float("nan")

fails = [r for r in idle + load if r["status"] != r["want"]]
names = sorted({r["name"] for r in idle})
bound = {}
print("%-10s %9s %9s %8s | %9s %9s %9s %6s" % ("request", "idle p50", "idle p99", "bound",
      "load p50", "load p99", "load max", "n"))
for n in names:
    iv = [r["s"] for r in idle if r["name"] == n]
    lv = [r["s"] for r in load if r["name"] == n]
    bound[n] = max(50 * pct(iv, 50), floor)
    print("%-10s %7.2fms %7.2fms %6.0fms | %7.2fms %7.2fms %7.2fms %6d" % (n, 1e3 * pct(iv, 50),
          1e3 * pct(iv, 99), 1e3 * bound[n], 1e3 * pct(lv, 50), 1e3 * pct(lv, 99),
          1e3 * max(lv, default=0), len(lv)))
ia, la = [r["s"] for r in idle], [r["s"] for r in load]
print("all        idle p50 %.2f ms p99 %.2f ms | under load p50 %.2f ms p99 %.2f ms max %.2f ms, %d requests"
      % (1e3 * pct(ia, 50), 1e3 * pct(ia, 99), 1e3 * pct(la, 50), 1e3 * pct(la, 99), 1e3 * max(la, default=0),
         len(la)))
slow = [r for r in load if r["status"] == r["want"] and r["s"] > bound[r["name"]]]
rounds = len({r["round"] for r in load})
ok = True
for r in fails[:10]:
    print("FAIL: %s round %d: status %s, expected %s" % (r["name"], r["round"], r["status"], r["want"]))
    ok = False
for r in sorted(slow, key=lambda r: -r["s"])[:10]:
    print("FAIL: %s round %d took %.1f ms under load, stall bound %.0f ms" % (r["name"], r["round"],
          1e3 * r["s"], 1e3 * bound[r["name"]]))
    ok = False
if rounds < 10:
    print("FAIL: only %d rounds of requests ran under load" % rounds)
    ok = False
print("api: %d failed statuses, %d over the stall bound, %d rounds under load" % (len(fails), len(slow), rounds))
sys.exit(0 if ok else 1)
EOF

SOLOCORE_WEB_TOKEN=$TOKEN $NSC "$SOLOCORE" run -c "$TMP/run.yaml" >"$TMP/core.log" 2>&1 &
CORE_PID=$!
# The web server starts last (core.c), so an answering API means N2 listens too.
i=0
while ! $NSC python3 "$TMP/drive.py" health 5000 "$TOKEN" /dev/null 1 2>/dev/null && [ $i -lt 150 ]; do
	kill -0 "$CORE_PID" 2>/dev/null || break
	sleep 0.1; i=$((i + 1))
done
kill -0 "$CORE_PID" 2>/dev/null && [ $i -lt 150 ] || { fail "solocore run did not start its API"; show_logs; exit 1; }

# idle
$NSC python3 "$TMP/drive.py" idle 5000 "$TOKEN" "$TMP/idle.json" "$IDLE_ROUNDS" ||
	{ fail "API client (idle) failed"; show_logs; exit 1; }

# under load: the client runs rounds until the load has ended
$NSC python3 "$TMP/drive.py" load 5000 "$TOKEN" "$TMP/load.json" "$TMP/load.done" &
B_PID=$!
L="--addr $AMF --backend usrsctp --encap raw --timeout 300"
$NSR "$LOAD" cycle $L --sims "$TMP/sims.toml" --ues 200 --concurrency "$CONC" --passes 1000000 \
	--duration "$LOAD_S" --no-progress >"$TMP/lcycle.out" 2>"$TMP/lcycle.log"
RS_RC=$?
touch "$TMP/load.done"
wait "$B_PID" || fail "API client (under load) failed"
B_PID=

# the control plane: zero errors, the exact message count
expect_rc lcycle 0
expect lcycle ue_runs_failed 0
cycles=$(sed -n 's/^cycles \([0-9]*\)$/\1/p' "$TMP/lcycle.out")
[ "${cycles:-0}" -gt 0 ] || fail "solocore-load completed no cycle"
expect lcycle ngap_pdus $((27 * ${cycles:-0} + 2))
echo "load: $cycles cycles (200 UEs, concurrency $CONC, ${LOAD_S} s), $(sed -n 's/^ngap_pdus_per_s //p' "$TMP/lcycle.out") NGAP msgs/s;" \
	"$(grep '^latency cycle ' "$TMP/lcycle.out")"

# the API: statuses and stall bounds
python3 "$TMP/check.py" "$TMP/idle.json" "$TMP/load.json" "${STALL_FLOOR_MS:-500}" || fail "API under load (see above)"

stop_core
[ $FAILS = 0 ] || { show_logs; exit 1; }
echo "ok: API under load"
exit 0
