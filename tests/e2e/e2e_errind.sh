#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# A gNB's GTP-U Error Indication (TS 29.281 7.3.1) deactivates the user plane of the PDU
# session whose downlink tunnel it names, in both UPF modes (issue 32, Error Indication);
# forged ones change nothing.
#
#   builtin   gNB ns (ransim) 10.38.81.2 --veth-- 10.38.81.1 core ns (solocore run, XDP UPF on
#             the same veth for N3) 10.38.82.1 --veth-- 10.38.82.2 DN ns.
#   pfcp      gNB ns 10.38.83.2 N2 --veth-- core ns (solocore run, upf.mode pfcp, N4 10.38.84.1)
#             --veth-- 10.38.84.2 upf ns (solocore upf, N3 10.38.85.1 --veth-- gNB ns
#             10.38.85.2, N6 10.38.86.1 --veth-- DN 10.38.86.2).
#
# One UE registers with a PDU session and holds it (ransim --hold-ms); GET /api/v1/sessions
# gives its downlink tunnel (gnb_ip, dl_teid). Then, from the gNB namespace (python3, real UDP):
#   1. adversary: an Error Indication naming that tunnel from another N3 address of the gNB
#      host (10.38.x.66), one from the gNB's address naming another TEID, one from the gNB's
#      address naming itself at another address: the session's user plane stays active
#      (user_plane true), the SMF logs no deactivation and the UPF logs them ignored;
#   2. the gNB's own Error Indication for the tunnel: the SMF deactivates the session's user
#      plane (TS 29.244 5.10, TS 23.527 5.3, as an AN release: TS 23.502 4.2.6; the session
#      stays: state ACTIVE, user_plane false), logged by the SMF.
#   pfcp: the N4 capture (tshark) holds a Session Report Request with Report Type ERIR and the
#      Error Indication Report's Remote F-TEID (TEID, gNB address) (TS 29.244 7.5.8.4), its
#      response with cause 1, and then the SMF's Session Modification with the downlink FAR to
#      BUFF + NOCP (8.2.26); nothing malformed.
#
#   e2e_errind.sh SOLOCORE RANSIM CASE
# Needs root and `ip netns` (77 otherwise), python3, XDP generic on veth (77 with the reason).
set -u
SOLOCORE=$1 RANSIM=$2 CASE=$3
CORE=
TOKEN=e2e-errind-token-7c1d
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (API client, Error Indication sender)"; exit 77; }

case $CASE in
builtin) NET=10.38.81 ;;
pfcp) NET=10.38.83 ;;
*) echo "usage: e2e_errind.sh SOLOCORE RANSIM builtin|pfcp"; exit 2 ;;
esac
T=ei$$
e2e_netns "$T" "$NET" e2e-errind
NS_D=$T-d NS_U=$T-u
U_PID= CAP= RSP=
cleanup() {
	[ -n "$RSP" ] && kill -KILL "$RSP" 2>/dev/null
	[ -n "$CAP" ] && kill -KILL "$CAP" 2>/dev/null
	[ -n "$U_PID" ] && { kill -TERM "$U_PID" 2>/dev/null; wait "$U_PID" 2>/dev/null; }
	ip netns del "$NS_D" 2>/dev/null; ip netns del "$NS_U" 2>/dev/null
	e2e_cleanup
}
trap cleanup EXIT INT TERM

gen_sims "$TMP/sims.toml" 1 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/core.yaml" "$AMF" usrsctp
sed -i "s/^  level: .*/  level: info/" "$TMP/core.yaml"

if [ "$CASE" = builtin ]; then
	GNB_N3=$NET.2 EVIL=$NET.66 GNB_IF=${T}b
	e2e_dn 10.38.82
	yaml_upf "$TMP/core.yaml"
	start_solocore_upf "$TMP/core.yaml" "$TMP/core.log"
else
	GNB_N3=10.38.85.2 EVIL=10.38.85.66 GNB_IF=${T}g
	link() { # NS_A IF_A ADDR_A NS_B IF_B ADDR_B
		ip link add "$2" type veth peer name "$5" || { echo "FAIL: veth $2"; exit 1; }
		ip link set "$2" netns "$1" && ip link set "$5" netns "$4" || exit 1
		ip -n "$1" addr add "$3/24" dev "$2" && ip -n "$4" addr add "$6/24" dev "$5" || exit 1
		ip -n "$1" link set "$2" up && ip -n "$4" link set "$5" up || exit 1
	}
	ip netns add "$NS_U" && ip netns add "$NS_D" || exit 1
	ip -n "$NS_U" link set lo up && ip -n "$NS_D" link set lo up
	link "$NS_C" "${T}c" 10.38.84.1 "$NS_U" "${T}m" 10.38.84.2
	link "$NS_R" "${T}g" 10.38.85.2 "$NS_U" "${T}n" 10.38.85.1
	link "$NS_U" "${T}x" 10.38.86.1 "$NS_D" "${T}d" 10.38.86.2
	ip -n "$NS_D" route add 10.45.0.0/16 via 10.38.86.1 || exit 1
	ip netns exec "$NS_U" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 || exit 1
	cat >"$TMP/upf.yaml" <<EOF
log:
  level: info
dnns:
  - { name: "internet", pool: "10.45.0.0/16" }
upf:
  n3_interface: "${T}n"
  n6_interface: "${T}x"
  n4_address: "10.38.84.2"
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
	need_capture
	capture_start "$NS_C" "${T}c" "udp port 8805" 200 "$TMP/n4.pcapng"
	cat >>"$TMP/core.yaml" <<EOF
dnns:
  - { name: "internet", pool: "10.45.0.0/16" }
upf:
  mode: pfcp
  n4_address: "10.38.84.1"
  peers:
    - { name: "upf1", address: "10.38.84.2", n3_address: "10.38.85.1" }
web: { listen: "127.0.0.1", port: 5000 }
EOF
	SOLOCORE_WEB_TOKEN=$TOKEN start_solocore "$TMP/core.yaml" "$TMP/core.log" ||
		{ fail "solocore run $SOLOCORE_WHY"; show_logs; exit 1; }
	i=0
	while ! grep -q 'association.*up\|associated' "$TMP/core.log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
fi

# api PATH: GET PATH on the core's web API, body on stdout
api() {
	$NSC python3 - "$TOKEN" "$1" <<'EOT'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", 5000, timeout=10)
c.request("GET", sys.argv[2], headers={"Authorization": "Bearer " + sys.argv[1]})
sys.stdout.write(c.getresponse().read().decode())
EOT
}
# sess: the one session as "state user_plane dl_teid gnb_ip" (empty: none yet)
sess() {
	api /api/v1/sessions | python3 -c '
import json, sys
it = json.load(sys.stdin)["items"]
if it:
    s = it[0]
    print(s["state"], str(s["user_plane"]).lower(), s["dl_teid"], s["gnb_ip"])'
}
# ei FROM PEER TEID: a GTP-U Error Indication (TS 29.281 7.3.1: TEID 0, S; TEID Data I, GTP-U
# Peer Address) from FROM (an ephemeral port) to the UPF's N3 address:2152
ei() {
	$NSR python3 - "$1" "$2" "$3" "$UPF_N3" <<'EOT'
import socket, struct, sys
frm, peer, teid, to = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
ies = struct.pack("!BI", 16, teid) + struct.pack("!BH", 133, 4) + socket.inet_aton(peer)
m = struct.pack("!BBHIHBB", 0x32, 26, 4 + len(ies), 0, 0, 0, 0) + ies
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((frm, 0))
s.sendto(m, (to, 2152))
EOT
}

# the UE: registered, one PDU session, held (ransim counts the downlink on gNB N3 GNB_N3)
$NSR "$RANSIM" --addr "$AMF" --backend usrsctp --encap raw --sims "$TMP/sims.toml" --ues 1 \
	--session --hold-ms 15000 --timeout 40 --gnb-n3 "$GNB_N3" >"$TMP/rs.out" 2>"$TMP/rs.log" &
RSP=$!
i=0 S=
while [ $i -lt 100 ]; do
	S=$(sess 2>/dev/null)
	case "$S" in "ACTIVE true "*) break ;; esac
	sleep 0.1; i=$((i + 1))
done
echo "session: $S"
case "$S" in "ACTIVE true "*) ;; *) fail "no active session (got '$S')"; show_logs; exit 1 ;; esac
set -- $S
TEID=$3 GNB_IP=$4
[ "$GNB_IP" = "$GNB_N3" ] || fail "the session's gNB address is $GNB_IP, not $GNB_N3"
if [ "$CASE" = builtin ]; then UPF_N3=$NET.1; else UPF_N3=10.38.85.1; fi

# 1. adversary (another host on N3, or the gNB naming another tunnel): nothing changes
ip -n "$NS_R" addr add "$EVIL/24" dev "$GNB_IF" || exit 1
ei "$EVIL" "$GNB_IP" "$TEID"
ei "$GNB_N3" "$GNB_IP" $((TEID + 1))
ei "$GNB_N3" "$EVIL" "$TEID"
sleep 0.5
S=$(sess)
case "$S" in "ACTIVE true "*) ;; *) fail "a forged Error Indication changed the session: '$S'" ;; esac
grep -q "user plane deactivated" "$TMP/core.log" && fail "a forged Error Indication deactivated the user plane"
if [ "$CASE" = builtin ]; then ULOG=$TMP/core.log; else ULOG=$TMP/upf.log; fi
grep -q "Error Indication for teid=.* ignored" "$ULOG" || fail "the UPF logged no ignored Error Indication"
grep -q "Error Indication: session" "$ULOG" && fail "the UPF reported a forged Error Indication"

# 2. the gNB that holds the tunnel: user plane deactivated, session kept
ei "$GNB_N3" "$GNB_IP" "$TEID"
i=0
while [ $i -lt 50 ]; do
	S=$(sess)
	case "$S" in "ACTIVE false"*) break ;; esac
	sleep 0.1; i=$((i + 1))
done
echo "after the gNB's Error Indication: $S"
case "$S" in "ACTIVE false"*) ;; *) fail "the gNB's Error Indication did not deactivate the user plane: '$S'" ;; esac
grep -q "Error Indication from the gNB (teid=$(printf 0x%x "$TEID")): user plane deactivated" "$TMP/core.log" ||
	fail "no SMF log line for the deactivation"

kill -KILL "$RSP" 2>/dev/null; wait "$RSP" 2>/dev/null; RSP=
stop_core
if [ "$CASE" = pfcp ]; then
	sleep 0.3
	kill -INT "$CAP" 2>/dev/null; wait "$CAP" 2>/dev/null; CAP=
	tf() { tshark -r "$TMP/n4.pcapng" -Y "$1" 2>>"$TMP/tshark.log" | wc -l; }
	echo "N4 (count, message type):"
	tshark -r "$TMP/n4.pcapng" -Y pfcp -T fields -e pfcp.msg_type 2>>"$TMP/tshark.log" | sort -n | uniq -c
	[ "$(tf '_ws.malformed || _ws.expert.severity >= error')" = 0 ] || fail "N4 capture: malformed frames"
	# TS 29.244 7.5.8.4: exactly one report, ERIR, Remote F-TEID = the gNB's tunnel
	n=$(tf "pfcp.msg_type == 56 && pfcp.report_type.erir == 1 && pfcp.f_teid.teid == $TEID && pfcp.f_teid.ipv4_addr == $GNB_IP")
	[ "$n" = 1 ] || fail "N4: $n Session Report Requests with ERIR and the Remote F-TEID ($TEID, $GNB_IP), 1 expected"
	[ "$(tf 'pfcp.msg_type == 57 && pfcp.cause == 1')" -ge 1 ] || fail "N4: the report was not answered with cause 1"
	# then the SMF's modification: the downlink FAR to BUFF + NOCP (8.2.26)
	r=$(tshark -r "$TMP/n4.pcapng" -Y 'pfcp.msg_type == 56' -T fields -e frame.number 2>>"$TMP/tshark.log" | head -n 1)
	m=$(tf "pfcp.msg_type == 52 && frame.number > ${r:-0} && pfcp.apply_action.buff == 1 && pfcp.apply_action.nocp == 1")
	[ "$m" -ge 1 ] || fail "N4: no Session Modification with BUFF + NOCP after the report"
fi
[ $FAILS = 0 ] || { show_logs; exit 1; }
echo "ok: errind $CASE"
exit 0
