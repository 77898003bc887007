#!/bin/bash
# SPDX-License-Identifier: AGPL-3.0-or-later
# Three `solocore run` nodes on ONE replicated dqlite database (issue 20 item 5; README "Cluster").
#
#   node 1 ns (10.38.90.1)  node 2 ns (10.38.91.1)  node 3 ns (10.38.92.1)
#          \                       |                        /
#           +------ ransim ns (10.38.90.2 / .91.2 / .92.2, IPv4 forwarding on) ------+
#
# Each node: cluster: { node_id i, address NODEIP:9001, peers the other two }, AMF region 202 set
# 1022 pointer i (TS 23.501 5.21), its own UE pool, the web API on 127.0.0.1:5000 of its own
# namespace (admin token SOLOCORE_WEB_TOKEN). The nodes reach each other through ransim's
# namespace (routed); node P's cluster links are cut by deleting its default route.
# Phases (each prints one "cluster: ..." line with its figures):
#  1. bootstrap from config (db/cluster.h): node 1 bootstraps, 2 and 3 join; `solocore cluster
#     status` shows 3 voters and one leader.
#  2. the change feed (db/feed.h, issue 20 "a SIM added on one node authenticates on another"):
#     SIMs imported through node 1's API are seen by GET on nodes 2 and 3 and register through
#     node 2 and node 3 (ransim --amf with that node only); a SIM DELETEd on node 1 then fails
#     to register through node 3, where it had registered before (security: a deleted SIM must
#     stop authenticating on every node; TS 33.501 6.1.2 the UDM holds the credentials).
#  3. AMF set failover on the replicated database (TS 23.501 5.21.2.1, 6.3.5): ransim --amf
#     A,B,C, UES UEs with a PDU session each; SIGKILL of the node holding the most; each of its
#     UEs registers again via a survivor (failover_* figures, bound measured x3); the node is
#     restarted from its dir and is a voter again.
#  4. SIGKILL of the dqlite leader while M subscribers are POSTed through a survivor's API, each
#     retried on 503 / connection errors / timeouts (a 409 on a retry: it had committed, its
#     content is then checked); every one exists exactly once with its K/OPc (list API total,
#     GET ?secrets=1); the time writes were refused (election); the node restarts as a voter.
#  5. SQN on the wire (TS 33.102 6.3.2, C.1.2, C.3.2; udm/udm.h): RAND/AUTN of every
#     Authentication Request in every N2 pcap of the run, SQN = (SQN xor AK) xor f5(K, OPc, RAND)
#     by sqn_autn.c (the subscriber found by MAC-A): SQNs unique per subscriber across nodes,
#     runs and restarts, IND = node_id - 1 of the sending node; no malformed frame in any pcap.
#  6. a partitioned minority (Raft: no writes without a majority): node P (3, or another
#     follower when 3 leads) cut off; a POST through P's API is refused with 503 and a reason
#     within a bound; a write on the majority meanwhile; after healing it is visible via P.
# Run order 1, 2, 6, 4, 3, 5: the partition and the leader kill need three live nodes, and a
# node restarted from its dir may not come back (phase 4/3 say so); phase 3 then runs with the
# live nodes (the last one, without a quorum, takes the failover). 
# The user plane (XDP UPF + DN namespace per node, as e2e_traffic.sh) is NOT set up here: PDU
# sessions are established with N3 addresses only, no G-PDUs flow (said in the output too).
#
#   e2e_cluster.sh SOLOCORE RANSIM TSHARK SQN_AUTN    env: UES (30), M (200), E2E_KEEP=1
# Needs root and `ip netns` (77 otherwise), curl and python3.
set -u
SOLOCORE=$1 RANSIM=$2 TSHARK=${3:-tshark} SQN_AUTN=${4:?sqn_autn helper}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
UES=${UES:-30}
M=${M:-200}
TOKEN=e2e-cluster-token-7f41
# Bounds: 3x the worst of 5 runs on this 2-vCPU VM (printed figures; see the report lines).
FO_MAX_MS=${FO_MAX_MS:-2000}         # phase 3: first UE lost -> last registered again
DETECT_MAX_MS=${DETECT_MAX_MS:-5000} # phase 3: SIGKILL -> association down (SCTP HB 200 ms)
ELECT_MAX_MS=${ELECT_MAX_MS:-27000}  # phase 4: writes refused (libdqlite election 5-9 s)
VOTER_MAX_MS=${VOTER_MAX_MS:-15000}  # restart -> voter again
REFUSE_MAX_MS=${REFUSE_MAX_MS:-15000} # phase 6: partition -> 503
CATCHUP_MAX_MS=${CATCHUP_MAX_MS:-6000}
command -v curl >/dev/null 2>&1 || { echo "SKIP: curl not found"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
[ -x "$SQN_AUTN" ] || { echo "FAIL: $SQN_AUTN (sqn_autn helper) not built"; exit 1; }
command -v "$TSHARK" >/dev/null 2>&1 || { echo "FAIL: tshark not installed (build.sh installs it)"; exit 1; }

T=cl$$
e2e_netns "$T" 10.38.90 e2e-cluster
NS=("" "$NS_C" "$T-n2" "$T-n3")
NET=("" 10.38.90 10.38.91 10.38.92)
IP=("" 10.38.90.1 10.38.91.1 10.38.92.1)
PID=("" "" "" "")
cluster_cleanup() {
	for i in 1 2 3; do
		[ -n "${PID[$i]}" ] && { kill -KILL "${PID[$i]}" 2>/dev/null; wait "${PID[$i]}" 2>/dev/null; }
	done
	[ -n "${LOOP_PID:-}" ] && kill -KILL "$LOOP_PID" 2>/dev/null
	CORE_PID=
	ip netns del "${NS[2]}" 2>/dev/null
	ip netns del "${NS[3]}" 2>/dev/null
	e2e_cleanup
}
trap cluster_cleanup EXIT INT TERM
e2e_netns_peer "${NS[2]}" 10.38.91 ${T}x || { echo "FAIL: node 2 namespace"; exit 1; }
e2e_netns_peer "${NS[3]}" 10.38.92 ${T}y || { echo "FAIL: node 3 namespace"; exit 1; }
$NSR sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 || exit 1
for i in 1 2 3; do ip -n "${NS[$i]}" route add default via "${NET[$i]}.2" || exit 1; done

now_ms() { date +%s%3N; }
t_start=$(now_ms)
nsx() { ip netns exec "${NS[$1]}" "${@:2}"; }

# mk_node I: node I's config, $TMP/nI.yaml; its data in $TMP/nI/ (dqlite dir core.db.dqlite).
mk_node() {
	local i=$1 f=$TMP/n$1.yaml peers= j
	mkdir -p "$TMP/n$i"
	for j in 1 2 3; do [ "$j" = "$i" ] || peers="$peers${peers:+, }\"${IP[$j]}:9001\""; done
	mk_config "$f" "${IP[$i]}" usrsctp
	sed -i "s|^  path: .*|  path: \"$TMP/n$i/core.db\"|; s/^  level: .*/  level: info/" "$f"
	sed -i "s/^amf:\$/amf:\n  region_id: 202\n  set_id: 1022\n  pointer: $i/" "$f"
	cat >>"$f" <<EOF
dnns:
  - { name: "internet", pool: "10.$((44 + i)).0.0/16" }
upf:
  n3_address: "${IP[$i]}"
web: { listen: "127.0.0.1", port: 5000 }
cluster:
  node_id: $i
  address: "${IP[$i]}:9001"
  peers: [$peers]
EOF
}
# start_node I LOG: solocore run in node I's namespace; 0 when N2 listens.
start_node() {
	NSC="ip netns exec ${NS[$1]}" SOLOCORE_WEB_TOKEN=$TOKEN start_solocore "$TMP/n$1.yaml" "$2" "N2 listening" 300
	local rc=$?
	PID[$1]=$CORE_PID
	CORE_PID=
	LOG[$1]=$2
	[ $rc = 0 ] || fail "node $1: solocore run $SOLOCORE_WHY ($(grep -m1 -i 'error\|fail' "$2"))"
	return $rc
}
# restart_node I: node I again from its dir (it is a member: no join). A start that exits is a
# FAIL (the first reason printed); it is tried again (RESTART_MAX times, 3, 0.3 s apart) so that the
# later phases still run with three nodes. RESTART_TRIES: how many starts it took.
restart_node() {
	local n=0 why=
	RESTART_TRIES=0
	while [ $n -lt ${RESTART_MAX:-3} ]; do
		n=$((n + 1)); RESTART_TRIES=$n
		NSC="ip netns exec ${NS[$1]}" SOLOCORE_WEB_TOKEN=$TOKEN start_solocore "$TMP/n$1.yaml" "$TMP/n$1r$n.log" "N2 listening" 300
		local rc=$?
		PID[$1]=$CORE_PID; CORE_PID=
		LOG[$1]=$TMP/n$1r$n.log
		[ $rc = 0 ] && break
		PID[$1]=
		[ -n "$why" ] || why=$(grep -m2 'ERROR' "$TMP/n$1r$n.log" | cut -c26- | tr '\n' ' ')
		sleep 0.3
	done
	[ -z "$why" ] || fail "$2: node $1 restarted from its dir exited at start-up ($RESTART_TRIES start(s) to come up): $why"
	[ -n "${PID[$1]}" ]
}
kill_node() { kill -KILL "${PID[$1]}" 2>/dev/null; wait "${PID[$1]}" 2>/dev/null; PID[$1]=; }
# status: `solocore cluster status` (from ransim's namespace, which reaches every node) in
# $TMP/status.txt; its exit status.
status() { $NSR "$SOLOCORE" cluster status -c "$TMP/n${1:-1}.yaml" >"$TMP/status.txt" 2>"$TMP/status.err"; }
voters() { grep -c ' voter' "$TMP/status.txt"; }
leader() { awk '/ leader$/ { print $1 }' "$TMP/status.txt"; }
# wait_voters N MAXMS: until status shows N voters and a leader; prints the ms it took.
wait_voters() {
	local t0 end
	t0=$(now_ms); end=$((t0 + $2))
	while [ "$(now_ms)" -lt $end ]; do
		if status && [ "$(voters)" = "$1" ] && [ -n "$(leader)" ]; then echo $(($(now_ms) - t0)); return 0; fi
		sleep 0.05
	done
	echo -1; return 1
}
# api I METHOD PATH [BODY]: HTTP status of a request to node I's API (000: no answer), body in
# $TMP/body.
api() {
	nsx "$1" curl -s -m 10 -o "$TMP/body" -w '%{http_code}' -X "$2" -H "Authorization: Bearer $TOKEN" \
		${4:+--data-binary "$4"} "http://127.0.0.1:5000$3"
}
jget() { python3 -c "import json,sys; j=json.load(open('$TMP/body')); print($1)" 2>/dev/null; }
logs() { show_logs; for i in 1 2 3; do for f in "$TMP"/n$i*.log; do [ -f "$f" ] && { echo "---- $(basename "$f") (tail)"; tail -n 30 "$f"; }; done; done; }
AMFS="${IP[1]},${IP[2]},${IP[3]}"
# rsim NAME AMFS ARGS...: ransim against the AMF set AMFS, its N2 in $TMP/NAME.pcap.
rsim() {
	local n=$1 a=$2; shift 2
	run_ransim "$n" --amf "$a" --backend usrsctp --encap raw --sims "$TMP/sims.toml" --pcap "$TMP/$n.pcap" "$@"
}

# ---- 1. bootstrap from config -----------------------------------------------------------------
for i in 1 2 3; do mk_node $i; done
# Issue 31: the cluster link is mutual TLS: one cluster CA (node 1's dqlite dir), each node its
# certificate, made offline with the `solocore cluster` subcommands.
"$SOLOCORE" cluster init --dir "$TMP/n1/core.db.dqlite" --name n1 >/dev/null || fail "cluster init"
for i in 2 3; do
	"$SOLOCORE" cluster add-node --dir "$TMP/n1/core.db.dqlite" --out "$TMP/n$i/core.db.dqlite" --name "n$i" >/dev/null ||
		fail "cluster add-node n$i"
done
t0=$(now_ms)
start_node 1 "$TMP/n1.log" || { logs; exit 1; }
t1=$(now_ms)
start_node 2 "$TMP/n2.log" || { logs; exit 1; }
start_node 3 "$TMP/n3.log" || { logs; exit 1; }
t3=$(now_ms)
grep -q "bootstrapped a new cluster" "$TMP/n1.log" || fail "phase 1: node 1 did not bootstrap ($(grep -m1 cluster "$TMP/n1.log"))"
for i in 2 3; do grep -q "joined as a voter" "$TMP/n$i.log" || fail "phase 1: node $i did not log 'joined as a voter'"; done
ms=$(wait_voters 3 10000) || fail "phase 1: cluster status: not 3 voters and a leader: $(cat "$TMP/status.txt" "$TMP/status.err")"
cat "$TMP/status.txt"
[ "$(grep -c ' leader$' "$TMP/status.txt")" = 1 ] || fail "phase 1: not exactly one leader"
for i in 1 2 3; do grep -q "^$i ${IP[$i]}:9001 voter" "$TMP/status.txt" || fail "phase 1: no voter line for node $i"; done
ROUTE=$(api 1 GET /api/v1/cluster)
if [ "$ROUTE" = 200 ]; then
	echo "GET /api/v1/cluster (node 1): $(head -c 300 "$TMP/body")"
	for i in 1 2 3; do
		[ "$(api $i GET /api/v1/cluster)" = 200 ] &&
			[ "$(jget '"%s %d %d %s" % (j["quorum"], sum(1 for n in j["nodes"] if n["role"] == "voter"), sum(1 for n in j["nodes"] if n.get("leader")), j["self"])')" = "True 3 1 $i" ] ||
			fail "phase 1: GET /api/v1/cluster on node $i: not quorum, 3 voters, one leader, self $i: $(head -c 300 "$TMP/body")"
	done
else
	echo "note: GET /api/v1/cluster answered $ROUTE (route not there yet): membership checked with the CLI"
fi
echo "cluster: bootstrap node 1 up $((t1 - t0)) ms, nodes 2+3 joined $((t3 - t1)) ms, 3 voters seen after +$ms ms"

# ---- 2. the change feed: import on node 1, use on nodes 2 and 3, delete ----------------------
gen_sims "$TMP/ues.toml" "$UES" 001010000000001 || exit 1
gen_sims "$TMP/victim.toml" 1 001010000000099 || exit 1
cat "$TMP/ues.toml" "$TMP/victim.toml" >"$TMP/sims.toml"
VICTIM=imsi-001010000000099
code=$(api 1 POST /api/v1/subscribers/import "@$TMP/sims.toml")
[ "$code" = 200 ] && [ "$(jget 'j["imported"]')" = $((UES + 1)) ] ||
	{ fail "phase 2: import on node 1: HTTP $code $(cat "$TMP/body")"; logs; exit 1; }
t_imp=$(now_ms)
for i in 2 3; do
	code=$(api $i GET "/api/v1/subscribers?imsi=00101000000&limit=1000")
	tot=$(jget 'j["total"]')
	[ "$code" = 200 ] && [ "$tot" = $((UES + 1)) ] || fail "phase 2: node $i lists $tot subscribers (HTTP $code), expected $((UES + 1))"
	code=$(api $i GET "/api/v1/subscribers/$VICTIM?secrets=1")
	want=$(sed -n '/^\[imsi-001010000000099\]/,/^$/s/^ki = "\(.*\)"/\1/p' "$TMP/sims.toml")
	[ "$code" = 200 ] && [ "$(jget 'j["k"]' | tr a-f A-F)" = "$want" ] || fail "phase 2: GET $VICTIM on node $i: HTTP $code, k $(jget 'j.get("k")')"
done
# The feed polls every 100 ms (DB_FEED_POLL_MS): 1 s is ten polls.
sleep 1
half=$((UES / 6))
rsim p2_n2 "${IP[2]}" --ues $half --concurrency $half --sim-offset 0 --timeout 30
expect p2_n2 ues_ok $half || grep '^failure' "$TMP/p2_n2.out" | sed 's/^/  node 2: /'
rsim p2_n3 "${IP[3]}" --ues $half --concurrency $half --sim-offset $half --timeout 30
expect p2_n3 ues_ok $half || grep '^failure' "$TMP/p2_n3.out" | sed 's/^/  node 3: /'
rsim p2_n1 "${IP[1]}" --ues $half --concurrency $half --sim-offset $((2 * half)) --timeout 30
expect p2_n1 ues_ok $half || grep '^failure' "$TMP/p2_n1.out" | sed 's/^/  node 1: /'
rsim p2_v1 "${IP[3]}" --ues 1 --sim-offset "$UES" --timeout 30
expect p2_v1 ues_ok 1 || fail "phase 2: the SIM to be deleted did not register through node 3 before its deletion"
t_used=$(now_ms)
unk0=$(grep -c "unknown subscriber" "$TMP/n3.log")
code=$(api 1 DELETE "/api/v1/subscribers/$VICTIM")
[ "$code" = 204 ] || fail "phase 2: DELETE $VICTIM on node 1: HTTP $code $(cat "$TMP/body")"
t_del=$(now_ms)
code=$(api 3 GET "/api/v1/subscribers/$VICTIM")
[ "$code" = 404 ] || fail "phase 2: GET $VICTIM on node 3 after the delete: HTTP $code, expected 404"
sleep 1
rsim p2_v2 "${IP[3]}" --ues 1 --sim-offset "$UES" --timeout 20 --ue-timeout 5000
expect p2_v2 ues_ok 0
expect p2_v2 ues_failed 1 || fail "phase 2: SECURITY: $VICTIM, deleted on node 1, still registers through node 3"
why=$(grep '^failure' "$TMP/p2_v2.out" | tr '\n' ' ')
unk=$(( $(grep -c "unknown subscriber" "$TMP/n3.log") - unk0 ))
[ "$unk" -ge 1 ] || fail "phase 2: node 3 logged no 'unknown subscriber' for the deleted SIM"
echo "cluster: feed import of $((UES + 1)) on node 1 -> registrations via nodes 2+3 done $((t_used - t_imp)) ms later; deleted SIM refused by node 3 ($why; node 3: $unk x unknown subscriber)"

# ---- 6. a partitioned minority ------------------------------------------------------------------
status; L=$(leader)
P=3; [ "$L" = 3 ] && P=2
Q=${L:-1}   # the write on the majority goes through the leader's node
t_cut=$(now_ms)
ip -n "${NS[$P]}" route del default
code=000; t_503=
end=$((t_cut + REFUSE_MAX_MS + 10000))
while [ "$(now_ms)" -lt $end ]; do
	code=$(api $P POST /api/v1/subscribers '{"imsi": "001010000300001", "k": "000102030405060708090A0B0C0D0E0F", "opc": "0F0E0D0C0B0A09080706050403020100"}')
	case $code in
	503) t_503=$(now_ms); break ;;
	000) ;;   # no answer within curl's 10 s: try again
	201) fail "phase 6: node $P (cut off) accepted a write: HTTP 201"; break ;;
	*) t_503=$(now_ms); break ;;
	esac
	sleep 0.1
done
msg=$(jget 'j.get("error", j.get("message", j))' || head -c 200 "$TMP/body")
if [ "$code" = 503 ]; then
	echo "$msg" | grep -qi "leader\|quorum\|majority" || fail "phase 6: the 503 does not say why (no leader / not leader): '$msg'"
else
	fail "phase 6: POST through the cut-off node $P: HTTP $code, expected 503: $(head -c 200 "$TMP/body")"
	grep ' web: \| db: ' "${LOG[$P]}" | tail -n 8 | sed 's/^/  node log: /'
fi
refuse=$(( ${t_503:-$(now_ms)} - t_cut ))
[ "$refuse" -le $REFUSE_MAX_MS ] || fail "phase 6: the refusal came $refuse ms after the cut (bound $REFUSE_MAX_MS)"
code_p6=$code
code=$(api $Q POST /api/v1/subscribers '{"imsi": "001010000300002", "k": "101112131415161718191A1B1C1D1E1F", "opc": "1F1E1D1C1B1A19181716151413121110"}')
[ "$code" = 201 ] || fail "phase 6: a write on the majority (node $Q) during the partition: HTTP $code $(head -c 200 "$TMP/body")"
t_heal=$(now_ms)
ip -n "${NS[$P]}" route add default via "${NET[$P]}.2"
code=000; end=$((t_heal + CATCHUP_MAX_MS + 10000))
while [ "$(now_ms)" -lt $end ]; do
	code=$(api $P GET /api/v1/subscribers/imsi-001010000300002)
	[ "$code" = 200 ] && break
	sleep 0.1
done
t_cu=$(now_ms)
[ "$code" = 200 ] || fail "phase 6: after healing node $P does not show the majority's write: HTTP $code"
[ $((t_cu - t_heal)) -le $CATCHUP_MAX_MS ] || fail "phase 6: node $P caught up $((t_cu - t_heal)) ms after healing (bound $CATCHUP_MAX_MS)"
code=$(api $P GET /api/v1/subscribers/imsi-001010000300001)
[ "$code" = 404 ] || fail "phase 6: the write refused on node $P exists: GET HTTP $code"
echo "cluster: partition of node $P (leader $L): write refused with HTTP $code_p6 after $refuse ms ('$msg'); after healing the majority's write visible via node $P in $((t_cu - t_heal)) ms"

# ---- 4. SIGKILL of the dqlite leader under writes ----------------------------------------------
status; L=$(leader)
[ -n "$L" ] || { fail "phase 4: no leader: $(cat "$TMP/status.txt" "$TMP/status.err")"; logs; exit 1; }
S=1; [ "$L" = 1 ] && S=2
O=$((6 - L - S))   # the third node
gen_sims "$TMP/m.toml" "$M" 001010000200001 || exit 1
awk '/^\[imsi-/ { s = substr($0, 2, length($0) - 2) } /^ki = / { k = $3 } /^opc = / { gsub(/"/, "", k); o = $3; gsub(/"/, "", o); print s, k, o }' \
	"$TMP/m.toml" >"$TMP/m.keys"
cat >"$TMP/writer.py" <<'EOT'
import http.client, json, sys, time
keys, token, progress = sys.argv[1], sys.argv[2], sys.argv[3]
subs = [l.split() for l in open(keys)]
first_bad = last_bad = None
retries = {}
codes = {}
def req(method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", 5000, timeout=3)
    c.request(method, path, body=body, headers={"Authorization": "Bearer " + token})
    r = c.getresponse(); data = r.read(); c.close()
    return r.status, data
for n, (supi, k, opc) in enumerate(subs):
    body = json.dumps({"imsi": supi[5:], "k": k, "opc": opc})
    tries = 0
    while True:
        tries += 1
        try:
            st, data = req("POST", "/api/v1/subscribers", body)
        except Exception as e:
            st, data = "conn:" + type(e).__name__, b""
        codes[str(st)] = codes.get(str(st), 0) + 1
        if st == 201:
            break
        if st == 409 and tries > 1:   # an earlier try committed ("outcome unknown"): check it
            st2, d2 = req("GET", "/api/v1/subscribers/%s?secrets=1" % supi)
            j = json.loads(d2) if st2 == 200 else {}
            if j.get("k", "").upper() == k.upper() and j.get("opc", "").upper() == opc.upper():
                break
            print("MISMATCH %s after 409: %s %s" % (supi, st2, d2[:200]), flush=True)
            break
        if st not in (503, 500) and not str(st).startswith("conn:"):
            print("UNEXPECTED %s HTTP %s %s" % (supi, st, data[:200]), flush=True)
        t = time.time()
        if first_bad is None:
            first_bad = t
        last_bad = t
        if tries > 600:
            print("GAVE UP %s" % supi, flush=True)
            break
        time.sleep(0.05)
    retries[supi] = tries - 1
    with open(progress, "w") as f:
        f.write("%d\n" % (n + 1))
refused = int((last_bad - first_bad) * 1000) if first_bad else 0
print("refused_ms %d" % refused)
print("retried %d" % sum(1 for v in retries.values() if v))
print("codes %s" % " ".join("%s:%d" % kv for kv in sorted(codes.items())))
EOT
rm -f "$TMP/progress"
nsx $S python3 "$TMP/writer.py" "$TMP/m.keys" "$TOKEN" "$TMP/progress" >"$TMP/writer.out" 2>&1 &
LOOP_PID=$!
n=0
while :; do
	pr=$(cat "$TMP/progress" 2>/dev/null)
	[ "${pr:-0}" -ge $((M / 4)) ] 2>/dev/null && break
	n=$((n + 1)); [ $n -gt 300 ] && break
	sleep 0.05
done
t_kill=$(now_ms)
kill_node $L
echo "phase 4: SIGKILL of the leader node $L after $(cat "$TMP/progress" 2>/dev/null) of $M writes through node $S"
wait "$LOOP_PID"; LOOP_PID=
t_done=$(now_ms)
cat "$TMP/writer.out" | sed 's/^/  writer: /'
grep -q "^MISMATCH\|^GAVE UP\|^UNEXPECTED" "$TMP/writer.out" && fail "phase 4: the writer: $(grep -m3 '^MISMATCH\|^GAVE UP\|^UNEXPECTED' "$TMP/writer.out" | tr '\n' ' ')"
refused=$(sed -n 's/^refused_ms //p' "$TMP/writer.out")
n500=$(sed -n 's/^codes .*500:\([0-9]*\).*/\1/p' "$TMP/writer.out")
[ -z "$n500" ] || fail "phase 4: writes refused during the election with HTTP 500 ($n500 times), expected 503 (no leader / not leader)"
[ -n "$refused" ] && [ "$refused" -le $ELECT_MAX_MS ] || fail "phase 4: writes refused for '$refused' ms (bound $ELECT_MAX_MS)"
# every one of the M exactly once with its keys, on both survivors
for i in $S $O; do
	code=$(api $i GET "/api/v1/subscribers?imsi=0010100002&limit=1000&secrets=1")
	[ "$code" = 200 ] || { fail "phase 4: list on node $i: HTTP $code $(head -c 200 "$TMP/body")"; continue; }
	r=$(python3 - "$TMP/body" "$TMP/m.keys" <<'EOT'
import json, sys
j = json.load(open(sys.argv[1]))
want = {l.split()[0]: (l.split()[1].upper(), l.split()[2].upper()) for l in open(sys.argv[2])}
got = [it["supi"] for it in j["items"]]
dup = len(got) - len(set(got))
missing = [s for s in want if s not in got]
extra = [s for s in got if s not in want]
# the list does not carry K/OPc: counted here, the content checked by GET below
print(j["total"], len(got), dup, len(missing), len(extra), (missing + extra)[:3])
EOT
)
	set -- $r
	[ "$1" = "$M" ] && [ "$2" = "$M" ] && [ "$3" = 0 ] && [ "$4" = 0 ] && [ "$5" = 0 ] ||
		fail "phase 4: node $i lists total $1, items $2, duplicated $3, missing $4, extra $5 (expected $M, none lost or duplicated) $6"
done
bad=0
while read -r supi k o; do
	code=$(api $O GET "/api/v1/subscribers/$supi?secrets=1")
	[ "$code" = 200 ] && [ "$(jget 'j["k"].upper()+" "+j["opc"].upper()')" = "$k $o" ] || bad=$((bad + 1))
done <"$TMP/m.keys"
[ $bad = 0 ] || fail "phase 4: $bad of $M subscribers missing or with the wrong K/OPc on node $O"
t_rs=$(now_ms)
restart_node $L "phase 4" || fail "phase 4: node $L does not restart"
[ -z "${PID[$L]}" ] || vms=$(wait_voters 3 $VOTER_MAX_MS) || fail "phase 4: node $L restarted is not a voter within $VOTER_MAX_MS ms: $(cat "$TMP/status.txt" "$TMP/status.err")"
t_v=$(now_ms)
echo "cluster: leader SIGKILL under $M writes via node $S: writes refused $refused ms (election), all $M once with their keys," \
	"$(sed -n 's/^retried //p' "$TMP/writer.out") retried, $M writes in $((t_done - t_kill)) ms after the kill; $([ -n "${PID[$L]}" ] && echo "node $L restarted -> voter $((t_v - t_rs)) ms ($RESTART_TRIES start(s))" || echo "node $L restart FAILED")"

# ---- 3. AMF set failover on the replicated database ---------------------------------------------
echo "NOTE: the user plane is NOT set up for the three nodes (no XDP UPF / DN per node here): PDU sessions only, no traffic"
# With node restarts broken (see phase 4) only the live nodes are in the set.
ALIVE=; AMFS=
for i in 1 2 3; do [ -n "${PID[$i]}" ] && { ALIVE="$ALIVE $i"; AMFS="$AMFS${AMFS:+,}${IP[$i]}"; }; done
[ "$ALIVE" = " 1 2 3" ] || echo "NOTE: phase 3 runs with the live nodes$ALIVE only (a restarted node did not come back)"
for i in 1 2 3; do e0[$i]=$(grep -c "established dnn=internet" "${LOG[$i]}"); e[$i]=0; done
$NSR "$RANSIM" --amf "$AMFS" --backend usrsctp --encap raw --sims "$TMP/sims.toml" --ues "$UES" \
	--concurrency "$UES" --session --hold-ms 8000 --timeout 90 --ue-timeout 20000 \
	--sctp-hb-ms 200 --sctp-rto-ms 100,400 --sctp-max-retrans 3 --pcap "$TMP/p3.pcap" \
	>"$TMP/p3.out" 2>"$TMP/p3.log" &
RS_PID=$!
n=0
while :; do
	tot=0
	for i in $ALIVE; do e[$i]=$(( $(grep -c "established dnn=internet" "${LOG[$i]}") - e0[i] )); tot=$((tot + e[i])); done
	[ $tot -ge "$UES" ] && break
	n=$((n + 1)); [ $n -gt 300 ] && break
	kill -0 "$RS_PID" 2>/dev/null || break
	sleep 0.1
done
[ $tot = "$UES" ] || fail "phase 3: $tot sessions before the kill, expected $UES (${e[1]}/${e[2]}/${e[3]})"
K=; for i in $ALIVE; do { [ -z "$K" ] || [ "${e[$i]}" -gt "${e[$K]}" ]; } && K=$i; done
NK=${e[$K]}
status; lead3=$(leader)
t_kill=$(now_ms)
kill_node $K
echo "phase 3: sessions per node (1/2/3) ${e[1]}/${e[2]}/${e[3]}; SIGKILL node $K ($NK UEs; dqlite leader was node $lead3)"
wait "$RS_PID"; RS_RC=$?; RS_PID=
expect p3 ues_ok "$UES"; expect p3 ues_failed 0; expect p3 dl_mac_fail 0; expect p3 stream_violations 0
expect p3 failover_lost "$NK"; expect p3 failover_reregistered "$NK"; expect p3 failover_sessions "$NK"
grep '^failure' "$TMP/p3.out" | sed 's/^/  phase 3 ransim: /'
t_det=$(sed -n 's/^failover_detected_unix_ms //p' "$TMP/p3.out")
detect=$(( ${t_det:-0} - t_kill ))
[ "$detect" -ge 0 ] && [ "$detect" -le $DETECT_MAX_MS ] || fail "phase 3: association loss seen $detect ms after the SIGKILL (0..$DETECT_MAX_MS)"
fo=$(sed -n 's/^failover_time_ms //p' "$TMP/p3.out")
awk "BEGIN { exit !(\"$fo\" != \"\" && $fo > 0 && $fo <= $FO_MAX_MS) }" 2>/dev/null || fail "phase 3: failover took '$fo' ms (0..$FO_MAX_MS)"
t_rs=$(now_ms)
restart_node $K "phase 3" || fail "phase 3: node $K does not restart"
[ -z "${PID[$K]}" ] || vms=$(wait_voters 3 $VOTER_MAX_MS) || fail "phase 3: node $K restarted is not a voter within $VOTER_MAX_MS ms: $(cat "$TMP/status.txt" "$TMP/status.err")"
echo "cluster: failover $UES UEs, node $K killed ($NK UEs): association down $detect ms, first lost -> last registered again $fo ms," \
	"per UE p50 $(sed -n 's/^failover_ue_p50_ms //p' "$TMP/p3.out") ms p99 $(sed -n 's/^failover_ue_p99_ms //p' "$TMP/p3.out") ms," \
	"AUTS $(sed -n 's/^auth_sync_fail //p' "$TMP/p3.out"); $([ -n "${PID[$K]}" ] && echo "restart -> voter $(($(now_ms) - t_rs)) ms ($RESTART_TRIES start(s))" || echo "restart FAILED")"

# ---- 5. SQN uniqueness on the wire (all the pcaps of the run) -----------------------------------
awk '/^\[imsi-/ { s = substr($0, 2, length($0) - 2) } /^ki = / { k = $3 } /^opc = / { gsub(/"/, "", k); o = $3; gsub(/"/, "", o); print s, k, o }' \
	"$TMP/sims.toml" >"$TMP/sims.keys"
: >"$TMP/autn.txt"
np=0
for f in "$TMP"/*.pcap; do
	np=$((np + 1))
	bad=$("$TSHARK" -r "$f" -o nas-5gs.null_decipher:TRUE -Y '_ws.malformed || _ws.expert.severity >= error' 2>>"$TMP/tshark.log" | wc -l)
	[ "$bad" = 0 ] || { fail "phase 5: $(basename "$f"): $bad malformed/error frames"; "$TSHARK" -r "$f" -o nas-5gs.null_decipher:TRUE -Y '_ws.malformed || _ws.expert.severity >= error' | head -n 5; }
	"$TSHARK" -r "$f" -o nas-5gs.null_decipher:TRUE -Y 'nas_5gs.mm.message_type == 0x56' -T fields \
		-e ip.src -e gsm_a.dtap.rand -e gsm_a.dtap.autn 2>>"$TMP/tshark.log" |
		awk -v run="$(basename "$f" .pcap)" '{ gsub(/:/, ""); print $1 "/" run, $2, $3 }' >>"$TMP/autn.txt"
done
"$SQN_AUTN" "$TMP/sims.keys" <"$TMP/autn.txt" >"$TMP/sqn.txt" || fail "phase 5: sqn_autn failed"
nauth=$(wc -l <"$TMP/sqn.txt")
[ "$nauth" -ge $((3 * (UES / 6) + 1 + UES)) ] || fail "phase 5: only $nauth Authentication Requests in the pcaps"
none=$(grep -c ' none ' "$TMP/sqn.txt")
[ "$none" = 0 ] || fail "phase 5: $none AUTNs whose MAC-A fits no SIM's K/OPc: $(grep -m2 ' none ' "$TMP/sqn.txt" | tr '\n' ' ')"
# IND = node_id - 1 of the node that sent it (by the pcap's source address)
wrong=$(awk '$2 != "none" { split($1, a, "/"); ind = -1
	if (a[1] == "10.38.90.1") ind = 0; else if (a[1] == "10.38.91.1") ind = 1; else if (a[1] == "10.38.92.1") ind = 2
	if ($4 != ind) print }' "$TMP/sqn.txt")
[ -z "$wrong" ] || fail "phase 5: IND not node_id - 1 of the sender: $(echo "$wrong" | head -n 3 | tr '\n' ';')"
# unique per subscriber: a repeated (SUPI, SQN) with another RAND is a reused SQN (the same RAND
# and SQN twice would be a retransmission)
paste -d' ' "$TMP/sqn.txt" <(awk '{ print $2 }' "$TMP/autn.txt") | awk '$2 != "none" { print $2, $3, $5 }' | sort -u >"$TMP/sqn.uniq"
dups=$(awk '{ print $1, $2 }' "$TMP/sqn.uniq" | sort | uniq -d)
[ -z "$dups" ] || fail "phase 5: SQN issued twice to a subscriber: $(echo "$dups" | head -n 3 | tr '\n' ';')"
per=$(awk '{ split($1, a, "/"); n[a[1]]++ } END { for (k in n) printf "%s:%d ", k, n[k] }' "$TMP/sqn.txt")
subs=$(awk '$2 != "none" { print $2 }' "$TMP/sqn.txt" | sort -u | wc -l)
echo "cluster: SQN on the wire: $nauth Authentication Requests in $np pcaps, $subs subscribers, per node $per- unique per subscriber, IND = node_id - 1: $([ -z "$dups$wrong" ] && [ "$none" = 0 ] && echo yes || echo NO)"

# ---- 7. benchmarks (CLUSTER_BENCH=1 only: meson benchmark cluster-bench, README table) --------
# pct P FILE: the P-th percentile (nearest rank) of the numbers in FILE, one per line.
pct() { sort -n "$2" | awk -v p="$1" '{ v[NR] = $1 } END { i = int((p * NR + 99) / 100); if (i < 1) i = 1; print v[i] }'; }
if [ "${CLUSTER_BENCH:-0}" = 1 ]; then
	BK=${BENCH_UES:-1000} BC=${BENCH_CONC:-100} BR=${BENCH_ROUNDS:-5} BW=${BENCH_WRITES:-200}
	# (a) registrations/s: one node of the set alone, then the three (ransim spreads by capacity)
	gen_sims "$TMP/bench.toml" "$BK" 001010000100001 || exit 1
	code=$(api 1 POST /api/v1/subscribers/import "@$TMP/bench.toml")
	[ "$code" = 200 ] || fail "bench: import of $BK: HTTP $code $(head -c 200 "$TMP/body")"
	# the other nodes' UDMs (solocore_udm_subscribers on /metrics) catch up with node 1's
	t_imp=$(now_ms)
	udm_n() { api "$1" GET /metrics >/dev/null; sed -n 's/^solocore_udm_subscribers //p' "$TMP/body"; }
	want=$(udm_n 1)
	for n in $(seq 600); do
		[ "$(udm_n 2)" = "$want" ] && [ "$(udm_n 3)" = "$want" ] && break
		sleep 0.05
	done
	[ "$(udm_n 2)" = "$want" ] && [ "$(udm_n 3)" = "$want" ] ||
		fail "bench: the feed did not bring nodes 2 and 3 to $want subscribers in 30 s ($(udm_n 2), $(udm_n 3))"
	echo "cluster-bench: feed: import of $BK SIMs on node 1 in every node's UDM $(( $(now_ms) - t_imp )) ms after the import answered ($want subscribers)"
	for set in "${IP[1]}" "$AMFS"; do
		$NSR "$RANSIM" --amf "$set" --backend usrsctp --encap raw --sims "$TMP/bench.toml" --ues "$BK" \
			--concurrency "$BC" --timeout 120 >"$TMP/b_reg.out" 2>"$TMP/b_reg.log"
		ok=$(sed -n 's/^ues_ok //p' "$TMP/b_reg.out"); el=$(sed -n 's/^elapsed_ms //p' "$TMP/b_reg.out")
		[ "$ok" = "$BK" ] || fail "bench: $ok of $BK UEs registered via $set"
		rate=$(awk -v n="$BK" -v ms="${el:-0}" 'BEGIN { printf "%.0f", (ms > 0 ? n * 1000 / ms : 0) }')
		nn=$(echo "$set" | tr ',' '\n' | grep -c .)
		echo "cluster-bench: registrations $BK UEs concurrency $BC via $nn node(s): $el ms, $rate registrations/s"
		eval "rate_$nn=$rate"
	done
	echo "cluster-bench: registrations/s 3 nodes / 1 node: $(awk -v a="${rate_3:-0}" -v b="${rate_1:-1}" 'BEGIN { printf "%.2f", a / b }')"
	# (b) replicated write latency through the API: POST of a new subscriber (a dqlite commit on a
	# majority), through the leader and through a follower; GET through a follower
	status; L=$(leader); F=$(( L % 3 + 1 ))
	for who in "leader $L" "follower $F"; do
		set -- $who
		: >"$TMP/lat.txt"
		for n in $(seq 1 "$BW"); do
			im=0010100002$2$(printf %04d "$n")
			nsx "$2" curl -s -m 10 -o /dev/null -w '%{time_total}\n' -X POST -H "Authorization: Bearer $TOKEN" \
				--data-binary "{\"imsi\":\"$im\",\"k\":\"465B5CE8B199B49FAA5F0A2EE238A6BC\",\"opc\":\"E8ED289DEBA952E4283B54E88E6183CA\"}" \
				"http://127.0.0.1:5000/api/v1/subscribers" | awk '{ printf "%.3f\n", $1 * 1000 }' >>"$TMP/lat.txt"
		done
		echo "cluster-bench: API write (POST subscriber) via the $1: p50 $(pct 50 "$TMP/lat.txt") ms p99 $(pct 99 "$TMP/lat.txt") ms ($BW writes)"
		: >"$TMP/lat.txt"
		for n in $(seq 1 "$BW"); do
			nsx "$2" curl -s -m 10 -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $TOKEN" \
				"http://127.0.0.1:5000/api/v1/subscribers/imsi-001010000100001" | awk '{ printf "%.3f\n", $1 * 1000 }' >>"$TMP/lat.txt"
		done
		echo "cluster-bench: API read (GET subscriber) via the $1: p50 $(pct 50 "$TMP/lat.txt") ms p99 $(pct 99 "$TMP/lat.txt") ms"
	done
	# (c) failover, BR rounds: 60 UEs with a session over the set, SIGKILL of the node holding the
	# most, all back; the node restarted before the next round
	: >"$TMP/fo_all.txt"; : >"$TMP/fo_det.txt"; : >"$TMP/fo_p99.txt"
	for r in $(seq 1 "$BR"); do
		for i in 1 2 3; do e0[$i]=$(grep -c "established dnn=internet" "${LOG[$i]}"); done
		$NSR "$RANSIM" --amf "$AMFS" --backend usrsctp --encap raw --sims "$TMP/bench.toml" --ues 60 \
			--concurrency 60 --session --hold-ms 6000 --timeout 90 --ue-timeout 20000 \
			--sctp-hb-ms 200 --sctp-rto-ms 100,400 --sctp-max-retrans 3 >"$TMP/b_fo.out" 2>"$TMP/b_fo.log" &
		RS_PID=$!
		for n in $(seq 300); do
			tot=0; for i in 1 2 3; do e[$i]=$(( $(grep -c "established dnn=internet" "${LOG[$i]}") - e0[i] )); tot=$((tot + e[i])); done
			[ $tot -ge 60 ] && break
			sleep 0.1
		done
		K=1; for i in 2 3; do [ "${e[$i]}" -gt "${e[$K]}" ] && K=$i; done
		t_kill=$(now_ms); kill_node $K
		wait "$RS_PID"; RS_PID=
		[ "$(sed -n 's/^ues_ok //p' "$TMP/b_fo.out")" = 60 ] || fail "bench: failover round $r: $(sed -n 's/^ues_ok //p' "$TMP/b_fo.out") of 60 UEs ok"
		t_det=$(sed -n 's/^failover_detected_unix_ms //p' "$TMP/b_fo.out")
		echo $(( ${t_det:-0} - t_kill )) >>"$TMP/fo_det.txt"
		fo=$(sed -n 's/^failover_time_ms //p' "$TMP/b_fo.out"); echo "${fo:-0}" >>"$TMP/fo_all.txt"
		sed -n 's/^failover_ue_p99_ms //p' "$TMP/b_fo.out" >>"$TMP/fo_p99.txt"
		echo "cluster-bench: failover round $r: node $K (${e[$K]} UEs) killed, association down $(tail -n1 "$TMP/fo_det.txt") ms, all back $fo ms"
		restart_node $K "bench" && wait_voters 3 $VOTER_MAX_MS >/dev/null || fail "bench: node $K not back"
	done
	echo "cluster-bench: failover over $BR rounds (60 UEs, SIGKILL of the busiest node): SIGKILL -> association down p50 $(pct 50 "$TMP/fo_det.txt") ms p99 $(pct 99 "$TMP/fo_det.txt") ms;" \
		"first UE lost -> all registered again p50 $(pct 50 "$TMP/fo_all.txt") ms p99 $(pct 99 "$TMP/fo_all.txt") ms; per-UE p99 worst $(sort -n "$TMP/fo_p99.txt" | tail -n1) ms"
fi

echo "cluster: total run time $(( ($(now_ms) - t_start) / 1000 )) s"
if [ $FAILS != 0 ]; then
	echo "$FAILS failure(s)"
	logs
	exit 1
fi
echo "PASS: cluster"
exit 0
