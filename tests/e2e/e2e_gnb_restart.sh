#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# A gNB restart with PDU sessions and traffic (issue 14 item 1). The three namespaces of
# e2e_traffic.sh:
#
#   gNB ns (solocore-load)  --veth N3--  core ns (solocore run)  --veth N6--  DN ns
#   10.38.49.2: N2 + N3 :2152            10.38.49.1 | 10.38.50.1               10.38.50.2: UDP echo :7
#
# `solocore run` with its XDP UPF (generic mode) and NEA2 first (so that the SERVICE
# REQUEST's NAS message container is really ciphered, TS 24.501 4.4.6). solocore-load
# `sessions --traffic PPS --restart-after RESTART_MS`: UES UEs register with one PDU
# session each and send G-PDUs to the DN's echo server; once all hold their session and
# RESTART_MS after the start, the simulated gNB ABORTs its SCTP association (it restarts),
# connects again with a fresh NG Setup, and each UE comes back with a SERVICE REQUEST
# (uplink data status for its PSI, inside the ciphered container); the ICS Request sets its
# session up again and traffic resumes. The core treats the lost association as an AN
# release (TS 23.502 4.2.6, TS 23.527): sessions and addresses kept.
#
# Asserted, from GET /api/v1/sessions and /api/v1/stats before the restart (A), once every
# session's user plane is active again after it (B) and 2 s later (C): the same UES
# sessions with the same SUPI -> UE IP in A, B and C; in C every session's uplink and
# downlink packet counters above B's and the UPF's totals above B's; the core logged the
# association loss as an AN release; solocore-load exit 0, no failed UE run, gnb_restarts
# 1, restart_ues = restart_svc_ok = UES, downlink G-PDUs only with the UE's own address
# inside, no Error Indication.
#
#   e2e_gnb_restart.sh SOLOCORE SOLOCORE_LOAD   env: UES (10), PPS (1000), SECS (9), RESTART_MS (3000)
#
# Needs root and `ip netns` (77 otherwise, from e2e_netns), python3 (the DN echo server and
# the API client), XDP in generic mode on veth (77 with the UPF's reason otherwise).
set -u
SOLOCORE=$1 RANSIM=$2   # solocore-load, run by run_ransim (e2e_lib.sh)
UES=${UES:-10} PPS=${PPS:-1000} SECS=${SECS:-9} SIZE=${SIZE:-100} RESTART_MS=${RESTART_MS:-3000}
CORE=
TOKEN=e2e-gnb-restart-token-7c2e
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (DN echo server, API client)"; exit 77; }

T=gnr$$
e2e_netns "$T" 10.38.49 e2e-gnb-restart
NS_D=$T-d
# e2e_cleanup (e2e_lib.sh) removes the core, gNB namespaces, the echo server (B_PID), TMP.
trap 'ip netns del "$NS_D" 2>/dev/null; e2e_cleanup' EXIT INT TERM
e2e_dn 10.38.50

gen_sims "$TMP/sims.toml" "$UES" 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/run.yaml" "$AMF" usrsctp "NIA2, NIA1, NIA3" "NEA2, NEA1, NEA0"
sed -i "s/^  level: .*/  level: info/" "$TMP/run.yaml"
yaml_upf "$TMP/run.yaml"

dn_echo 10.38.50.2

start_solocore_upf "$TMP/run.yaml" "$TMP/core.log"

snap() { # snap NAME: "supi ue_ip user_plane ul_packets dl_packets" per session, then "upf UL DL"
	$NSC python3 - "$TOKEN" >"$TMP/$1.snap" 2>>"$TMP/snap.log" <<'EOF'
import http.client, json, sys
h = {"Authorization": "Bearer " + sys.argv[1]}
c = http.client.HTTPConnection("127.0.0.1", 5000, timeout=10)
c.request("GET", "/api/v1/sessions?limit=1000", headers=h)
r = c.getresponse(); b = r.read()
if r.status != 200:
    sys.exit("sessions: HTTP %d" % r.status)
for s in sorted(json.loads(b)["items"], key=lambda s: s["supi"]):
    print(s["supi"], s["ue_ip"], 1 if s["user_plane"] else 0, s["ul_packets"], s["dl_packets"])
c.request("GET", "/api/v1/stats", headers=h)
u = json.loads(c.getresponse().read())["upf"]
print("upf", u["ul_packets"], u["dl_packets"])
EOF
}
n_up() { grep -v '^upf ' "$TMP/$1.snap" | awk '$3 == 1' | wc -l; }
ips() { grep -v '^upf ' "$TMP/$1.snap" | cut -d' ' -f1,2; }

$NSR "$RANSIM" sessions --sims "$TMP/sims.toml" --addr "$AMF" --backend usrsctp --encap raw \
	--ues "$UES" --concurrency "$UES" --duration "$SECS" --no-progress --restart-after "$RESTART_MS" \
	--gnb-n3 10.38.49.2 --traffic "$PPS" --traffic-size "$SIZE" --traffic-dst 10.38.50.2 --traffic-port 7 \
	--pcap "$TMP/n2.pcap" >"$TMP/load.out" 2>"$TMP/load.log" &
RS_PID=$!
t0=$(date +%s%N)
ms() { echo $((($(date +%s%N) - t0) / 1000000)); }
# A: every session up with traffic, before the restart
ok=
while [ "$(ms)" -lt $((RESTART_MS - 300)) ]; do
	snap A && [ "$(n_up A)" = "$UES" ] &&
		[ "$(awk '$1 == "upf" { print ($2 > 0 && $3 > 0) }' "$TMP/A.snap")" = 1 ] && { ok=1; break; }
	sleep 0.2
done
[ -n "$ok" ] || fail "before the restart: not every session up with traffic within $((RESTART_MS - 300)) ms ($(n_up A) of $UES up)"
echo "A at $(ms) ms: $(n_up A) sessions up, $(grep '^upf ' "$TMP/A.snap")"
# the association lost (the core's log), then B: every user plane active again
ok= lost=
while [ "$(ms)" -lt $((SECS * 1000 - 2500)) ]; do
	[ -n "$lost" ] || ! grep -q "N2 association lost: AN release, sessions kept" "$TMP/core.log" || { lost=$(ms); snap L; }
	if [ -n "$lost" ] && snap B && [ "$(n_up B)" = "$UES" ]; then ok=1; break; fi
	sleep 0.1
done
[ -n "$lost" ] || fail "the core did not log the association loss as an AN release"
[ -n "$ok" ] || fail "after the restart: not every user plane active again ($(n_up B) of $UES)"
[ -n "$lost" ] && echo "association loss logged by $lost ms, $(n_up L) of $UES user planes active in the snapshot taken then (the service requests may already be through)"
echo "B at $(ms) ms: $(n_up B) sessions up, $(grep '^upf ' "$TMP/B.snap")"
sleep 2
snap C || fail "GET /api/v1/sessions (C)"
echo "C at $(ms) ms: $(n_up C) sessions up, $(grep '^upf ' "$TMP/C.snap")"
wait "$RS_PID"
RS_RC=$?
RS_PID=

# the same UEs on the same addresses throughout
[ "$(ips A | wc -l)" = "$UES" ] || fail "A: $(ips A | wc -l) sessions, $UES expected"
[ "$(ips A)" = "$(ips B)" ] || { fail "UE addresses before (A) and after (B) the restart differ"; diff "$TMP/A.snap" "$TMP/B.snap"; }
[ "$(ips A)" = "$(ips C)" ] || { fail "UE addresses before (A) and after (C) the restart differ"; diff "$TMP/A.snap" "$TMP/C.snap"; }
[ "$(n_up C)" = "$UES" ] || fail "C: $(n_up C) of $UES user planes active"
# traffic again after the restart: every session's counters and the UPF's grow from B to C
grow=$(join "$TMP/B.snap" "$TMP/C.snap" | awk '$1 != "upf" && $8 > $4 && $9 > $5' | wc -l)
[ "$grow" = "$UES" ] || { fail "after the restart only $grow of $UES sessions have more uplink and downlink packets"; join "$TMP/B.snap" "$TMP/C.snap"; }
bu=$(awk '$1 == "upf" { print $2, $3 }' "$TMP/B.snap") cu=$(awk '$1 == "upf" { print $2, $3 }' "$TMP/C.snap")
[ "${cu% *}" -gt "${bu% *}" ] 2>/dev/null || fail "UPF uplink G-PDUs did not grow after the restart ($bu -> $cu)"
[ "${cu#* }" -gt "${bu#* }" ] 2>/dev/null || fail "UPF downlink G-PDUs did not grow after the restart ($bu -> $cu)"

expect_rc load 0
expect load ue_runs_failed 0
expect load completed "$UES"
expect load gnb_restarts 1
expect load restart_ues "$UES"
expect load restart_svc_ok "$UES"
expect load ul_send_errors 0
expect load dl_bad_inner 0
expect load dl_err_ind 0

# tshark on ransim's N2 pcap: nothing malformed; two NG Setups; UES SERVICE REQUESTs after
# the restart, each integrity protected (security header type 1) with its IEs in the
# ciphered NAS message container and no uplink data status in the clear (TS 24.501 4.4.6)
if command -v tshark >/dev/null 2>&1; then
	bad=$(tshark -r "$TMP/n2.pcap" -Y '_ws.malformed || _ws.expert.severity >= error' 2>>"$TMP/tshark.log" | wc -l)
	[ "$bad" = 0 ] || fail "n2 pcap: $bad malformed/error frames"
	nset=$(tshark -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 21 && ngap.initiatingMessage_element' 2>>"$TMP/tshark.log" | wc -l)
	[ "$nset" = 2 ] || fail "n2 pcap: $nset NG Setup Requests, 2 expected (start, restart)"
	tshark -r "$TMP/n2.pcap" -Y 'nas_5gs.mm.message_type == 0x4c' -V >"$TMP/svc.txt" 2>>"$TMP/tshark.log"
	nsvc=$(grep -c 'Message type: Service request' "$TMP/svc.txt")
	ncont=$(grep -c 'NAS message container$' "$TMP/svc.txt")
	nsht=$(grep -c 'Security header type: Integrity protected (1)' "$TMP/svc.txt")
	[ "$nsvc" = "$UES" ] && [ "$ncont" = "$UES" ] && [ "$nsht" = "$UES" ] ||
		fail "n2 pcap: $nsvc SERVICE REQUESTs, $ncont with a NAS message container, $nsht with SHT 1; $UES each expected"
	! grep -q '^ *Uplink data status$' "$TMP/svc.txt" || fail "n2 pcap: uplink data status of a SERVICE REQUEST in the clear"
	echo "n2 pcap: nothing malformed, $nset NG Setups, $nsvc SERVICE REQUESTs with a ciphered container"
else
	echo "note: no tshark: the N2 pcap is not decoded (the rest is asserted)"
fi

echo "gnb-restart: $UES UEs, restart at ${RESTART_MS} ms: $(grep -E '^(gnb_restarts|restart_ues|restart_svc_ok|ul_packets|dl_packets) ' "$TMP/load.out" | tr '\n' ' ')"
echo "upf B -> C: $bu -> $cu"
stop_core
[ $FAILS = 0 ] || { show_logs; for f in "$TMP"/*.snap; do echo "---- $f"; cat "$f"; done; exit 1; }
echo "ok: gnb-restart"
exit 0
