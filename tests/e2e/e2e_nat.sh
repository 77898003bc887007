#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# NAT on N6 in the XDP UPF (issue 19 item 3): the DNN has nat: true, so the UEs' IPv4 uplink
# leaves N6 with the N6 address as its source (a port each, RFC 4787) and the answers are
# translated back before the downlink lookup. The DN host has NO route to the UE pool: only
# translated traffic can come back. Three network namespaces as e2e_traffic.sh:
#
#   gNB ns (solocore-load)  --veth N3--  core ns (solocore run)  --veth N6--  DN ns
#   10.38.55.2: N2 + N3 :2152            10.38.55.1 | 10.38.56.1               10.38.56.2: UDP echo :7
#
# Asserted: every UE's G-PDUs answered (dl = ul within the in-flight bound, no bad inner
# packet: the UE sees its own address again), the DN saw exactly one source, the N6 address,
# from as many source ports as UEs (at least); on the N6 wire (tshark): every packet from
# the core has source 10.38.56.1 and no UE address appears, checksums verify.
#
#   e2e_nat.sh SOLOCORE SOLOCORE_LOAD      env: UES (10), PPS (1000), SECS (3), SIZE (100)
set -u
SOLOCORE=$1 RANSIM=$2
UES=${UES:-10} PPS=${PPS:-1000} SECS=${SECS:-3} SIZE=${SIZE:-100}
CORE=
TOKEN=e2e-nat-token-7d02
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (DN echo server)"; exit 77; }
need_capture

T=nat$$
e2e_netns "$T" 10.38.55 e2e-nat
NS_D=$T-d
trap 'ip netns del "$NS_D" 2>/dev/null; e2e_cleanup' EXIT INT TERM
e2e_dn 10.38.56
ip -n "$NS_D" route del 10.45.0.0/16 || exit 1   # the DN cannot reach the UEs: NAT or nothing

gen_sims "$TMP/sims.toml" "$UES" 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/run.yaml" "$AMF" usrsctp
sed -i "s/^  level: .*/  level: info/" "$TMP/run.yaml"
cat >>"$TMP/run.yaml" <<EOT
dnns:
  - { name: "internet", pool: "10.45.0.0/16", nat: true }
upf:
  n3_interface: "${T}a"
  n6_interface: "${T}n"
  xdp_mode: generic
web: { listen: "127.0.0.1", port: 5000 }
EOT

dn_echo_ns B_PID "$NS_D" 10.38.56.2 "$TMP/echo.ready"
start_solocore_upf "$TMP/run.yaml" "$TMP/core.log"

capture_start "$NS_D" "${T}d" "udp port 7" 2000 "$TMP/n6.pcapng"

run_ransim load sessions --sims "$TMP/sims.toml" --addr "$AMF" --backend usrsctp --encap raw \
	--ues "$UES" --concurrency "$UES" --duration "$SECS" --no-progress --pdu-type ipv4 \
	--gnb-n3 10.38.55.2 --traffic "$PPS" --traffic-size "$SIZE" --traffic-dst 10.38.56.2 --traffic-port 7

# the UPF's counters (GET /metrics), shown with the figures
$NSC python3 - "$TOKEN" >"$TMP/upf_metrics.out" <<'EOT'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", 5000, timeout=10)
c.request("GET", "/metrics", headers={"Authorization": "Bearer " + sys.argv[1]})
for l in c.getresponse().read().decode().splitlines():
    if l.startswith("solocore_upf") and not l.endswith(" 0"):
        print(l)
EOT
echo "UPF counters (non-zero):"; cat "$TMP/upf_metrics.out"
v() { grep "^$2 " "$TMP/$1.out" | head -n 1 | cut -d' ' -f2; }
expect_rc load 0
expect load ue_runs_failed 0
expect load completed "$UES"
expect load dl_bad_inner 0
expect load dl_unknown_teid 0
expect load dl_err_ind 0
expect load ul_send_errors 0
ul=$(v load ul_packets) dl=$(v load dl_packets)
echo "NAT through the UPF: $UES UEs, ul_packets $ul dl_packets $dl"
[ -n "$ul" ] && [ "$ul" -gt 0 ] || fail "no uplink G-PDU sent"
[ -n "$dl" ] && [ "$dl" -gt 0 ] || fail "no answer came back through the NAT (dl_packets '$dl')"
[ -n "$dl" ] && [ -n "$ul" ] && [ "$dl" -le "$ul" ] && [ $((ul - dl)) -le $((PPS / 5 + UES)) ] ||
	fail "uplink $ul, downlink $dl: more missing than the in-flight bound"

stop_echo B_PID "$TMP/echo.ready"
echo "sources the DN saw:"; cat "$TMP/echo.ready.srcs"
[ "$(wc -l <"$TMP/echo.ready.srcs")" = 1 ] && grep -q '^10\.38\.56\.1 ' "$TMP/echo.ready.srcs" ||
	fail "the DN saw other sources than the N6 address 10.38.56.1"

stop_core
kill -INT "$CAP" 2>/dev/null; wait "$CAP" 2>/dev/null
tsn() { tshark -r "$TMP/n6.pcapng" -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE -Y "$1" 2>>"$TMP/tshark.log" | wc -l; }
# The translated packets (from the core) must verify; the DN's own answers are captured on
# their sender before checksum offload fills them in, so only their form is checked.
[ "$(tsn '(_ws.malformed || _ws.expert.severity >= error) && ip.src == 10.38.56.1')" = 0 ] ||
	fail "N6 capture: translated frames malformed or with bad checksums"
[ "$(tshark -r "$TMP/n6.pcapng" -Y _ws.malformed 2>>"$TMP/tshark.log" | wc -l)" = 0 ] || fail "N6 capture: malformed frames"
[ "$(tsn 'ip.addr == 10.45.0.0/16')" = 0 ] || fail "a UE address appeared on N6"
[ "$(tsn 'ip.src == 10.38.56.1 && udp.dstport == 7')" -ge 1 ] || fail "no translated uplink on N6"
ports=$(tshark -r "$TMP/n6.pcapng" -Y 'ip.src == 10.38.56.1' -T fields -e udp.srcport 2>>"$TMP/tshark.log" | sort -u | wc -l)
echo "NAT source ports seen on N6: $ports"
[ "$ports" -ge "$UES" ] || fail "$ports NAT ports for $UES UEs (all with the same inner source port)"
[ $FAILS = 0 ] || { show_logs; exit 1; }
echo "ok: nat"
exit 0
