#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# Handovers with `solocore run` in upf.mode pfcp driving `solocore upf` (issue 32, "SNDEM on
# tunnel moves"):
#
#   gNB ns (solocore-load, 2 gNBs) 10.38.94.2 N2 --veth-- 10.38.94.1 core ns (solocore run,
#   upf.mode pfcp, N4 10.38.95.1) --veth-- 10.38.95.2 upf ns (solocore upf, N3 10.38.96.1
#   --veth-- gNB ns 10.38.96.2, N6 10.38.97.1 --veth-- DN 10.38.97.2, UDP echo :7).
#
# UES UEs with a PDU session each and uplink traffic to the DN's echo; HO_MS after the start
# one round of handovers to the other gNB:
#   xn   Xn handover (PATH SWITCH REQUEST, TS 23.502 4.9.1.2.2): the SMF moves the downlink to
#        the target's F-TEID with a Session Modification whose Update FAR carries the new Outer
#        Header Creation and PFCPSMReq-Flags SNDEM (TS 29.244 7.5.4.1, 8.2.31); `solocore upf`
#        switches and sends an End Marker (TS 29.281 7.3.2, GTP-U type 254) on the old tunnel.
#   n2-indirect  N2 handover without a direct forwarding path (TS 23.502 4.9.1.3.2-3): at the
#        HANDOVER REQUIRED the SMF asks the UPF for a forwarding tunnel (Create PDR 3: Source
#        Access, Type 14 N3 for data forwarding, F-TEID CHOOSE; Create FAR 3 DROP; TS 29.244
#        7.5.4.2-3, 8.2.3), the UPF answers its F-TEID (UPF_FWD_TEID, bit 31) in a Created PDR
#        (7.5.5.1); at the ACKNOWLEDGE the FAR forwards to the target's DL forwarding F-TEID
#        (Update FAR, OHC TEID 0x2xxxxxxx); the HANDOVER COMMAND names the UPF's F-TEID; the
#        source forwards its downlink and its End Marker there and `solocore upf` relays them to
#        the target (upf_fwd.c); the NOTIFY moves the downlink (SNDEM, End Marker on the old
#        tunnel); the source's release ends the forwarding: Remove PDR 3 + Remove FAR 3.
#        The Handover Command needs the tunnel's F-TEID at once (the AMF takes the SMF's answer
#        to the acknowledge synchronously), and the UPF chooses it: it is asked at the HANDOVER
#        REQUIRED (step 9's request moved ahead, FAR DROP until the target is known); a handover
#        whose acknowledge comes before the UPF's answer goes without forwarding (the SMF logs
#        it, its tunnel removed at once). ransim's target answers within a millisecond, so on a
#        loaded host some of the UES lose that race: K (>= 1) is the number that had it.
#        Asserted besides: UES Create / Created / Remove and K Update FAR on N4 (tshark: Create PDR with interface type 14
#        and CH, Created PDR with a TEID >= 0x80000000, Update FAR to the target, Remove PDR /
#        FAR, every modification answered with cause 1), the UPF logs K tunnels created and
#        removed; on N3 the source's G-PDUs and End Markers to the UPF's forwarding TEIDs and
#        as many relayed to the targets' forwarding TEIDs, the targets' count equal to the
#        sources' (n2ho_fwd_rx = n2ho_fwd_sent).
# Asserted: solocore-load: every UE handed over (path_switch_acked = UES), UES End Markers
# each on the old TEID of a switched session (end_markers, none elsewhere), traffic after the
# handover; tshark on N4 (core side): UES Session Modification Requests with SNDEM, each with
# an Outer Header Creation TEID of a target gNB (0x10400000 | i for gNB 1, 0x10000000 | i for
# gNB 0: ransim's RS_GNB_DL_TEID_AT), none malformed; on N3 (the gNBs' veth): UES End Markers
# from the UPF's N3 address, on UES distinct old TEIDs, none malformed.
#
#   e2e_pfcp_ho.sh SOLOCORE SOLOCORE_LOAD CASE      CASE: xn, n2-indirect
#   env: UES (4), PPS (1000), SECS (5), HO_MS (1500)
# Needs root and `ip netns` (77 otherwise), python3, dumpcap/tshark, XDP generic on veth (77).
set -u
SOLOCORE=$1 RANSIM=$2 CASE=${3:-xn}
case $CASE in
xn) HO_ARGS= ;;
n2-indirect) HO_ARGS="--handover-mode n2-indirect" ;;
*) echo "usage: e2e_pfcp_ho.sh SOLOCORE SOLOCORE_LOAD xn|n2-indirect"; exit 2 ;;
esac
UES=${UES:-4} PPS=${PPS:-1000} SECS=${SECS:-5} HO_MS=${HO_MS:-1500}
CORE=
TOKEN=e2e-pfcpho-token-91e2
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (DN echo server)"; exit 77; }
need_capture

T=pho$$
e2e_netns "$T" 10.38.94 e2e-pfcp-ho
NS_D=$T-d NS_U=$T-u
U_PID= CAP= CAP3= RS_PID=
cleanup() {
	[ -n "$RS_PID" ] && kill -KILL "$RS_PID" 2>/dev/null
	[ -n "$CAP" ] && kill -KILL "$CAP" 2>/dev/null
	[ -n "$CAP3" ] && kill -KILL "$CAP3" 2>/dev/null
	[ -n "$U_PID" ] && { kill -TERM "$U_PID" 2>/dev/null; wait "$U_PID" 2>/dev/null; }
	ip netns del "$NS_D" 2>/dev/null; ip netns del "$NS_U" 2>/dev/null
	e2e_cleanup
}
trap cleanup EXIT INT TERM

gen_sims "$TMP/sims.toml" "$UES" 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/core.yaml" "$AMF" usrsctp
sed -i "s/^  level: .*/  level: info/" "$TMP/core.yaml"

link() { # NS_A IF_A ADDR_A NS_B IF_B ADDR_B
	ip link add "$2" type veth peer name "$5" || { echo "FAIL: veth $2"; exit 1; }
	ip link set "$2" netns "$1" && ip link set "$5" netns "$4" || exit 1
	ip -n "$1" addr add "$3/24" dev "$2" && ip -n "$4" addr add "$6/24" dev "$5" || exit 1
	ip -n "$1" link set "$2" up && ip -n "$4" link set "$5" up || exit 1
}
ip netns add "$NS_U" && ip netns add "$NS_D" || exit 1
ip -n "$NS_U" link set lo up && ip -n "$NS_D" link set lo up
link "$NS_C" "${T}c" 10.38.95.1 "$NS_U" "${T}m" 10.38.95.2
link "$NS_R" "${T}g" 10.38.96.2 "$NS_U" "${T}n" 10.38.96.1
link "$NS_U" "${T}x" 10.38.97.1 "$NS_D" "${T}d" 10.38.97.2
ip -n "$NS_D" route add 10.45.0.0/16 via 10.38.97.1 || exit 1
ip netns exec "$NS_U" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 || exit 1
NSD="ip netns exec $NS_D"
dn_echo 10.38.97.2

cat >"$TMP/upf.yaml" <<EOF
log:
  level: info
dnns:
  - { name: "internet", pool: "10.45.0.0/16" }
upf:
  n3_interface: "${T}n"
  n6_interface: "${T}x"
  n4_address: "10.38.95.2"
  xdp_mode: generic
  max_sessions: 1024
EOF
ip netns exec "$NS_U" "$SOLOCORE" upf -c "$TMP/upf.yaml" >"$TMP/upf.log" 2>&1 &
U_PID=$!
i=0
while ! grep -q "PFCP\|n4.*listening\|N4 listening" "$TMP/upf.log" 2>/dev/null && [ $i -lt 100 ]; do
	grep -q "cannot attach" "$TMP/upf.log" 2>/dev/null && {
		echo "SKIP: solocore upf cannot attach XDP generic to a veth here: $(grep 'cannot attach' "$TMP/upf.log")"
		exit 77; }
	kill -0 "$U_PID" 2>/dev/null || break
	sleep 0.1; i=$((i + 1))
done
kill -0 "$U_PID" 2>/dev/null || { fail "solocore upf did not start"; show_logs; exit 1; }

capture_start "$NS_C" "${T}c" "udp port 8805" 2000 "$TMP/n4.pcapng"
CAP4=$CAP
# N3 on the gNBs' side: End Markers (GTP-U type 254 at UDP payload octet 1), and the
# forwarding tunnels (TEIDs with bit 31 set: the UPF's; 0x2xxxxxxx: the targets')
capture_start "$NS_R" "${T}g" "udp port 2152 and (udp[9] = 0xfe or (udp[12] & 0xf0) = 0x20 or (udp[12] & 0x80) = 0x80)" \
	100000 "$TMP/n3.pcapng"
CAP3=$CAP CAP=$CAP4

cat >>"$TMP/core.yaml" <<EOF
dnns:
  - { name: "internet", pool: "10.45.0.0/16" }
upf:
  mode: pfcp
  n4_address: "10.38.95.1"
  peers:
    - { name: "upf1", address: "10.38.95.2", n3_address: "10.38.96.1" }
web: { listen: "127.0.0.1", port: 5000 }
EOF
SOLOCORE_WEB_TOKEN=$TOKEN start_solocore "$TMP/core.yaml" "$TMP/core.log" ||
	{ fail "solocore run $SOLOCORE_WHY"; show_logs; exit 1; }
i=0
while ! grep -q 'association.*up\|associated' "$TMP/core.log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

# shellcheck disable=SC2086 # HO_ARGS: words
$NSR "$RANSIM" sessions --sims "$TMP/sims.toml" --addr "$AMF" --backend usrsctp --encap raw --gnbs 2 \
	--ues "$UES" --concurrency "$UES" --duration "$SECS" --no-progress --handover-after "$HO_MS" --handovers 1 $HO_ARGS \
	--gnb-n3 10.38.96.2 --traffic "$PPS" --traffic-dst 10.38.97.2 --traffic-port 7 \
	>"$TMP/load.out" 2>"$TMP/load.log" &
RS_PID=$!
wait "$RS_PID"
RS_RC=$?
RS_PID=
stop_core
sleep 0.3
kill -INT "$CAP" "$CAP3" 2>/dev/null; wait "$CAP" 2>/dev/null; wait "$CAP3" 2>/dev/null; CAP= CAP3=

expect_rc load 0
expect load ue_runs_failed 0
expect load completed "$UES"
expect load ul_send_errors 0
expect load dl_err_ind 0
for k in ul_after_ho dl_after_ho; do
	v=$(awk -v k=$k '$1 == k { print $2 }' "$TMP/load.out")
	[ "${v:-0}" -gt 0 ] 2>/dev/null || fail "load: $k ${v:-missing}, G-PDUs expected after the handover"
done
if [ "$CASE" = xn ]; then
	expect load path_switch_sent "$UES"
	expect load path_switch_acked "$UES"
	expect load path_switch_failed 0
else
	expect load n2ho_required "$UES"
	expect load n2ho_commands "$UES"
	expect load n2ho_notify "$UES"
	expect load n2ho_done "$UES"
	expect load n2ho_src_released "$UES"
	expect load n2ho_errors 0
	# K: the handovers whose forwarding F-TEID the UPF had answered by the target's
	# acknowledge (the SMF's log); the others went without forwarding (see the header)
	K=$(grep -c "handover admitted: .*forwarding indirect" "$TMP/core.log")
	nk=$(grep -c "forwarding tunnel's F-TEID not known" "$TMP/core.log")
	echo "handovers with indirect forwarding: $K of $UES ($nk without: the UPF's answer came after the acknowledge)"
	[ "$K" -ge 1 ] || fail "no handover with indirect forwarding: every UPF answer came after the target's acknowledge"
	[ $((K + nk)) = "$UES" ] || fail "the SMF logged $K handovers with forwarding and $nk without, $UES expected in all"
	expect load n2ho_fwd_indirect "$K"
	expect load n2ho_fwd_em_sent "$K"
	expect load n2ho_fwd_em_rx "$K"
	expect load n2ho_fwd_unknown 0
	fs=$(awk '$1 == "n2ho_fwd_sent" { print $2 }' "$TMP/load.out")
	fr=$(awk '$1 == "n2ho_fwd_rx" { print $2 }' "$TMP/load.out")
	[ "${fr:-x}" = "${fs:-y}" ] || fail "load: the targets took $fr forwarded G-PDUs, the sources sent $fs on"
fi
expect load end_markers "$UES"
expect load end_markers_other 0

tf() { tshark -r "$1" -Y "$2" 2>>"$TMP/tshark.log" | wc -l; }
echo "N4 (count, message type):"
tshark -r "$TMP/n4.pcapng" -Y pfcp -T fields -e pfcp.msg_type 2>>"$TMP/tshark.log" | sort -n | uniq -c
[ "$(tf "$TMP/n4.pcapng" '_ws.malformed || _ws.expert.severity >= error')" = 0 ] || fail "N4 capture: malformed frames"
[ "$(tf "$TMP/n3.pcapng" '_ws.malformed || _ws.expert.severity >= error')" = 0 ] || fail "N3 capture: malformed frames"
# TS 29.244 7.5.4.1 / 8.2.31: the path switch's modification asks for End Markers, with the
# target gNB's tunnel (ransim: gNB g, UE i -> TEID 0x10000000 | g << 22 | i)
n=$(tf "$TMP/n4.pcapng" 'pfcp.msg_type == 52 && pfcp.smreq_flags.sndem == 1 && pfcp.outer_hdr_creation.teid >= 0x10000000 && pfcp.outer_hdr_creation.teid < 0x10800000 && pfcp.outer_hdr_creation.ipv4 == 10.38.96.2')
[ "$n" = "$UES" ] || fail "N4: $n Session Modification Requests with SNDEM and the target's Outer Header Creation, $UES expected"
n=$(tf "$TMP/n4.pcapng" 'pfcp.smreq_flags.sndem == 1')
[ "$n" = "$UES" ] || fail "N4: $n requests with SNDEM in all, $UES expected (one per tunnel move)"
# TS 29.281 7.3.2: the End Marker from the UPF's N3 address on each session's old TEID
tshark -r "$TMP/n3.pcapng" -Y 'gtp.message == 0xfe && ip.src == 10.38.96.1 && gtp.teid >= 0x10000000 && gtp.teid < 0x20000000' -T fields -e gtp.teid \
	2>>"$TMP/tshark.log" >"$TMP/em.txt"
nem=$(wc -l <"$TMP/em.txt")
nuniq=$(sort -u "$TMP/em.txt" | wc -l)
[ "$nem" = "$UES" ] && [ "$nuniq" = "$UES" ] || fail "N3: $nem End Markers on $nuniq distinct TEIDs from the UPF, $UES expected"
echo "N3: $nem End Markers from the UPF on $nuniq old TEIDs: $(tr '\n' ' ' <"$TMP/em.txt")"

if [ "$CASE" = n2-indirect ]; then
	# TS 29.244 7.5.4.2 / 8.2.118 / 8.2.3: the forwarding PDR asked with CHOOSE, Type 14
	n=$(tf "$TMP/n4.pcapng" 'pfcp.msg_type == 52 && pfcp.ie_type == 1 && pfcp.pdr_id == 3 && pfcp.tgpp_interface_type == 14 && pfcp.f_teid_flags.ch == 1 && pfcp.apply_action.drop == 1')
	[ "$n" = "$UES" ] || fail "N4: $n Create PDR 3 (type 14, CHOOSE) with FAR DROP, $UES expected"
	# 7.5.5.1: its F-TEID in a Created PDR, one of the data path's forwarding TEIDs (bit 31)
	n=$(tf "$TMP/n4.pcapng" 'pfcp.msg_type == 53 && pfcp.cause == 1 && pfcp.ie_type == 8 && pfcp.pdr_id == 3 && pfcp.f_teid.teid >= 0x80000000 && pfcp.f_teid.ipv4_addr == 10.38.96.1')
	[ "$n" = "$UES" ] || fail "N4: $n Created PDR 3 with a forwarding TEID on 10.38.96.1, $UES expected"
	# the FAR to the target gNB's DL forwarding F-TEID (ransim: 0x2xxxxxxx)
	n=$(tf "$TMP/n4.pcapng" 'pfcp.msg_type == 52 && pfcp.ie_type == 10 && pfcp.far_id == 3 && pfcp.apply_action.forw == 1 && pfcp.outer_hdr_creation.teid >= 0x20000000 && pfcp.outer_hdr_creation.teid < 0x30000000 && pfcp.outer_hdr_creation.ipv4 == 10.38.96.2')
	[ "$n" = "$K" ] || fail "N4: $n Update FAR 3 to a target's forwarding tunnel, $K expected"
	# 4.9.1.3.3 step 21a: removed (Remove PDR 15, Remove FAR 16)
	n=$(tf "$TMP/n4.pcapng" 'pfcp.msg_type == 52 && pfcp.ie_type == 15 && pfcp.ie_type == 16 && pfcp.pdr_id == 3 && pfcp.far_id == 3')
	[ "$n" = "$UES" ] || fail "N4: $n Remove PDR 3 + Remove FAR 3, $UES expected"
	n=$(tf "$TMP/n4.pcapng" 'pfcp.msg_type == 53 && pfcp.cause != 1')
	[ "$n" = 0 ] || fail "N4: $n Session Modification Responses with a cause other than 1"
	nc=$(grep -c "forwarding tunnel teid=0x8" "$TMP/upf.log")
	nr=$(grep -c "forwarding tunnel removed" "$TMP/upf.log")
	[ "$nc $nr" = "$K $K" ] || fail "solocore upf: $nc forwarding tunnels created, $nr removed; $K each expected"
	# N3: the source's packets to the UPF's forwarding TEIDs, relayed to the targets'
	up=$(tf "$TMP/n3.pcapng" 'ip.dst == 10.38.96.1 && gtp.teid >= 0x80000000')
	upem=$(tf "$TMP/n3.pcapng" 'ip.dst == 10.38.96.1 && gtp.teid >= 0x80000000 && gtp.message == 0xfe')
	tg=$(tf "$TMP/n3.pcapng" 'ip.src == 10.38.96.1 && gtp.teid >= 0x20000000 && gtp.teid < 0x30000000 && gtp.message == 0xff')
	tgem=$(tf "$TMP/n3.pcapng" 'ip.src == 10.38.96.1 && gtp.teid >= 0x20000000 && gtp.teid < 0x30000000 && gtp.message == 0xfe')
	echo "N3: $up packets to the UPF's forwarding TEIDs ($upem End Markers); relayed to the targets: $tg G-PDUs, $tgem End Markers"
	[ "$upem" = "$K" ] && [ "$tgem" = "$K" ] && [ "$up" = $((K + ${fs:-0})) ] && [ "$tg" = "${fr:-x}" ] ||
		fail "N3: forwarding $up ($upem End Markers) in, $tg G-PDUs + $tgem End Markers out; $((K + ${fs:-0})) ($K), ${fr:-?} + $K expected"
fi

echo "pfcp-ho-$CASE: $(grep -E '^(path_switch_[a-z_]+|n2ho_[a-z_]+|end_markers[a-z_]*|ul_packets|dl_packets) ' "$TMP/load.out" | tr '\n' ' ')"
[ $FAILS = 0 ] || { show_logs; exit 1; }
echo "ok: pfcp-ho-$CASE"
exit 0
