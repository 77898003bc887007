#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# solocore-load's handover mode (issue 17 item 5) with traffic through the XDP UPF, in the three
# namespaces of e2e_traffic.sh / e2e_handover.sh:
#
#   gNB ns (solocore-load, 2 gNBs)  --veth N3--  core ns (solocore run)  --veth N6--  DN ns
#   10.38.57.2: N2 x2 + N3 :2152                 10.38.57.1 | 10.38.58.1              10.38.58.2: UDP echo :7
#
# `solocore-load handover --gnbs 2 --ues UES --rate RATE --secs SECS --traffic PPS`: every UE
# registers with one PDU session, then RATE handovers per second, each UE in turn to the other
# gNB, RATE * SECS of them (ROUNDS = RATE * SECS / UES per UE). Xn handover (TS 23.502
# 4.9.1.2.2): PATH SWITCH REQUEST from the target (TS 38.413 8.4.4.2), the SMF moves the DL
# tunnel, the UPF ends the old path with an End Marker (TS 29.281 7.3.2, TS 23.501 5.8.2.9),
# PATH SWITCH REQUEST ACKNOWLEDGE with the next {NCC, NH} (TS 33.501 6.9.2.1.1).
#
# Asserted from the report: exit 0; RATE * SECS handovers requested, sent and acknowledged,
# none failed, unanswered or skipped; a latency sample per handover; with the traffic
# running, the downlink and uplink interruption measured for every handover (a G-PDU of the
# UE through the source before it, the first through the target after it; none left open);
# one End Marker per handover on the source's old TEID; every UE handed over ROUNDS times at
# NCC (ROUNDS + 1) mod 8. tshark on the N2 pcap: nothing malformed, RATE * SECS PATH SWITCH REQUESTs
# and ACKNOWLEDGEs, no FAILURE. The old code (no handover mode) fails at the first step.
#
# MODE=n2 / n2-indirect (--handover-mode): the N2 handover instead (TS 23.502 4.9.1.3: HANDOVER
# REQUIRED -> COMMAND -> NOTIFY, TS 38.413 8.4.1-8.4.3); the same handover and interruption counts,
# a preparation latency per handover, no PATH SWITCH REQUEST in the pcap.
#
#   e2e_handover_load.sh SOLOCORE SOLOCORE_LOAD   env: UES (10), RATE (20), SECS (3), PPS (2000),
#                                                 MODE (xn)
#
# Needs root and `ip netns` (77 otherwise), python3, XDP generic mode on veth (77 otherwise).
set -u
SOLOCORE=$1 RANSIM=$2
UES=${UES:-10} RATE=${RATE:-20} SECS=${SECS:-3} PPS=${PPS:-2000} MODE=${MODE:-xn}
CORE=
TOKEN=e2e-handover-load-token-7c2e
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (DN echo server)"; exit 77; }
HO=$((RATE * SECS))
ROUNDS=$((HO / UES))
[ $((ROUNDS * UES)) = "$HO" ] || { echo "FAIL: RATE * SECS ($HO) must be a multiple of UES ($UES)"; exit 1; }

T=hol$$
e2e_netns "$T" 10.38.57 e2e-handover-load
NS_D=$T-d
trap 'ip netns del "$NS_D" 2>/dev/null; e2e_cleanup' EXIT INT TERM
e2e_dn 10.38.58

gen_sims "$TMP/sims.toml" "$UES" 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
CORE_LOG=info mk_config "$TMP/run.yaml" "$AMF" usrsctp "NIA2, NIA1, NIA3" "NEA2, NEA1, NEA0"
yaml_upf "$TMP/run.yaml"
dn_echo 10.38.58.2
start_solocore_upf "$TMP/run.yaml" "$TMP/core.log"

run_ransim load handover --sims "$TMP/sims.toml" --addr "$AMF" --backend usrsctp --encap raw --gnbs 2 \
	--ues "$UES" --concurrency "$UES" --rate "$RATE" --secs "$SECS" --handover-mode "$MODE" --no-progress --timeout 120 \
	--gnb-n3 10.38.57.2 --traffic "$PPS" --traffic-dst 10.38.58.2 --traffic-port 7 --pcap "$TMP/n2.pcap"

expect_rc load 0
expect load ue_runs_failed 0
expect load completed "$UES"
if [ "$MODE" = xn ]; then
	PSN=$HO PREP=0
else
	PSN=0 PREP=$HO
	expect load n2ho_notify "$HO"
	expect load n2ho_errors 0
fi
for k in handovers_requested handovers_attempted handovers_acked interruption_dl_measured \
	interruption_ul_measured end_markers; do
	expect load "$k" "$HO"
done
expect load path_switch_sent "$PSN"
expect load path_switch_acked "$PSN"
expect load handovers_prepared "$PREP"
for k in handovers_failed handovers_unanswered handovers_not_sent handovers_busy_skips path_switch_failed \
	path_switch_errors interruption_dl_open interruption_ul_open interruption_dl_no_source \
	interruption_ul_no_source interruption_superseded end_markers_other dl_bad_inner dl_err_ind ul_send_errors; do
	expect load "$k" 0
done
NCC=$(((ROUNDS + 1) % 8))   # NCC has 3 bits (TS 33.501 6.9.2.1.1)
[ "$MODE" = xn ] && expect load path_switch_ncc_last "$NCC"
[ "$MODE" = xn ] || grep -q "^latency handover_prep n $HO " "$TMP/load.out" ||
	fail "load: 'latency handover_prep' has not $HO samples: $(grep "^latency handover_prep " "$TMP/load.out")"
for s in "latency handover" "interruption dl" "interruption ul"; do
	grep -q "^$s n $HO " "$TMP/load.out" || fail "load: '$s' has not $HO samples: $(grep "^$s " "$TMP/load.out")"
done
nue=$(grep -c "^ue_ho .* handovers $ROUNDS ncc $NCC pending 0 " "$TMP/load.out")
[ "$nue" = "$UES" ] || fail "load: $nue of $UES UEs handed over $ROUNDS times at NCC $NCC"

# tshark on ransim's N2 pcap: nothing malformed; of procedure code 25 (Path Switch Request,
# TS 38.413 8.4.4) HO initiating messages, HO successful outcomes and no unsuccessful one, by
# the NGAP-PDU CHOICE index (9.4.2)
if command -v tshark >/dev/null 2>&1; then
	bad=$(tshark -r "$TMP/n2.pcap" -Y '_ws.malformed || _ws.expert.severity >= error' 2>>"$TMP/tshark.log" | wc -l)
	got=$(tshark -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 25' -T fields -e ngap.NGAP_PDU 2>>"$TMP/tshark.log" |
		awk '{ n[$1 + 0]++ } END { printf "%d %d %d", n[0], n[1], n[2] }')
	[ "$bad $got" = "0 $PSN $PSN 0" ] ||
		fail "n2 pcap: malformed, path switch requests, acknowledges, failures: $bad $got (0 $PSN $PSN 0 expected)"
else
	echo "note: no tshark: the N2 pcap is not decoded (the rest is asserted)"
fi

grep -E '^(handovers_per_s|latency handover|interruption (dl|ul)|packet_interval_per_ue_ms|lost_packets|ul_packets|dl_packets) ' "$TMP/load.out"
stop_core
[ $FAILS = 0 ] || { show_logs; exit 1; }
echo "ok: handover-load $MODE ($HO handovers of $UES UEs at $RATE/s)"
exit 0
