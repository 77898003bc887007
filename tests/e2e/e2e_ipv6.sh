#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# IPv4v6 PDU sessions through solocore's XDP UPF with IPv6 traffic (issue 19 items 1, 2, 4).
# Three network namespaces, as e2e_traffic.sh, and IPv6 on N6:
#
#   gNB ns (solocore-load)  --veth N3--  core ns (solocore run)  --veth N6--  DN ns
#   10.38.53.2: N2 + N3 :2152            10.38.53.1 | 10.38.54.1               10.38.54.2, 2001:db8:54::2
#                                                     2001:db8:54::1           UDP echo :7 (IPv6)
#
# The DNN has pool 10.45.0.0/16 and pool6 2001:db8:45::/48; the DN routes both back to the
# core. solocore-load registers UES UEs, each asking an IPv4v6 session (as phones do,
# TS 24.501 6.4.1.2), which is granted with both (PDU address: IPv4 + interface identifier,
# 9.11.4.10); each UE sends a Router Solicitation through the tunnel and takes its /64 from
# the Router Advertisement the UPF answers with (TS 23.501 5.8.2.2.2, RFC 4861), then sends
# IPv6/UDP G-PDUs from prefix::IID to the DN's echo server, whose answers come back through
# the UPF's IPv6 downlink (matched by the /64). Asserted: every UE got an RA (ra_received =
# UES, ra_bad 0), IPv6 both ways (ul6_packets > 0, dl6_packets > 0, no bad inner packet, no
# Error Indication), the DN saw UES distinct sources, each inside pool6 with a distinct /64;
# on the N3 wire (tshark): no malformed frame, Router Solicitations (ICMPv6 133) up and
# Router Advertisements (134) down whose prefix is inside pool6, inner IPv6 both ways.
#
#   e2e_ipv6.sh SOLOCORE SOLOCORE_LOAD      env: UES (10), PPS (1000), SECS (3), SIZE (100)
# Needs root and `ip netns` (77 otherwise), XDP in generic mode on veth (77 with the reason).
set -u
SOLOCORE=$1 RANSIM=$2
UES=${UES:-10} PPS=${PPS:-1000} SECS=${SECS:-3} SIZE=${SIZE:-100}
CORE=
TOKEN=e2e-ipv6-token-3c1d
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (DN echo server)"; exit 77; }
need_capture

T=v6$$
e2e_netns "$T" 10.38.53 e2e-ipv6
NS_D=$T-d
trap 'ip netns del "$NS_D" 2>/dev/null; e2e_cleanup' EXIT INT TERM
e2e_dn 10.38.54
ip -n "$NS_C" -6 addr add 2001:db8:54::1/64 dev "${T}n" nodad || exit 1
ip -n "$NS_D" -6 addr add 2001:db8:54::2/64 dev "${T}d" nodad || exit 1
ip -n "$NS_D" -6 route add 2001:db8:45::/48 via 2001:db8:54::1 || exit 1
$NSC sysctl -qw net.ipv6.conf.all.forwarding=1 || exit 1
# The veths' link-local addresses are tentative for a DAD period (RFC 4862 5.4): no neighbour
# discovery until then. Wait for it, and resolve the N6 neighbour once, so the first echoes
# are not what is measured.
_i=0
while [ -n "$($NSC ip -6 addr show tentative)$($NSD ip -6 addr show tentative)" ] && [ $_i -lt 50 ]; do
	sleep 0.1; _i=$((_i + 1))
done
$NSC ping -6 -c 1 -W 2 2001:db8:54::2 >/dev/null 2>&1 || true   # best effort (iputils may be absent)

gen_sims "$TMP/sims.toml" "$UES" 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/run.yaml" "$AMF" usrsctp
sed -i "s/^  level: .*/  level: info/" "$TMP/run.yaml"
cat >>"$TMP/run.yaml" <<EOT
dnns:
  - { name: "internet", pool: "10.45.0.0/16", pool6: "2001:db8:45::/48", dns: ["8.8.8.8", "2001:4860:4860::8888"] }
upf:
  n3_interface: "${T}a"
  n6_interface: "${T}n"
  xdp_mode: generic
web: { listen: "127.0.0.1", port: 5000 }
EOT

# The DN's IPv6 echo, counting its sources (e2e_lib.sh)
dn_echo_ns B_PID "$NS_D" 2001:db8:54::2 "$TMP/echo.ready"

start_solocore_upf "$TMP/run.yaml" "$TMP/core.log"

capture_start "$NS_R" "${T}b" "udp port 2152" 3000 "$TMP/n3.pcapng"

run_ransim load sessions --sims "$TMP/sims.toml" --addr "$AMF" --backend usrsctp --encap raw \
	--ues "$UES" --concurrency "$UES" --duration "$SECS" --no-progress --pdu-type ipv4v6 \
	--gnb-n3 10.38.53.2 --traffic "$PPS" --traffic-size "$SIZE" --traffic-dst6 2001:db8:54::2 --traffic-port 7

v() { grep "^$2 " "$TMP/$1.out" | head -n 1 | cut -d' ' -f2; }
expect_rc load 0
expect load ue_runs_failed 0
expect load completed "$UES"
expect load ra_received "$UES"
expect load ra_bad 0
expect load dl_bad_inner 0
expect load dl_unknown_teid 0
expect load dl_err_ind 0
expect load ul_send_errors 0
ul6=$(v load ul6_packets) dl6=$(v load dl6_packets)
echo "IPv6 through the UPF: $UES UEs, ul6_packets $ul6 dl6_packets $dl6, rs_sent $(v load rs_sent), ra_received $(v load ra_received)"
[ -n "$ul6" ] && [ "$ul6" -gt 0 ] || fail "no IPv6 uplink G-PDU sent (ul6_packets '$ul6')"
[ -n "$dl6" ] && [ "$dl6" -gt 0 ] || fail "no IPv6 downlink came back (dl6_packets '$dl6')"
[ -n "$dl6" ] && [ -n "$ul6" ] && [ "$dl6" -le "$ul6" ] && [ $((ul6 - dl6)) -le $((PPS / 5 + UES)) ] ||
	fail "IPv6 uplink $ul6, downlink $dl6: more missing than the in-flight bound"

stop_echo B_PID "$TMP/echo.ready"
# one address per UE, each inside pool6, each in its own /64 (TS 23.501 5.8.2.2.1)
n=$(wc -l <"$TMP/echo.ready.srcs")
[ "$n" = "$UES" ] || fail "the DN saw $n IPv6 sources, $UES expected"
grep -vq '^2001:db8:45:' "$TMP/echo.ready.srcs" && fail "sources outside pool6: $(grep -v '^2001:db8:45:' "$TMP/echo.ready.srcs" | head -3)"
p64=$(python3 -c '
import ipaddress, sys
print(len({ipaddress.ip_network(l.split()[0] + "/64", strict=False) for l in open(sys.argv[1])}))' "$TMP/echo.ready.srcs")
[ "$p64" = "$UES" ] || fail "$p64 distinct /64s for $UES UEs"

stop_core
kill -INT "$CAP" 2>/dev/null; wait "$CAP" 2>/dev/null
tsn() { tshark -r "$TMP/n3.pcapng" -Y "$1" 2>>"$TMP/tshark.log" | wc -l; }
[ "$(tsn '_ws.malformed || _ws.expert.severity >= error')" = 0 ] || fail "N3 capture: malformed or error frames"
[ "$(tsn 'gtp && icmpv6.type == 133 && ip.src == 10.38.53.2')" -ge 1 ] || fail "no Router Solicitation on N3"
[ "$(tsn 'gtp && icmpv6.type == 134 && ip.dst == 10.38.53.2')" -ge 1 ] || fail "no Router Advertisement on N3"
ra_pfx=$(tshark -r "$TMP/n3.pcapng" -Y 'icmpv6.type == 134' -T fields -e icmpv6.opt.prefix 2>>"$TMP/tshark.log" | sort -u)
echo "RA prefixes: $(echo "$ra_pfx" | tr '\n' ' ')"
echo "$ra_pfx" | grep -vq '^2001:db8:45:' && fail "an RA prefix outside pool6: $ra_pfx"
[ "$(tsn 'gtp.message == 255 && ipv6.dst == 2001:db8:54::2')" -ge 1 ] || fail "no inner IPv6 uplink on N3"
[ "$(tsn 'gtp.message == 255 && ipv6.src == 2001:db8:54::2')" -ge 1 ] || fail "no inner IPv6 downlink on N3"
[ $FAILS = 0 ] || { show_logs; exit 1; }
echo "ok: ipv6"
exit 0
