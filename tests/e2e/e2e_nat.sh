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
# the core has source 10.38.56.1 and no UE address appears, checksums verify. Then hairpinning
# (RFC 4787 REQ-9, see below): two UEs, one UE's packets to the N6 address and each mapped
# port come back down the tunnels to both UEs from the N6 address and that UE's mapped port.
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

kill -INT "$CAP" 2>/dev/null; wait "$CAP" 2>/dev/null

# ---- Hairpinning (RFC 4787 6 REQ-9) ----
# Two UEs (U1, U2) talk to the DN echo, each through its own NAT mapping (ports P1, P2 on N6).
# ransim sends every UE's traffic to one destination, so U1's packets to nat_addr are forged
# here: G-PDUs on U1's uplink tunnel (TEID and address read off the N3 wire) with inner UDP
# U1:40000 -> 10.38.56.1:P for P in P1, P2. One of them is U1's own mapping, the other U2's:
# both must come back down the N3 tunnels (never N6), to U1 and to U2, from 10.38.56.1 and
# U1's one mapped port (REQ-9 b), checksums valid; ransim takes them as its UEs' downlink.
dn_echo_ns B_PID "$NS_D" 10.38.56.2 "$TMP/echo2.ready"
$NSR "$RANSIM" sessions --sims "$TMP/sims.toml" --addr "$AMF" --backend usrsctp --encap raw \
	--ues 2 --concurrency 2 --duration 10 --no-progress --pdu-type ipv4 --gnb-n3 10.38.55.2 \
	--traffic 20 --traffic-size 60 --traffic-dst 10.38.56.2 --traffic-port 7 >"$TMP/hp.out" 2>"$TMP/hp.log" &
RS_PID=$!
# the UEs' uplink tunnels (N3) and their mapped ports (N6), from the wire
$NSR timeout 12 dumpcap -q -i "${T}b" -f "udp dst port 2152 and dst host 10.38.55.1" -c 30 \
	-w "$TMP/hp_ul.pcapng" >"$TMP/hp_ul.log" 2>&1 &
C1=$!
ip netns exec "$NS_D" timeout 12 dumpcap -q -i "${T}d" -f "src host 10.38.56.1 and udp dst port 7" -c 30 \
	-w "$TMP/hp_n6.pcapng" >"$TMP/hp_n6.log" 2>&1 &
C2=$!
wait "$C1" "$C2"
tun=$(tshark -r "$TMP/hp_ul.pcapng" -Y 'gtp.message == 255' -T fields -E occurrence=l -e gtp.teid -e ip.src \
	2>>"$TMP/tshark.log" | sort -u)
n6p=$(tshark -r "$TMP/hp_n6.pcapng" -T fields -e udp.srcport 2>>"$TMP/tshark.log" | sort -un)
echo "uplink tunnels (TEID, UE):"; echo "$tun"; echo "mapped ports on N6:" $n6p
[ "$(echo "$tun" | wc -l)" = 2 ] || fail "hairpin: expected 2 UE tunnels on N3, got '$tun'"
[ "$(echo "$n6p" | wc -w)" = 2 ] || fail "hairpin: expected 2 mapped ports on N6, got '$n6p'"
teid=$(echo "$tun" | head -n 1 | cut -f1) u1=$(echo "$tun" | head -n 1 | cut -f2)
u2=$(echo "$tun" | tail -n 1 | cut -f2)
capture_start "$NS_R" "${T}b" "udp src port 2152 and dst host 10.38.55.2" 400 "$TMP/hp_dl.pcapng"
cat >"$TMP/forge.py" <<'EOT'
import socket, struct, sys, time
teid, ue, nat = int(sys.argv[1], 0), socket.inet_aton(sys.argv[2]), socket.inet_aton(sys.argv[3])
def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(5):
    for port in map(int, sys.argv[4:]):
        pay = b"hairpin %d %d" % (port, i)
        udp = struct.pack("!HHHH", 40000, port, 8 + len(pay), 0) + pay
        c = csum(ue + nat + struct.pack("!BBH", 0, 17, len(udp)) + udp) or 0xffff
        udp = udp[:6] + struct.pack("!H", c) + udp[8:]
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0x4000 + i, 0x4000, 64, 17, 0, ue, nat)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        g = struct.pack("!BBHI", 0x30, 0xff, len(ip + udp), teid) + ip + udp
        s.sendto(g, ("10.38.55.1", 2152))
    time.sleep(0.05)
EOT
$NSR python3 "$TMP/forge.py" "$teid" "$u1" 10.38.56.1 $n6p || fail "hairpin: forging the G-PDUs failed"
sleep 1
kill -INT "$CAP" 2>/dev/null; wait "$CAP" 2>/dev/null
wait "$RS_PID"
RS_RC=$? RS_PID=
stop_echo B_PID "$TMP/echo2.ready"
hp=$(tshark -r "$TMP/hp_dl.pcapng" -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
	-Y 'gtp.message == 255 && ip.src#2 == 10.38.56.1 && udp.checksum.status#2 == 1 && ip.checksum.status#2 == 1' \
	-T fields -E occurrence=l -e ip.dst -e udp.srcport -e udp.dstport 2>>"$TMP/tshark.log" | sort | uniq -c)
echo "hairpinned (count, to, from port, to port):"; echo "$hp"
pa=$(echo "$hp" | awk '{print $3}' | sort -u)
[ "$(echo "$pa" | wc -l)" = 1 ] && echo "$n6p" | grep -qx "$pa" ||
	fail "hairpin: the source port is not U1's one mapped port (REQ-9 b): '$pa' of '$n6p'"
echo "$hp" | awk -v u="$u1" '$2 == u && $4 == 40000 && $1 == 5' | grep -q . || fail "hairpin: U1 ($u1) did not get its 5"
echo "$hp" | awk -v u="$u2" '$2 == u && $4 == 40000 && $1 == 5' | grep -q . || fail "hairpin: U2 ($u2) did not get its 5"
[ "$(tshark -r "$TMP/hp_dl.pcapng" -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
	-Y 'gtp && ip.src#2 == 10.38.56.1 && !(udp.checksum.status#2 == 1 && ip.checksum.status#2 == 1)' \
	2>>"$TMP/tshark.log" | wc -l)" = 0 ] || fail "hairpin: a hairpinned packet with a bad or no checksum"
expect_rc hp 0
expect hp dl_bad_inner 0
expect hp dl_unknown_teid 0

stop_core
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
