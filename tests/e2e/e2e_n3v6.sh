#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# GTP-U over IPv6 on N3 (issue 19 item 2; TS 29.281 4.4.2, TS 38.414 5.1): gNBs whose N3 is
# IPv6 only, N2 on IPv4, through solocore's XDP UPF with upf.n3_address6. Three namespaces:
#
#   gNB ns (solocore-load)            --veth--  core ns (solocore run)      --veth N6--  DN ns
#   10.38.55.2 N2, 2001:db8:55::2 N3            10.38.55.1, 2001:db8:55::1              10.38.56.2,
#                                               10.38.56.1 | 2001:db8:56::1             2001:db8:56::2
#                                                                                       UDP echo :7
#
# Two runs of solocore-load on the same core. The first: UES UEs with IPv4v6 sessions (TS 24.501
# 6.4.1.2), each takes its /64 from the Router Advertisement (TS 23.501 5.8.2.2.2) and sends
# IPv6/UDP to the DN's IPv6 echo: inner IPv6 in outer IPv6. The second: UES UEs with IPv4
# sessions and IPv4/UDP to the DN's IPv4 echo: inner IPv4 in outer IPv6. ransim's gNB reads our
# UL tunnel (160 bits, IPv4 then IPv6, TS 38.413 9.3.2.4) and takes its IPv6; it gives a 128-bit
# DL tunnel, which the SMF serves over IPv6. Asserted: everything registered and answered
# (in-flight bound), no Error Indication; the core counted outer IPv6 both ways; on the N3 wire
# (tshark, UDP checksums validated): only IPv6 outside, no malformed frame, no bad checksum,
# G-PDUs both ways in IPv6 with inner IPv6 and with inner IPv4, RS and RA inside.
#
#   e2e_n3v6.sh SOLOCORE SOLOCORE_LOAD      env: UES (8), PPS (800), SECS (3), SIZE (100)
# Needs root and `ip netns` (77 otherwise), XDP in generic mode on veth (77 with the reason).
set -u
SOLOCORE=$1 RANSIM=$2
UES=${UES:-8} PPS=${PPS:-800} SECS=${SECS:-3} SIZE=${SIZE:-100}
CORE=
TOKEN=e2e-n3v6-token-51af
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (DN echo server)"; exit 77; }
need_capture

T=n6$$
e2e_netns "$T" 10.38.55 e2e-n3v6
NS_D=$T-d
trap 'ip netns del "$NS_D" 2>/dev/null; e2e_cleanup' EXIT INT TERM
e2e_dn 10.38.56
ip -n "$NS_C" -6 addr add 2001:db8:55::1/64 dev "${T}a" nodad || exit 1
ip -n "$NS_R" -6 addr add 2001:db8:55::2/64 dev "${T}b" nodad || exit 1
ip -n "$NS_C" -6 addr add 2001:db8:56::1/64 dev "${T}n" nodad || exit 1
ip -n "$NS_D" -6 addr add 2001:db8:56::2/64 dev "${T}d" nodad || exit 1
ip -n "$NS_D" -6 route add 2001:db8:45::/48 via 2001:db8:56::1 || exit 1
$NSC sysctl -qw net.ipv6.conf.all.forwarding=1 || exit 1
# Checksums in software on every veth, as a packet on a real wire has them: with TX checksum
# offload a veth hands the peer CHECKSUM_PARTIAL packets whose UDP/TCP checksum field holds
# only the pseudo-header sum (the peer skips verification), so a capture would show bad
# checksums the wire never carries. The XDP program derives the outer UDP checksum assuming
# the inner one is complete (upf.bpf.c inner_sum), as Linux's own local checksum offload does;
# tshark then verifies both on the capture.
command -v ethtool >/dev/null 2>&1 || { echo "FAIL: ethtool not installed (build.sh installs it)"; exit 1; }
$NSD ethtool -K "${T}d" tx off >/dev/null && $NSC ethtool -K "${T}a" tx off >/dev/null &&
	$NSC ethtool -K "${T}n" tx off >/dev/null && $NSR ethtool -K "${T}b" tx off >/dev/null ||
	{ echo "FAIL: ethtool -K tx off"; exit 1; }
# Link-local addresses are tentative for a DAD period (RFC 4862 5.4): no neighbour discovery
# before; then resolve the neighbours once so the first packets are not what is measured.
_i=0
while [ -n "$($NSC ip -6 addr show tentative)$($NSD ip -6 addr show tentative)$($NSR ip -6 addr show tentative)" ] &&
      [ $_i -lt 50 ]; do
	sleep 0.1; _i=$((_i + 1))
done
$NSC ping -6 -c 1 -W 2 2001:db8:56::2 >/dev/null 2>&1 || true   # best effort (iputils may be absent)
$NSC ping -6 -c 1 -W 2 2001:db8:55::2 >/dev/null 2>&1 || true

gen_sims "$TMP/sims.toml" "$((2 * UES))" 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/run.yaml" "$AMF" usrsctp
sed -i "s/^  level: .*/  level: info/" "$TMP/run.yaml"
cat >>"$TMP/run.yaml" <<EOT
dnns:
  - { name: "internet", pool: "10.45.0.0/16", pool6: "2001:db8:45::/48", dns: ["8.8.8.8", "2001:4860:4860::8888"] }
upf:
  n3_interface: "${T}a"
  n6_interface: "${T}n"
  n3_address6: "2001:db8:55::1"
  xdp_mode: generic
web: { listen: "127.0.0.1", port: 5000 }
EOT

dn_echo_ns E6_PID "$NS_D" 2001:db8:56::2 "$TMP/echo6.ready"
dn_echo_ns E4_PID "$NS_D" 10.38.56.2 "$TMP/echo4.ready"
trap 'kill $E4_PID $E6_PID 2>/dev/null; ip netns del "$NS_D" 2>/dev/null; e2e_cleanup' EXIT INT TERM

start_solocore_upf "$TMP/run.yaml" "$TMP/core.log"

capture_start "$NS_R" "${T}b" "udp port 2152" 20000 "$TMP/n3.pcapng"

v() { grep "^$2 " "$TMP/$1.out" | head -n 1 | cut -d' ' -f2; }
check_run() {
	expect_rc "$1" 0
	expect "$1" ue_runs_failed 0
	expect "$1" completed "$UES"
	expect "$1" dl_bad_inner 0
	expect "$1" dl_unknown_teid 0
	expect "$1" dl_err_ind 0
	expect "$1" ul_send_errors 0
	_ul=$(v "$1" "$2") _dl=$(v "$1" "$3")
	echo "$1: $UES UEs, $2 $_ul, $3 $_dl"
	[ -n "$_ul" ] && [ "$_ul" -gt 0 ] || fail "$1: no uplink G-PDU sent ($2 '$_ul')"
	[ -n "$_dl" ] && [ "$_dl" -gt 0 ] || fail "$1: no downlink came back ($3 '$_dl')"
	[ -n "$_dl" ] && [ -n "$_ul" ] && [ "$_dl" -le "$_ul" ] && [ $((_ul - _dl)) -le $((PPS / 5 + UES)) ] ||
		fail "$1: uplink $_ul, downlink $_dl: more missing than the in-flight bound"
}

# inner IPv6 in outer IPv6
run_ransim v6 sessions --sims "$TMP/sims.toml" --addr "$AMF" --backend usrsctp --encap raw \
	--ues "$UES" --concurrency "$UES" --duration "$SECS" --no-progress --pdu-type ipv4v6 \
	--gnb-n3 2001:db8:55::2 --traffic "$PPS" --traffic-size "$SIZE" --traffic-dst6 2001:db8:56::2 --traffic-port 7
check_run v6 ul6_packets dl6_packets
expect v6 ra_received "$UES"
expect v6 ra_bad 0

# inner IPv4 in outer IPv6, the other half of the SIMs
run_ransim v4 sessions --sims "$TMP/sims.toml" --addr "$AMF" --backend usrsctp --encap raw \
	--ues "$UES" --sim-offset "$UES" --concurrency "$UES" --duration "$SECS" --no-progress --pdu-type ipv4 \
	--gnb-n3 2001:db8:55::2 --traffic "$PPS" --traffic-size "$SIZE" --traffic-dst 10.38.56.2 --traffic-port 7
check_run v4 ul_packets dl_packets

# the UPF's own account (GET /metrics): outer IPv6 both ways
$NSC python3 - "$TOKEN" >"$TMP/upf_metrics.out" <<'EOT'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", 5000, timeout=10)
c.request("GET", "/metrics", headers={"Authorization": "Bearer " + sys.argv[1]})
for l in c.getresponse().read().decode().splitlines():
    if l.startswith("solocore_upf") and not l.endswith(" 0"):
        print(l)
EOT
echo "UPF counters (non-zero):"; cat "$TMP/upf_metrics.out"
m() { grep -F "$1" "$TMP/upf_metrics.out" | head -n 1 | awk '{print $2}'; }
ul=$(m 'solocore_upf_n3_ipv6_packets_total{direction="ul",path="xdp"}')
dl=$(m 'solocore_upf_n3_ipv6_packets_total{direction="dl",path="xdp"}')
[ -n "$ul" ] && [ "$ul" -gt 0 ] || fail "the UPF counted no uplink in outer IPv6 ('$ul')"
[ -n "$dl" ] && [ "$dl" -gt 0 ] || fail "the UPF counted no downlink in outer IPv6 in XDP ('$dl')"

stop_echo E6_PID "$TMP/echo6.ready"
stop_echo E4_PID "$TMP/echo4.ready"
n6=$(wc -l <"$TMP/echo6.ready.srcs") n4=$(wc -l <"$TMP/echo4.ready.srcs")
[ "$n6" = "$UES" ] || fail "the DN saw $n6 IPv6 sources, $UES expected"
[ "$n4" = "$UES" ] || fail "the DN saw $n4 IPv4 sources, $UES expected"

stop_core
kill -INT "$CAP" 2>/dev/null; wait "$CAP" 2>/dev/null
CK="-o udp.check_checksum:TRUE -o ip.check_checksum:TRUE"
tsn() { tshark -r "$TMP/n3.pcapng" $CK -Y "$1" 2>>"$TMP/tshark.log" | wc -l; }
all=$(tsn 'udp.port == 2152')
echo "N3 capture: $all GTP-U frames"
[ "$all" -gt 0 ] || fail "nothing captured on N3"
[ "$(tsn '_ws.malformed || _ws.expert.severity >= error')" = 0 ] || fail "N3 capture: malformed or error frames"
[ "$(tsn 'udp.port == 2152 && !(ipv6.src == 2001:db8:55::/64 && ipv6.dst == 2001:db8:55::/64)')" = 0 ] ||
	fail "GTP-U on N3 outside outer IPv6"
[ "$(tsn 'udp.checksum.status == 0 || ip.checksum.status == 0')" = 0 ] || fail "N3 capture: bad UDP/IP checksums"
ul66=$(tsn 'ipv6.src == 2001:db8:55::2 && gtp.message == 255 && ipv6.dst == 2001:db8:56::2')
dl66=$(tsn 'ipv6.src == 2001:db8:55::1 && gtp.message == 255 && ipv6.src == 2001:db8:56::2 && udp.checksum.status == 1')
ul64=$(tsn 'ipv6.src == 2001:db8:55::2 && gtp.message == 255 && ip.dst == 10.38.56.2')
dl64=$(tsn 'ipv6.src == 2001:db8:55::1 && gtp.message == 255 && ip.src == 10.38.56.2 && udp.checksum.status == 1')
echo "N3 G-PDUs: inner IPv6 up $ul66 down $dl66, inner IPv4 up $ul64 down $dl64 (down: outer checksum verified)"
[ "$ul66" -ge 1 ] && [ "$dl66" -ge 1 ] || fail "no inner IPv6 both ways in outer IPv6"
[ "$ul64" -ge 1 ] && [ "$dl64" -ge 1 ] || fail "no inner IPv4 both ways in outer IPv6"
[ "$(tsn 'gtp && icmpv6.type == 133 && ipv6.src == 2001:db8:55::2')" -ge 1 ] || fail "no Router Solicitation on N3"
[ "$(tsn 'gtp && icmpv6.type == 134 && ipv6.dst == 2001:db8:55::2')" -ge 1 ] || fail "no Router Advertisement on N3"
[ $FAILS = 0 ] || { show_logs; exit 1; }
echo "ok: n3v6"
exit 0
