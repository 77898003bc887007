#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# The Xn handover with PDU sessions and traffic (issue 17 item 5/6, Xn part). The three
# namespaces of e2e_traffic.sh:
#
#   gNB ns (solocore-load, 2 gNBs)  --veth N3--  core ns (solocore run)  --veth N6--  DN ns
#   10.38.51.2: N2 x2 + N3 :2152                 10.38.51.1 | 10.38.52.1              10.38.52.2: UDP echo :7
#
# `solocore run` with its XDP UPF (generic mode). solocore-load `sessions --gnbs 2 --traffic
# PPS --handover-after HO_MS --handovers 2`: UES UEs (half on each gNB) register with one PDU
# session each and send G-PDUs to the DN's echo server; at HO_MS and 2*HO_MS after the start
# every UE makes an Xn handover to the other gNB (TS 23.502 4.9.1.2.2): the target, which did
# its own NG Setup, sends PATH SWITCH REQUEST (TS 38.413 8.4.4.2) with its RAN UE NGAP ID,
# the source AMF UE NGAP ID, its cell, the UE security capabilities and a Path Switch Request
# Transfer (9.3.4.8) holding its own DL TEID; the SMF moves the session's downlink with one
# UPF rule update, the UPF ends the old path with an End Marker (TS 29.281 7.3.2, TS 23.501
# 5.8.2.9) and the AMF answers PATH SWITCH REQUEST ACKNOWLEDGE with the next {NCC, NH}
# (TS 33.501 6.9.2.1.1, 6.9.2.3.3). The source hears nothing on N2.
#
# Asserted, from GET /api/v1/sessions before the first round (A), once every session's DL
# tunnel is the target's (B), 1.5 s later (C), after the second round (D) and 1.5 s later
# (E): the same SUPI -> UE IP throughout, every user plane active, the session's gNB TEID the
# serving gNB's (A, E: home; B, C: the other one), every session's uplink and downlink packet
# counters growing C > B and E > D. solocore-load: exit 0, no failed UE run, 2*UES path
# switches sent and acknowledged, none failed, no error, the last NCC 3, 2*UES End Markers
# each on the old TEID of a switched session (none elsewhere), G-PDUs both ways through each
# gNB and after the handovers, every UE twice handed over and at NCC 3. tshark on the N2
# pcap: nothing malformed, 2*UES PATH SWITCH REQUESTs and ACKNOWLEDGEs, no FAILURE, the
# acknowledges' NCC UES times 2 then UES times 3; on the gNB's N3 veth the End Markers
# (type 0xfe) on the old TEIDs with a PDU Session Container.
#
# MODE n2 / n2-indirect / n2-cancel (issue 17 items 5-6, N2 part): the same set-up, and each
# round is an N2 handover (TS 23.502 4.9.1.3, TS 38.413 8.4.1-8.4.3, 8.4.6-8.4.7) from
# solocore-load --handover-mode n2 (HANDOVER REQUIRED with DirectForwardingPathAvailability:
# the source forwards straight to the target's DL forwarding TEID) or n2-indirect (without:
# the core gives the source a UPF forwarding tunnel, TEID bit 31 set, and the UPF relays to
# the target's, TS 23.502 4.9.1.3.2 step 9-11). Asserted besides the TEID and counter
# snapshots above: 2*UES HANDOVER REQUIREDs, COMMANDs, NOTIFYs and source releases, no error;
# each forwarding tunnel of the kind the mode asks for; the End Marker of every switched
# session on the old path (UPF -> source, TS 23.501 5.8.2.9) and, sent on by the source,
# on the target's forwarding TEID; the forwarded G-PDUs counted by the target equal to
# those the source sent on and to tshark's count on the forwarding TEIDs (for n2-indirect:
# the source's to the UPF's N3 address on TEIDs with bit 31 set); no G-PDU lost but those in
# flight (uplink sent vs echoes received). n2-cancel: --handover-fail cancel, the source sends
# HANDOVER CANCEL after each HANDOVER COMMAND (TS 38.413 8.4.5): 2*UES CANCEL ACKNOWLEDGEs,
# the targets' contexts released, no NOTIFY, every session on its home gNB's TEID throughout
# with traffic growing, no End Marker.
#
#   e2e_handover.sh SOLOCORE SOLOCORE_LOAD [MODE]   MODE: xn (default), n2, n2-indirect, n2-cancel
#   env: UES (10), PPS (1000), SECS (10), HO_MS (3000)
#
# Needs root and `ip netns` (77 otherwise), python3, XDP generic mode on veth (77 otherwise).
set -u
SOLOCORE=$1 RANSIM=$2 MODE=${3:-xn}
case $MODE in
xn) HO_ARGS= ;;
n2) HO_ARGS="--handover-mode n2" ;;
n2-indirect) HO_ARGS="--handover-mode n2-indirect" ;;
n2-cancel) HO_ARGS="--handover-mode n2 --handover-fail cancel" ;;
*) echo "usage: e2e_handover.sh SOLOCORE SOLOCORE_LOAD [xn|n2|n2-indirect|n2-cancel]"; exit 2 ;;
esac
UES=${UES:-10} PPS=${PPS:-1000} SECS=${SECS:-10} SIZE=${SIZE:-100} HO_MS=${HO_MS:-3000}
CORE=
TOKEN=e2e-handover-token-4b1d
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (DN echo server, API client)"; exit 77; }

T=hox$$
e2e_netns "$T" 10.38.51 e2e-handover
NS_D=$T-d
trap 'ip netns del "$NS_D" 2>/dev/null; [ -n "${CAP:-}" ] && kill "$CAP" 2>/dev/null; e2e_cleanup' EXIT INT TERM
e2e_dn 10.38.52

gen_sims "$TMP/sims.toml" "$UES" 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/run.yaml" "$AMF" usrsctp "NIA2, NIA1, NIA3" "NEA2, NEA1, NEA0"
sed -i "s/^  level: .*/  level: info/" "$TMP/run.yaml"
yaml_upf "$TMP/run.yaml"

dn_echo 10.38.52.2

start_solocore_upf "$TMP/run.yaml" "$TMP/core.log"

snap() { # snap NAME: "supi ue_ip user_plane ul_packets dl_packets dl_teid" per session
	$NSC python3 - "$TOKEN" >"$TMP/$1.snap" 2>>"$TMP/snap.log" <<'EOF'
import http.client, json, sys
h = {"Authorization": "Bearer " + sys.argv[1]}
c = http.client.HTTPConnection("127.0.0.1", 5000, timeout=10)
c.request("GET", "/api/v1/sessions?limit=1000", headers=h)
r = c.getresponse(); b = r.read()
if r.status != 200:
    sys.exit("sessions: HTTP %d" % r.status)
for s in sorted(json.loads(b)["items"], key=lambda s: s["supi"]):
    print(s["supi"], s["ue_ip"], 1 if s["user_plane"] else 0, s["ul_packets"], s["dl_packets"], s["dl_teid"])
EOF
}
n_up() { awk '$3 == 1' "$TMP/$1.snap" | wc -l; }
ips() { cut -d' ' -f1,2 "$TMP/$1.snap"; }
# sessions whose gNB TEID is the one gNB (home + ROUND) mod 2 gave (ransim's RS_GNB_DL_TEID_AT:
# 0x10000000 | gNB << 22 | UE index; UE i = SIM i, on gNB i mod 2 first)
n_teid() {
	awk -v r="$2" '{ i = substr($1, 6) - 1010000000001; g = (i + r) % 2
		if ($3 == 1 && $6 == 268435456 + g * 4194304 + i) n++ } END { print n + 0 }' "$TMP/$1.snap"
}
grown() { join "$TMP/$1.snap" "$TMP/$2.snap" | awk '$9 > $4 && $10 > $5' | wc -l; }

# The End Markers on the gNB's N3 veth (GTP-U message type at UDP payload octet 1); for N2
# also the forwarding (TEIDs 0x2xxxxxxx, the targets', and with bit 31 set, the UPF's) on any
# interface of the gNB namespace: direct forwarding goes from the gNB address to itself (lo)
CAP=
if command -v dumpcap >/dev/null 2>&1 && command -v tshark >/dev/null 2>&1; then
	if [ "$MODE" = xn ]; then
		$NSR dumpcap -q -i "${T}b" -f "udp port 2152 and udp[9] = 0xfe" -w "$TMP/em.pcapng" >"$TMP/dumpcap.log" 2>&1 &
	else
		$NSR dumpcap -q -i any -f "udp port 2152 and (udp[9] = 0xfe or (udp[12] & 0xf0) = 0x20 or (udp[12] & 0x80) = 0x80)" \
			-w "$TMP/em.pcapng" >"$TMP/dumpcap.log" 2>&1 &
	fi
	CAP=$!
	i=0
	while ! grep -q "Capturing on" "$TMP/dumpcap.log" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
fi

# shellcheck disable=SC2086 # HO_ARGS: words
$NSR "$RANSIM" sessions --sims "$TMP/sims.toml" --addr "$AMF" --backend usrsctp --encap raw --gnbs 2 \
	--ues "$UES" --concurrency "$UES" --duration "$SECS" --no-progress --handover-after "$HO_MS" --handovers 2 $HO_ARGS \
	--gnb-n3 10.38.51.2 --traffic "$PPS" --traffic-size "$SIZE" --traffic-dst 10.38.52.2 --traffic-port 7 \
	--pcap "$TMP/n2.pcap" >"$TMP/load.out" 2>"$TMP/load.log" &
RS_PID=$!
t0=$(date +%s%N)
ms() { echo $((($(date +%s%N) - t0) / 1000000)); }
# until (SNAP, round R) holds for every session, at most until LIMIT ms
wait_teids() {
	while [ "$(ms)" -lt "$3" ]; do
		snap "$1" && [ "$(n_teid "$1" "$2")" = "$UES" ] && return 0
		sleep 0.1
	done
	return 1
}
# the rounds of a cancelled handover leave every session home: snapshots at fixed moments
at_ms() { while [ "$(ms)" -lt "$1" ]; do sleep 0.05; done; }
R1=1 R2=0
[ "$MODE" = n2-cancel ] && R1=0
wait_teids A 0 $((HO_MS - 300)) || fail "before the handover: not every session up on its home gNB within $((HO_MS - 300)) ms ($(n_teid A 0) of $UES)"
# traffic already flowing before the handover
sleep 0.2
snap A0
echo "A at $(ms) ms: $(n_up A) sessions up on their home gNB"
if [ "$MODE" = n2-cancel ]; then
	at_ms $((HO_MS + 300))
	snap B || fail "GET /api/v1/sessions (B)"
else
	wait_teids B 1 $((2 * HO_MS - 200)) || fail "round 1: not every session on the target's TEID ($(n_teid B 1) of $UES)"
fi
echo "B at $(ms) ms: $(n_teid B $R1) sessions on the TEID of gNB (home + $R1) mod 2"
if [ "$MODE" = n2-cancel ]; then at_ms $((HO_MS + 1500)); else sleep 1.5; fi
snap C || fail "GET /api/v1/sessions (C)"
if [ "$MODE" = n2-cancel ]; then
	at_ms $((2 * HO_MS + 300))
	snap D || fail "GET /api/v1/sessions (D)"
else
	wait_teids D 0 $((SECS * 1000 - 2000)) || fail "round 2: not every session back on its home gNB's TEID ($(n_teid D 0) of $UES)"
fi
echo "D at $(ms) ms: $(n_teid D $R2) sessions on the home gNB's TEID"
if [ "$MODE" = n2-cancel ]; then at_ms $((2 * HO_MS + 1500)); else sleep 1.5; fi
snap E || fail "GET /api/v1/sessions (E)"
wait "$RS_PID"
RS_RC=$?
RS_PID=
[ -n "$CAP" ] && { sleep 0.3; kill "$CAP" 2>/dev/null; wait "$CAP" 2>/dev/null; CAP=; }

[ "$(ips A | wc -l)" = "$UES" ] || fail "A: $(ips A | wc -l) sessions, $UES expected"
for s in B C D E; do
	[ "$(ips A)" = "$(ips $s)" ] || { fail "UE addresses of A and $s differ"; diff "$TMP/A.snap" "$TMP/$s.snap"; }
	[ "$(n_up $s)" = "$UES" ] || fail "$s: $(n_up $s) of $UES user planes active"
done
[ "$(n_teid C $R1)" = "$UES" ] || fail "C: $(n_teid C $R1) of $UES sessions on the TEID of gNB (home + $R1) mod 2"
[ "$(n_teid B $R1)" = "$UES" ] || fail "B: $(n_teid B $R1) of $UES sessions on the TEID of gNB (home + $R1) mod 2"
[ "$(n_teid D 0)" = "$UES" ] || fail "D: $(n_teid D 0) of $UES sessions on the home gNB's TEID"
[ "$(n_teid E 0)" = "$UES" ] || fail "E: $(n_teid E 0) of $UES sessions on the home gNB's TEID"
[ "$(grown A A0)" = "$UES" ] || fail "before the handover only $(grown A A0) of $UES sessions with traffic both ways"
[ "$(grown B C)" = "$UES" ] || { fail "after round 1 only $(grown B C) of $UES sessions have more uplink and downlink packets"; join "$TMP/B.snap" "$TMP/C.snap"; }
[ "$(grown D E)" = "$UES" ] || { fail "after round 2 only $(grown D E) of $UES sessions have more uplink and downlink packets"; join "$TMP/D.snap" "$TMP/E.snap"; }

xn_checks() {
	expect_rc load 0
	expect load ue_runs_failed 0
	expect load completed "$UES"
	expect load path_switch_sent "$HO"
	expect load path_switch_acked "$HO"
	expect load path_switch_failed 0
	expect load path_switch_errors 0
	expect load path_switch_ncc_last 3
	expect load path_switch_released 0
	expect load xn_src_released "$HO"
	expect load end_markers "$HO"
	expect load end_markers_other 0
	expect load ul_send_errors 0
	expect load dl_bad_inner 0
	expect load dl_err_ind 0
	for k in ul_after_ho dl_after_ho; do
		v=$(awk -v k=$k '$1 == k { print $2 }' "$TMP/load.out")
		[ "${v:-0}" -gt 0 ] 2>/dev/null || fail "load: $k ${v:-missing}, G-PDUs expected after the handovers"
	done
	gl=$(awk '$1 == "gnb_n3" && $4 > 0 && $6 > 0 && $8 == '"$UES"'' "$TMP/load.out" | wc -l)
	[ "$gl" = 2 ] || fail "load: $gl of 2 gNBs with G-PDUs both ways and $UES End Markers each: $(grep '^gnb_n3 ' "$TMP/load.out" | tr '\n' ';')"
	nue=$(grep -c '^ue_ho .* handovers 2 ncc 3 pending 0 end_marker_due 0 mode xn ' "$TMP/load.out")
	[ "$nue" = "$UES" ] || fail "load: $nue of $UES UEs twice handed over at NCC 3 with their End Marker seen"

	# tshark on ransim's N2 pcap (TS 38.413 8.4.4: procedure code 25)
	if command -v tshark >/dev/null 2>&1; then
		bad=$(tshark -r "$TMP/n2.pcap" -Y '_ws.malformed || _ws.expert.severity >= error' 2>>"$TMP/tshark.log" | wc -l)
		[ "$bad" = 0 ] || fail "n2 pcap: $bad malformed/error frames"
		nreq=$(tshark -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 25 && ngap.initiatingMessage_element' 2>>"$TMP/tshark.log" | wc -l)
		nack=$(tshark -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 25 && ngap.successfulOutcome_element' 2>>"$TMP/tshark.log" | wc -l)
		nfail=$(tshark -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 25 && ngap.unsuccessfulOutcome_element' 2>>"$TMP/tshark.log" | wc -l)
		[ "$nreq" = "$HO" ] && [ "$nack" = "$HO" ] && [ "$nfail" = 0 ] ||
			fail "n2 pcap: $nreq PATH SWITCH REQUESTs, $nack ACKNOWLEDGEs, $nfail FAILUREs ($HO, $HO, 0 expected)"
		nccs=$(tshark -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 25 && ngap.successfulOutcome_element' \
			-T fields -e ngap.nextHopChainingCount 2>>"$TMP/tshark.log" | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
		[ "$nccs" = "2:$UES 3:$UES " ] || fail "n2 pcap: acknowledges' NCC $nccs, 2:$UES 3:$UES expected"
		echo "n2 pcap: nothing malformed, $nreq PATH SWITCH REQUESTs, $nack ACKNOWLEDGEs (NCC count: $nccs)"
		if [ -f "$TMP/em.pcapng" ]; then
			tshark -r "$TMP/em.pcapng" -Y 'gtp.message == 0xfe' -T fields -e gtp.teid \
				-e gtp.ext_hdr.pdu_ses_con.qos_flow_id 2>>"$TMP/tshark.log" >"$TMP/em.txt"
			nem=$(wc -l <"$TMP/em.txt")
			emb=$(tshark -r "$TMP/em.pcapng" -Y '_ws.malformed || _ws.expert.severity >= error' 2>>"$TMP/tshark.log" | wc -l)
			# each on a TEID the UE's source had given: round 1 the home gNB's, round 2 the
			# other's, so 2*UES distinct TEIDs
			nuniq=$(cut -f1 "$TMP/em.txt" | sort -u | wc -l)
			nqfi=$(awk -F'\t' '$2 != ""' "$TMP/em.txt" | wc -l)
			[ "$nem" = "$HO" ] && [ "$emb" = 0 ] && [ "$nuniq" = "$HO" ] && [ "$nqfi" = "$HO" ] ||
				fail "n3: $nem End Markers ($nuniq TEIDs, $nqfi with a QFI, $emb malformed); $HO on distinct old TEIDs expected"
			echo "n3: $nem End Markers on $nuniq distinct old TEIDs, nothing malformed"
		fi
	else
		echo "note: no tshark: the N2 pcap is not decoded (the rest is asserted)"
	fi

}

# the N2 handover's report lines, tshark on the N2 pcap and on the forwarding capture
n2_checks() {
	expect_rc load 0
	expect load ue_runs_failed 0
	expect load completed "$UES"
	expect load n2ho_required "$HO"
	expect load n2ho_request_acks "$HO"
	expect load n2ho_commands "$HO"
	expect load n2ho_errors 0
	expect load n2ho_unexpected 0
	expect load n2ho_fwd_unknown 0
	expect load path_switch_sent 0
	expect load ul_send_errors 0
	expect load dl_bad_inner 0
	expect load dl_err_ind 0
	if [ "$MODE" = n2-cancel ]; then
		expect load n2ho_cancels "$HO"
		expect load n2ho_cancel_acks "$HO"
		expect load n2ho_tgt_released "$HO"
		expect load n2ho_notify 0
		expect load n2ho_ul_status 0
		expect load end_markers 0
		expect load end_markers_other 0
		nue=$(grep -c '^ue_ho .* gnb [01] .* handovers 0 .* mode n2 n2ho NONE n2ho_attempts 2$' "$TMP/load.out")
		[ "$nue" = "$UES" ] || fail "load: $nue of $UES UEs with 2 cancelled handovers, still home"
	else
		expect load n2ho_ul_status "$HO"
		expect load n2ho_dl_status "$HO"
		expect load n2ho_notify "$HO"
		expect load n2ho_src_released "$HO"
		expect load n2ho_done "$HO"
		expect load n2ho_ncc_last 3
		expect load end_markers "$HO"
		expect load end_markers_other 0
		expect load n2ho_fwd_em_sent "$HO"
		expect load n2ho_fwd_em_rx "$HO"
		if [ "$MODE" = n2 ]; then expect load n2ho_fwd_direct "$HO"; else expect load n2ho_fwd_indirect "$HO"; fi
		fs=$(awk '$1 == "n2ho_fwd_sent" { print $2 }' "$TMP/load.out")
		fr=$(awk '$1 == "n2ho_fwd_rx" { print $2 }' "$TMP/load.out")
		[ "${fr:-x}" = "${fs:-y}" ] || fail "load: the targets took $fr forwarded G-PDUs, the sources sent $fs on"
		nue=$(grep -c "^ue_ho .* handovers 2 ncc 3 pending 0 end_marker_due 0 mode $MODE n2ho NONE n2ho_attempts 2\$" "$TMP/load.out")
		[ "$nue" = "$UES" ] || fail "load: $nue of $UES UEs twice handed over at NCC 3, End Marker seen, mode $MODE"
	fi
	# nothing lost but what was in flight: every uplink G-PDU is echoed by the DN; allowed
	# missing: 10 ms of traffic per round plus one packet per session and round (measured: 0
	# in gcc runs of each mode; 28 once in an ASan run of n2-cancel, all on one gNB, 0 in reruns)
	ul=$(awk '$1 == "ul_packets" { print $2 }' "$TMP/load.out")
	dl=$(awk '$1 == "dl_packets" { print $2 }' "$TMP/load.out")
	lost=$((${ul:-0} - ${dl:-0}))
	echo "traffic: $ul G-PDUs up, $dl echoes back, $lost missing"
	[ "${ul:-0}" -gt 0 ] && [ $lost -le $((2 * (PPS / 100) + HO)) ] ||
		fail "traffic: $lost of $ul G-PDUs not echoed, at most $((2 * (PPS / 100) + HO)) in flight allowed"
	command -v tshark >/dev/null 2>&1 || { echo "note: no tshark: the captures are not decoded (the rest is asserted)"; return; }
	bad=$(tshark -r "$TMP/n2.pcap" -Y '_ws.malformed || _ws.expert.severity >= error' 2>>"$TMP/tshark.log" | wc -l)
	[ "$bad" = 0 ] || fail "n2 pcap: $bad malformed/error frames"
	# TS 38.413 9.4: procedure codes 12 preparation, 13 resource allocation, 11 notify, 10
	# cancel, 49 / 7 RAN status transfers, 41 UE context release
	nreq=$(tshark -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 12 && ngap.initiatingMessage_element && ngap.SourceNGRANNode_ToTargetNGRANNode_TransparentContainer_element' 2>>"$TMP/tshark.log" | wc -l)
	ndir=$(tshark -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 12 && ngap.initiatingMessage_element && ngap.DirectForwardingPathAvailability' 2>>"$TMP/tshark.log" | wc -l)
	nack=$(tshark -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 13 && ngap.successfulOutcome_element && ngap.dLForwardingUP_TNLInformation' 2>>"$TMP/tshark.log" | wc -l)
	ncmd=$(tshark -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 12 && ngap.successfulOutcome_element' 2>>"$TMP/tshark.log" | wc -l)
	nnot=$(tshark -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 11' 2>>"$TMP/tshark.log" | wc -l)
	nst=$(tshark -r "$TMP/n2.pcap" -Y '(ngap.procedureCode == 49 || ngap.procedureCode == 7) && ngap.dRBStatusUL18_element' 2>>"$TMP/tshark.log" | wc -l)
	ncan=$(tshark -r "$TMP/n2.pcap" -Y 'ngap.procedureCode == 10' 2>>"$TMP/tshark.log" | wc -l)
	wdir=$HO
	[ "$MODE" = n2-indirect ] && wdir=0
	if [ "$MODE" = n2-cancel ]; then wnot=0 wst=0 wcan=$((2 * HO)); else wnot=$HO wst=$((2 * HO)) wcan=0; fi
	[ "$nreq $ndir $nack $ncmd $nnot $nst $ncan" = "$HO $wdir $HO $HO $wnot $wst $wcan" ] ||
		fail "n2 pcap: required/direct/ack/command/notify/status/cancel $nreq $ndir $nack $ncmd $nnot $nst $ncan, $HO $wdir $HO $HO $wnot $wst $wcan expected"
	echo "n2 pcap: nothing malformed; $nreq HANDOVER REQUIREDs ($ndir with direct forwarding), $nack ACKNOWLEDGEs, $ncmd COMMANDs, $nnot NOTIFYs, $nst RAN STATUS TRANSFERs, $ncan CANCEL / ACKNOWLEDGE"
	[ -f "$TMP/em.pcapng" ] || { fail "no N3 capture"; return; }
	emb=$(tshark -r "$TMP/em.pcapng" -Y '_ws.malformed || _ws.expert.severity >= error' 2>>"$TMP/tshark.log" | wc -l)
	[ "$emb" = 0 ] || fail "n3: $emb malformed frames"
	# End Markers of the UPF on the old DL TEIDs (0x1...), and on the targets' forwarding TEIDs
	old=$(tshark -r "$TMP/em.pcapng" -Y 'gtp.message == 0xfe && ip.src == 10.38.51.1 && gtp.teid >= 0x10000000 && gtp.teid < 0x20000000' \
		-T fields -e gtp.teid 2>>"$TMP/tshark.log" | sort -u | wc -l)
	fem=$(tshark -r "$TMP/em.pcapng" -Y 'gtp.message == 0xfe && ip.dst == 10.38.51.2 && gtp.teid >= 0x20000000 && gtp.teid < 0x30000000' 2>>"$TMP/tshark.log" | wc -l)
	fpd=$(tshark -r "$TMP/em.pcapng" -Y 'gtp.message == 0xff && ip.dst == 10.38.51.2 && gtp.teid >= 0x20000000 && gtp.teid < 0x30000000' 2>>"$TMP/tshark.log" | wc -l)
	upf=$(tshark -r "$TMP/em.pcapng" -Y 'ip.dst == 10.38.51.1 && gtp.teid >= 0x80000000' 2>>"$TMP/tshark.log" | wc -l)
	if [ "$MODE" = n2-cancel ]; then
		[ "$old $fem $fpd $upf" = "0 0 0 0" ] || fail "n3: End Markers / forwarding after cancelled handovers: $old $fem $fpd $upf"
	else
		[ "$old" = "$HO" ] && [ "$fem" = "$HO" ] && [ "$fpd" = "${fr:-x}" ] ||
			fail "n3: $old End Markers on distinct old TEIDs, $fem and $fpd G-PDUs on the forwarding TEIDs; $HO, $HO and $fr expected"
		if [ "$MODE" = n2-indirect ]; then
			# the source's End Markers and G-PDUs to the UPF's forwarding TEIDs (bit 31)
			[ "$upf" = $((HO + ${fs:-0})) ] || fail "n3: $upf packets to the UPF's forwarding TEIDs, $((HO + ${fs:-0})) expected"
		else
			[ "$upf" = 0 ] || fail "n3: $upf packets to a UPF forwarding TEID with direct forwarding"
		fi
	fi
	echo "n3: $old End Markers on the old TEIDs, $fem End Markers and $fpd G-PDUs on the forwarding TEIDs, $upf to the UPF's forwarding TEIDs"
}

HO=$((2 * UES))
if [ "$MODE" = xn ]; then xn_checks; else n2_checks; fi

echo "handover-$MODE: $UES UEs, 2 gNBs, rounds at $HO_MS and $((2 * HO_MS)) ms: $(grep -E '^(path_switch_[a-z_]+|n2ho_[a-z_]+|end_markers|ul_after_ho|dl_after_ho|ul_packets|dl_packets) ' "$TMP/load.out" | tr '\n' ' ')"
grep '^gnb_n3 ' "$TMP/load.out"
stop_core
[ $FAILS = 0 ] || { show_logs; for f in "$TMP"/*.snap; do echo "---- $f"; cat "$f"; done; exit 1; }
echo "ok: handover-$MODE"
exit 0
