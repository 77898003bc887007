#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# An AMF set seen from the RAN (issue 20 item 4, TS 23.501 5.21, 6.3.5): two `solocore run`
# nodes with the same AMF region (202) and set (1022) but their own AMF pointer (1 and 2),
# relative capacity (200 and 100), database (the same SIMs imported into each: separate SQN
# state, so the second node's first authentication of a UE may take an AUTS round) and
# namespace; ransim (--amf A,B) connects every gNB to both (NG Setup with each).
#   1. 20 UEs (env UES) register (SUCI) and are spread by capacity: 13 on A, 7 on B (smooth weighted
#      round robin, exact); each goes CM-IDLE and comes back with a periodic registration
#      whose 5G-S-TMSI routes it to its own AMF (by GUAMI), then opens a PDU session.
#   2. SIGKILL of A. The gNB's association to A goes down (heartbeats), its 13 UE contexts
#      are released locally; each of those UEs registers again (mobility registration with
#      its 5G-GUTI) through B, the other AMF of the set; B does not know the 5G-GUTI (pointer
#      1): IDENTITY REQUEST, the SUCI, authentication, security mode, a 5G-GUTI of pointer 2;
#      the UE's PDU session is shown inactive, released locally and established again.
#   3. The periodic registration that follows carries B's 5G-GUTI and goes to B by GUAMI.
# Checks: ransim's per-AMF counts (assigned by reason, lost, failover registrations), the
# failover figures (printed), both cores' logs (registrations by type, Identity Requests),
# tshark on ransim's N2 pcap (nothing malformed, Identity Requests only from B, 5G-S-TMSI in
# the Initial UE Messages that name a 5G-GUTI). Needs root and `ip netns` (exit 77 otherwise).
#
#   e2e_amf_set.sh SOLOCORE RANSIM TSHARK
set -u
SOLOCORE=$1 RANSIM=$2 TSHARK=${3:-tshark}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
UES=${UES:-20}
HOLD_MS=${HOLD_MS:-8000}
# capacities 200:100, smooth weighted round robin: A B A, A B A, ... (tests/ransim/amf_sel.c)
NB=$((UES / 3 + (UES % 3 == 2))) NA=$((UES - UES / 3 - (UES % 3 == 2)))

e2e_netns as$$ 10.38.60 e2e-amfset
NS_B=as$$-b
CORE_B=
amfset_cleanup() {
	[ -n "$CORE_B" ] && { kill -KILL "$CORE_B" 2>/dev/null; wait "$CORE_B" 2>/dev/null; }
	ip netns del "$NS_B" 2>/dev/null
	e2e_cleanup
}
trap amfset_cleanup EXIT INT TERM
e2e_netns_peer "$NS_B" 10.38.61 as$$x || { echo "FAIL: second core namespace"; exit 1; }
A=10.38.60.1 B=10.38.61.1
command -v "$TSHARK" >/dev/null 2>&1 || { echo "FAIL: tshark not installed (build.sh installs it)"; exit 1; }

# mk_node FILE ADDR DB POINTER CAPACITY POOL: one node of the set.
mk_node() {
	mk_config "$1" "$2" usrsctp
	sed -i "s|^  path: .*|  path: \"$3\"|; s/^  level: .*/  level: info/" "$1"
	sed -i "s/^amf:\$/amf:\n  region_id: 202\n  set_id: 1022\n  pointer: $4\n  relative_capacity: $5/" "$1"
	cat >>"$1" <<EOF
dnns:
  - { name: "internet", pool: "$6" }
upf:
  n3_address: "$2"
EOF
}
gen_sims "$TMP/sims.toml" "$UES" 001010000000001 || exit 1
for n in a b; do
	"$SOLOCORE" sims import "$TMP/sims.toml" --db "$TMP/$n.db" >"$TMP/import_$n.log" 2>&1 ||
		{ cat "$TMP/import_$n.log"; exit 1; }
done
mk_node "$TMP/a.yaml" $A "$TMP/a.db" 1 200 10.45.0.0/16
mk_node "$TMP/b.yaml" $B "$TMP/b.db" 2 100 10.46.0.0/16

start_solocore "$TMP/a.yaml" "$TMP/a.log" || { fail "node A: solocore run $SOLOCORE_WHY"; show_logs; exit 1; }
CORE_A=$CORE_PID
NSC_A=$NSC
NSC="ip netns exec $NS_B"
start_solocore "$TMP/b.yaml" "$TMP/b.log" || { CORE_B=$CORE_PID; fail "node B: solocore run $SOLOCORE_WHY"; show_logs; exit 1; }
CORE_B=$CORE_PID
NSC=$NSC_A
CORE_PID=$CORE_A   # e2e_cleanup stops A if it is still there

# SCTP failure detection in about 2 s (heartbeat 200 ms, RTO 100-400 ms, 3 retransmissions).
$NSR "$RANSIM" --amf $A,$B --backend usrsctp --encap raw --sims "$TMP/sims.toml" --ues "$UES" \
	--concurrency "$UES" --reregister --session --hold-ms "$HOLD_MS" --timeout 90 --ue-timeout 20000 \
	--sctp-hb-ms 200 --sctp-rto-ms 100,400 --sctp-max-retrans 3 --pcap "$TMP/n2.pcap" \
	>"$TMP/rs.out" 2>"$TMP/rs.log" &
RS_PID=$!

# 1. every UE holds its session: 13 established on A, 7 on B (checked before the kill)
n=0
while :; do
	ea=$(grep -c "established dnn=internet" "$TMP/a.log")
	eb=$(grep -c "established dnn=internet" "$TMP/b.log")
	[ $((ea + eb)) -ge "$UES" ] && break
	n=$((n + 1))
	[ $n -gt 300 ] && break
	kill -0 "$RS_PID" 2>/dev/null || break
	sleep 0.1
done
[ "$ea" = $NA ] && [ "$eb" = $NB ] || fail "sessions before the kill: A $ea, B $eb (expected $NA and $NB: capacity 200:100)"
ra=$(grep -c "registration accepted type=1" "$TMP/a.log")
rb=$(grep -c "registration accepted type=1" "$TMP/b.log")
[ "$ra" = $NA ] && [ "$rb" = $NB ] || fail "initial registrations: A $ra, B $rb (expected $NA and $NB)"

# 2. node A dies
t_kill=$(date +%s%3N)
kill -KILL "$CORE_A"
wait "$CORE_A" 2>/dev/null
CORE_PID=
echo "node A killed"
wait "$RS_PID"
RS_RC=$?
RS_PID=

# ransim: every UE did its whole plan, the failover counted per AMF
expect rs ues_ok "$UES"; expect rs ues_failed 0; expect rs dl_mac_fail 0; expect rs stream_violations 0
expect_rc rs 0
expect rs failover_lost $NA; expect rs failover_reregistered $NA; expect rs failover_sessions $NA
expect rs failover_fresh 0; expect rs identity_requests $NA; expect rs pdu_established $((UES + NA))
expect rs pdu_local_released $NA
line_a=$(grep '^amf 0 ' "$TMP/rs.out")
line_b=$(grep '^amf 1 ' "$TMP/rs.out")
case "$line_a" in
*" guamis 00f110-ca-3fe-01 ng_setups 1 assigned $((2 * NA)) by_guami $NA by_set 0 by_capacity $NA by_any 0 lost $NA fo_reg 0") ;;
*) fail "AMF A: $line_a" ;;
esac
case "$line_b" in
*" guamis 00f110-ca-3fe-02 ng_setups 1 assigned $((NB + NA + UES)) by_guami $UES by_set $NA by_capacity $NB by_any 0 lost 0 fo_reg $NA") ;;
*) fail "AMF B: $line_b" ;;
esac

# node B (UES 20): 7 initial registrations, 13 mobility registrations after the failover, 20
# periodic ones; 7 + 13 SUCIs resolved (13 of them answers to its Identity Requests); 20 sessions
for w in "type=1 $NB" "type=2 $NA" "type=3 $UES"; do
	set -- $w
	n=$(grep -c "registration accepted $1 " "$TMP/b.log")
	[ "$n" = "$2" ] || fail "node B: $n registrations accepted $1, expected $2"
done
n=$(grep -c "identified supi=" "$TMP/b.log")
[ "$n" = "$UES" ] || fail "node B identified $n SUCIs, expected $UES ($NB initial, $NA identity responses)"
n=$(grep -c "established dnn=internet" "$TMP/b.log")
[ "$n" = "$UES" ] || fail "node B: $n sessions established, expected $UES"

# the wire: everything decodes; Identity Requests only from B; a 5G-S-TMSI in each Initial UE
# Message naming a 5G-GUTI (UES periodic before, NA failover, NA periodic after)
bad=$("$TSHARK" -r "$TMP/n2.pcap" -o nas-5gs.null_decipher:TRUE -Y '_ws.malformed || _ws.expert.severity >= error' 2>"$TMP/tshark.log" | wc -l)
[ "$bad" = 0 ] || { fail "pcap: $bad malformed/error frames"; "$TSHARK" -r "$TMP/n2.pcap" -Y '_ws.malformed || _ws.expert.severity >= error' -V | head -n 60; }
idb=$("$TSHARK" -r "$TMP/n2.pcap" -Y "ip.src == $B && nas_5gs.mm.message_type == 0x5b" 2>>"$TMP/tshark.log" | wc -l)
ida=$("$TSHARK" -r "$TMP/n2.pcap" -Y "ip.src == $A && nas_5gs.mm.message_type == 0x5b" 2>>"$TMP/tshark.log" | wc -l)
[ "$idb" = $NA ] && [ "$ida" = 0 ] || fail "pcap: Identity Requests from B $idb ($NA), from A $ida (0)"
tm=$("$TSHARK" -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 15 && ngap.FiveG_S_TMSI_element' 2>>"$TMP/tshark.log" | wc -l)
[ "$tm" = $((UES + 2 * NA)) ] || fail "pcap: $tm Initial UE Messages with a 5G-S-TMSI, expected $((UES + 2 * NA))"
setups=$("$TSHARK" -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 21 && ngap.successfulOutcome_element' 2>>"$TMP/tshark.log" | wc -l)
[ "$setups" = 2 ] || fail "pcap: $setups NG Setup Responses, expected 2 (one per AMF)"

# the outage: SIGKILL -> association down (SCTP heartbeats: bounded by the settings above,
# 5 s), then the first UE lost -> the last one registered again (bounded at 2 s here)
t_det=$(sed -n 's/^failover_detected_unix_ms //p' "$TMP/rs.out")
detect=$((t_det - t_kill))
[ "$detect" -ge 0 ] && [ "$detect" -le 5000 ] || fail "association loss detected $detect ms after the SIGKILL (0..5000)"
fo=$(sed -n 's/^failover_time_ms //p' "$TMP/rs.out")
awk "BEGIN { exit !($fo > 0 && $fo <= 2000) }" || fail "failover took $fo ms (0..2000)"
echo "outage: SIGKILL -> association down $detect ms; first UE lost -> last registered again $fo ms;" \
	"per UE p50 $(sed -n 's/^failover_ue_p50_ms //p' "$TMP/rs.out") ms p99 $(sed -n 's/^failover_ue_p99_ms //p' "$TMP/rs.out") ms;" \
	"AUTS resynchronisations $(sed -n 's/^auth_sync_fail //p' "$TMP/rs.out")"
if [ $FAILS != 0 ]; then
	show_logs
	exit 1
fi
echo "PASS: amf-set"
exit 0
