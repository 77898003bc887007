#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# GTP-U through solocore's real XDP UPF (issue 8 item 1: `solocore-load sessions` with
# traffic). Three network namespaces:
#
#   gNB ns (solocore-load)  --veth N3--  core ns (solocore run)  --veth N6--  DN ns
#   10.38.49.2: N2 + N3 :2152            10.38.49.1 | 10.38.50.1               10.38.50.2: UDP echo :7
#
# `solocore run` with upf.n3_interface / n6_interface on its two veths (xdp_mode generic),
# ip_forward on; the DN routes the UE pool 10.45.0.0/16 back to the core. solocore-load
# registers UES UEs with a PDU session each and, for SECS seconds, sends PPS G-PDUs per
# second in total (TS 29.281, PDU Session Container with the QFI) to the UPF's N3 TEIDs:
# the XDP program decapsulates them and forwards the inner UDP to the DN's echo server; its
# replies enter the N6 veth, are encapsulated toward the gNB DL TEIDs and counted by
# solocore-load. Asserted: solocore-load exit 0, no failed UE run, every UE with a session;
# ul_packets > 0 and equal to the UPF's "upf".ul_packets of GET /api/v1/stats (and the
# bytes), nothing sent was refused (ul_send_errors 0), no UPF drop; dl_packets > 0 and at
# most ul_packets, every downlink G-PDU on a TEID we gave with the UE's own address inside
# (dl_unknown_teid 0, dl_bad_inner 0) and an echo's size, and equal to the UPF's downlink
# packets and bytes, no Error Indication; on the wire
# (dumpcap on the gNB's veth, tshark; noted and left out when not installed): no malformed
# frame, every uplink G-PDU with PDU Session Container type 1 and every downlink one type 0,
# one QFI both ways. Prints the figures.
#
#   e2e_traffic.sh SOLOCORE SOLOCORE_LOAD      env: UES (20), PPS (2000), SECS (4), SIZE (100)
#
# Needs root and `ip netns` (77 otherwise, from e2e_netns), python3 (the DN echo server and
# the API client), XDP in generic mode on veth (77 with the UPF's reason otherwise).
set -u
SOLOCORE=$1 RANSIM=$2   # solocore-load, run by run_ransim (e2e_lib.sh)
UES=${UES:-20} PPS=${PPS:-2000} SECS=${SECS:-4} SIZE=${SIZE:-100}
CORE=
TOKEN=e2e-traffic-token-51fa
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (DN echo server, API client)"; exit 77; }

T=trf$$
e2e_netns "$T" 10.38.49 e2e-traffic
NS_D=$T-d
# e2e_cleanup (e2e_lib.sh) removes the core, gNB namespaces, the echo server (B_PID), TMP.
trap 'ip netns del "$NS_D" 2>/dev/null; e2e_cleanup' EXIT INT TERM
e2e_dn 10.38.50

gen_sims "$TMP/sims.toml" "$UES" 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/run.yaml" "$AMF" usrsctp
sed -i "s/^  level: .*/  level: info/" "$TMP/run.yaml"
yaml_upf "$TMP/run.yaml"

dn_echo 10.38.50.2

start_solocore_upf "$TMP/run.yaml" "$TMP/core.log"

stats() { # the "upf" object of GET /api/v1/stats as "key value" lines
	$NSC python3 - "$TOKEN" <<'EOF'
import http.client, json, sys
c = http.client.HTTPConnection("127.0.0.1", 5000, timeout=10)
c.request("GET", "/api/v1/stats", headers={"Authorization": "Bearer " + sys.argv[1]})
u = json.loads(c.getresponse().read())["upf"]
for k in ("ul_packets", "ul_bytes", "dl_packets", "dl_bytes"):
    print(k, u[k])
for k, v in sorted(u["drops"].items()):
    print("drop_" + k, v)
EOF
}

# The wire on the gNB's N3 veth (the first 400 GTP-U datagrams), decoded by tshark below.
CAP=
if command -v dumpcap >/dev/null 2>&1 && command -v tshark >/dev/null 2>&1; then
	$NSR dumpcap -q -i "${T}b" -f "udp port 2152" -c 400 -w "$TMP/n3.pcapng" >"$TMP/dumpcap.log" 2>&1 &
	CAP=$!
	i=0
	while ! grep -q "Capturing on" "$TMP/dumpcap.log" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
else
	echo "note: no dumpcap/tshark: the G-PDUs are not decoded on the wire (the rest is asserted)"
fi
run_ransim load sessions --sims "$TMP/sims.toml" --addr "$AMF" --backend usrsctp --encap raw \
	--ues "$UES" --concurrency "$UES" --duration "$SECS" --no-progress \
	--gnb-n3 10.38.49.2 --traffic "$PPS" --traffic-size "$SIZE" --traffic-dst 10.38.50.2 --traffic-port 7
stats >"$TMP/upf.out" || fail "GET /api/v1/stats"

v() { grep "^$2 " "$TMP/$1.out" | head -n 1 | cut -d' ' -f2; }
expect_rc load 0
expect load ue_runs_failed 0
expect load completed "$UES"
expect load ul_send_errors 0
expect load dl_unknown_teid 0
expect load dl_bad_inner 0
expect load dl_err_ind 0
expect load dl_other 0
ul=$(v load ul_packets) ulb=$(v load ul_bytes) dl=$(v load dl_packets)
uul=$(v upf ul_packets) uulb=$(v upf ul_bytes) udl=$(v upf dl_packets)
[ -n "$ul" ] && [ "$ul" -gt 0 ] || fail "solocore-load sent no G-PDU (ul_packets '$ul')"
[ "$ul" = "$uul" ] || fail "solocore-load sent $ul G-PDUs, the UPF forwarded $uul"
[ "$ulb" = "$uulb" ] || fail "solocore-load sent $ulb inner bytes, the UPF counted $uulb"
[ -n "$dl" ] && [ "$dl" -gt 0 ] || fail "no downlink G-PDU came back (dl_packets '$dl')"
[ -n "$dl" ] && [ -n "$ul" ] && [ "$dl" -le "$ul" ] || fail "more downlink ($dl) than uplink ($ul)"
[ "$(v load dl_bytes)" = $((dl * SIZE)) ] || fail "downlink inner bytes $(v load dl_bytes): not $dl echoes of $SIZE bytes"
# every downlink G-PDU the UPF counts reached the gNB, including those sent from user space
# (first packets to a next hop without a neighbour entry, upf_exc.c)
[ "$udl" = "$dl" ] || fail "the UPF counted $udl downlink G-PDUs, the gNB received $dl"
[ "$(v upf dl_bytes)" = "$(v load dl_bytes)" ] || fail "the UPF counted $(v upf dl_bytes) downlink bytes, the gNB received $(v load dl_bytes)"
# no packet refused by the UPF (its drop counters, unknown TEID included)
bad=$(grep '^drop_' "$TMP/upf.out" | grep -v ' 0$' | tr '\n' ' ')
[ -z "$bad" ] || fail "the UPF dropped packets: $bad"

if [ -n "$CAP" ]; then
	# TS 29.281 G-PDUs with a TS 38.415 PDU Session Container: type 1 (UL) with the session's
	# QFI from us, type 0 (DL) with the same QFI from the UPF, inner UDP to / from port 7
	kill -INT "$CAP" 2>/dev/null; wait "$CAP" 2>/dev/null
	tsf() { tshark -r "$TMP/n3.pcapng" -Y "$1" -T fields -e gtp.ext_hdr.pdu_ses_con.pdu_type \
		-e gtp.ext_hdr.pdu_ses_con.qos_flow_id -e udp.port 2>>"$TMP/tshark.log" | sort | uniq -c; }
	wul=$(tsf "gtp.message == 255 && ip.src == 10.38.49.2")
	wdl=$(tsf "gtp.message == 255 && ip.dst == 10.38.49.2")
	wbad=$(tshark -r "$TMP/n3.pcapng" -Y '_ws.malformed || _ws.expert.severity >= error' 2>>"$TMP/tshark.log" | wc -l)
	echo "wire uplink (count, PDU type, QFI, UDP ports outer,inner):"; echo "$wul"
	echo "wire downlink:"; echo "$wdl"
	[ "$wbad" = 0 ] || fail "n3 capture: $wbad malformed/error frames"
	[ "$(echo "$wul" | wc -l)" = 1 ] && echo "$wul" | grep -Eq "^ *[0-9]+ 1	[1-9][0-9]*	2152,2152,40000,7$" ||
		fail "uplink G-PDUs on the wire: not all PDU type 1, one QFI, UDP 40000 -> 7"
	[ "$(echo "$wdl" | wc -l)" = 1 ] && echo "$wdl" | grep -Eq "^ *[0-9]+ 0	[1-9][0-9]*	2152,2152,7,40000$" ||
		fail "downlink G-PDUs on the wire: not all PDU type 0, one QFI, UDP 7 -> 40000"
	[ "$(echo "$wul" | cut -f2)" = "$(echo "$wdl" | cut -f2)" ] || fail "uplink and downlink QFIs differ"
fi

echo "traffic: $UES UEs, $PPS G-PDU/s for ${SECS}s, inner $SIZE bytes"
echo "solocore-load: ul_packets $ul ul_bytes $ulb dl_packets $dl dl_bytes $(v load dl_bytes)" \
	"ul_packets_per_s $(v load ul_packets_per_s) ul_no_buffer $(v load ul_no_buffer)"
echo "upf (GET /api/v1/stats): ul_packets $uul ul_bytes $uulb dl_packets $udl dl_bytes $(v upf dl_bytes)"
stop_core
[ $FAILS = 0 ] || { show_logs; cat "$TMP/upf.out"; exit 1; }
echo "ok: traffic"
exit 0
