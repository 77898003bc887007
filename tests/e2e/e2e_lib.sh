# SPDX-License-Identifier: AGPL-3.0-or-later
# Shared shell helpers of the end-to-end tests (sourced by e2e_reg.sh, e2e_cycle.sh,
# e2e_traffic.sh, e2e_settings.sh, the UML job and tests/web's e2e_web.sh, e2e_web_load.sh and
# browser/browser_test.sh). Needs: SOLOCORE, CORE, RANSIM, TMP set by the caller (each only
# by the helpers that use it); NSC / NSR are "ip netns exec <ns>" prefixes (empty or unset when
# core and ransim share a network stack).

FAILS=0

# Each failure is printed at once and again at the end of show_logs (FAIL_LIST): meson shows
# only a log's last 100 lines, which the logs would otherwise fill.
FAIL_LIST=
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); FAIL_LIST="$FAIL_LIST
FAIL: $*"; }

# mk_config FILE ADDR SCTP [integrity list] [ciphering list]
mk_config() {
	cat >"$1" <<EOF
log:
  level: ${CORE_LOG:-warn}
plmn: { mcc: "001", mnc: "01" }
amf:
  security:
    integrity: [${4:-NIA2, NIA1, NIA3, NIA0}]
    ciphering: [${5:-NEA0, NEA2, NEA1, NEA3}]
  network_name: { full: "solocore e2e", short: "e2e" }
  timezone: "+01:00"
n2:
  address: "$2"
  sctp: $3
  usrsctp_encaps: raw
suci:
  keys:
    - { id: 1, scheme: A, private_key: "c53c22208b61860b06c62e5406a7b330c2b577aa5558981510d128247d38bd1d" }
    - { id: 2, scheme: B, private_key: "f1ab1074477ebcc7f554ea1c5fc368b1616730155e0041ac447d6301975fecda" }
db:
  path: "$TMP/core.db"
limits: { max_ues: 4096, max_gnbs: 16 }
EOF
}

# gen_sims FILE COUNT IMSI_START: random keys, written by `solocore sims generate`.
gen_sims() {
	"$SOLOCORE" sims generate --count "$2" --imsi-start "$3" --random-keys >"$1" || return 1
}

import_sims() {
	"$SOLOCORE" sims import "$1" --db "$TMP/core.db" >"$TMP/import.log" 2>&1 ||
		{ cat "$TMP/import.log"; return 1; }
}

# free_port / free_udp: a TCP / UDP port that is free on 127.0.0.1 now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
free_udp() { python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# yaml_db_web DB PORT: the configuration's database and web (API on 127.0.0.1:PORT) keys.
yaml_db_web() {
	printf 'db:\n  path: "%s"\nweb:\n  listen: "127.0.0.1"\n  port: %s\n' "$1" "$2"
}

# yaml_n2_udp PORT UDP_PORT: N2 on 127.0.0.1:PORT over usrsctp in UDP (UDP_PORT), no root needed.
yaml_n2_udp() {
	printf 'n2:\n  address: "127.0.0.1"\n  port: %s\n  sctp: usrsctp\n  usrsctp_encaps: udp\n  udp_port: %s\n' \
		"$1" "$2"
}

# wait_stat LINE: refreshes the AMF counters (core_stats) until $TMP/stats holds LINE, for
# about 10 s at most; 1 when it never did (the caller's expect_stat says what it was).
wait_stat() {
	local n=0
	while [ $n -lt 100 ]; do
		core_stats
		grep -qx "$1" "$TMP/stats" && return 0
		sleep 0.1; n=$((n + 1))
	done
	return 1
}

# start_solocore CONFIG LOG [PATTERN [TENTHS]]: the product, `solocore run -c CONFIG`, in the
# background (in $NSC's namespace when set), CORE_PID its pid, its output in LOG. Waits until a
# line of LOG matches the grep PATTERN (default "N2 listening": the AMF accepts gNBs), at most
# TENTHS x 0.1 s (default 100). Returns 0 when it did, else 1 with the reason in SOLOCORE_WHY;
# CORE_PID is still set then, for the caller's cleanup. Environment for solocore only (e.g.
# SOLOCORE_WEB_TOKEN) goes as an assignment before the call.
start_solocore() {
	local pat=${3:-N2 listening} max=${4:-100} n=0
	${NSC:-} "$SOLOCORE" run -c "$1" >"$2" 2>&1 &
	CORE_PID=$!
	SOLOCORE_WHY=
	while ! grep -q -e "$pat" "$2" 2>/dev/null; do
		if ! kill -0 "$CORE_PID" 2>/dev/null; then
			grep -q -e "$pat" "$2" 2>/dev/null && return 0
			SOLOCORE_WHY="exited during start-up"; return 1
		fi
		n=$((n + 1))
		if [ $n -gt "$max" ]; then
			SOLOCORE_WHY="did not log '$pat' within $((max / 10)).$((max % 10)) s"; return 1
		fi
		sleep 0.1
	done
}

# start_core CONFIG: e2e_core in the core namespace; waits until N2 listens.
start_core() {
	rm -f "$TMP/ready" "$TMP/stats"
	$NSC "$CORE" -c "$1" --ready "$TMP/ready" --stats "$TMP/stats" >>"$TMP/core.log" 2>&1 &
	CORE_PID=$!
	i=0
	while [ ! -f "$TMP/ready" ] && [ $i -lt 100 ]; do
		kill -0 "$CORE_PID" 2>/dev/null || break
		sleep 0.1; i=$((i + 1))
	done
	if [ ! -f "$TMP/ready" ]; then
		echo "FAIL: core did not start"; tail -n 30 "$TMP/core.log"; return 1
	fi
}

# stop_ransim: kill a ransim still running (cleanup paths).
stop_ransim() {
	[ -n "${RS_PID:-}" ] && kill -KILL "$RS_PID" 2>/dev/null
	RS_PID=
}

# stop_core: SIGTERM, wait; the AMF counters are then in $TMP/stats.
stop_core() {
	[ -n "${CORE_PID:-}" ] || return 0
	kill -TERM "$CORE_PID" 2>/dev/null
	wait "$CORE_PID" 2>/dev/null
	rc=$?
	CORE_PID=
	# A clean stop exits 0 (a sanitizer report makes it non-zero).
	[ $rc = 0 ] || { fail "core exited with status $rc"; tail -n 40 "$TMP/core.log"; }
}

# core_stats: refresh $TMP/stats from the running core (SIGUSR1).
core_stats() {
	rm -f "$TMP/stats"
	kill -USR1 "$CORE_PID" 2>/dev/null
	i=0
	while [ ! -f "$TMP/stats" ] && [ $i -lt 50 ]; do sleep 0.05; i=$((i + 1)); done
}

# run_ransim NAME ARGS...: report in $TMP/NAME.out, log in $TMP/NAME.log; returns ransim's status.
run_ransim() {
	name=$1; shift
	# In the background so that a signal to the test (meson's timeout) reaches the trap,
	# which kills it (RS_PID) with the core and the namespaces.
	$NSR "$RANSIM" "$@" >"$TMP/$name.out" 2>"$TMP/$name.log" &
	RS_PID=$!
	wait "$RS_PID"
	RS_RC=$?
	RS_PID=
	return 0
}

# expect NAME KEY VALUE: the report line "KEY VALUE" (KEY may contain spaces).
expect() {
	if ! grep -qx "$2 $3" "$TMP/$1.out"; then
		fail "$1: expected '$2 $3', got '$(grep "^$2 " "$TMP/$1.out" | head -n 1)'"
		return 1
	fi
}

# expect_stat KEY VALUE: the AMF counter (from the last stats file).
expect_stat() {
	if ! grep -qx "$1 $2" "$TMP/stats" 2>/dev/null; then
		fail "amf counter: expected '$1 $2', got '$(grep "^$1 " "$TMP/stats" 2>/dev/null)'"
		return 1
	fi
}

expect_rc() {
	[ "$RS_RC" = "$2" ] || fail "$1: ransim exit status $RS_RC, expected $2"
}

show_logs() {
	for f in "$TMP"/*.out; do [ -f "$f" ] && { echo "---- $(basename "$f")"; cat "$f"; }; done
	for f in "$TMP"/*.log; do [ -f "$f" ] && { echo "---- $(basename "$f") (tail)"; tail -n 40 "$f"; }; done
	[ -f "$TMP/stats" ] && { echo "---- amf stats"; cat "$TMP/stats"; }
	[ -n "$FAIL_LIST" ] && echo "---- failures (again)$FAIL_LIST"
	return 0
}

# e2e_netns TAG NET TMPNAME: two network namespaces joined by a veth pair, the core's side
# NET.1 and ransim's NET.2 (a /24), lo up in both, removed again on any exit together with
# the core, ransim and TMP. Sets NS_C NS_R NSC NSR TMP AMF CORE_PID B_PID, and VETH_R
# (ransim's end of the veth pair, for captures).
# Exits 77 (skip, with the reason) without root, iproute2 or working `ip netns`.
e2e_cleanup() {
	[ -n "${B_PID:-}" ] && kill -KILL "$B_PID" 2>/dev/null
	stop_ransim
	stop_core
	ip netns del "$NS_C" 2>/dev/null
	ip netns del "$NS_R" 2>/dev/null
	[ -n "${E2E_KEEP:-}" ] || rm -rf "$TMP"   # E2E_KEEP=1: keep the logs and captures
}

e2e_netns() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: needs root (network namespaces, raw IP sockets)"; exit 77
	fi
	if ! command -v ip >/dev/null 2>&1; then
		echo "SKIP: iproute2 'ip' not found"; exit 77
	fi
	NS_C=$1-c
	NS_R=$1-r
	TMP=$(mktemp -d "/tmp/$3.XXXXXX")
	CORE_PID=
	B_PID=
	trap e2e_cleanup EXIT INT TERM
	if ! ip netns add "$NS_C" 2>"$TMP/err"; then
		echo "SKIP: 'ip netns add' failed: $(cat "$TMP/err")"; exit 77
	fi
	ip netns add "$NS_R" || exit 1
	ip link add "${1}a" type veth peer name "${1}b" || { echo "FAIL: veth"; exit 1; }
	ip link set "${1}a" netns "$NS_C" && ip link set "${1}b" netns "$NS_R" || exit 1
	ip -n "$NS_C" addr add "$2.1/24" dev "${1}a" && ip -n "$NS_R" addr add "$2.2/24" dev "${1}b" || exit 1
	for ns in "$NS_C" "$NS_R"; do ip -n "$ns" link set lo up; done
	ip -n "$NS_C" link set "${1}a" up && ip -n "$NS_R" link set "${1}b" up || exit 1
	NSC="ip netns exec $NS_C"
	NSR="ip netns exec $NS_R"
	AMF=$2.1
	VETH_R=${1}b
}

# e2e_dn NET: the data network of the user-plane tests. Namespace $NS_D (set by the caller,
# who removes it in its trap) joined to the core namespace by the veth ${T}n / ${T}d on
# NET.0/24 (core NET.1, DN NET.2), the UE pool 10.45.0.0/16 routed back to the core, and
# forwarding on in the core: the UPF needs it (bpf_fib_lookup refuses otherwise, upf/upf.h);
# the first packets of a flow take the kernel path while the neighbour is resolved. Sets NSD.
e2e_dn() {
	ip netns add "$NS_D" || exit 1
	ip link add "${T}n" type veth peer name "${T}d" || { echo "FAIL: veth N6"; exit 1; }
	ip link set "${T}n" netns "$NS_C" && ip link set "${T}d" netns "$NS_D" || exit 1
	ip -n "$NS_C" addr add "$1.1/24" dev "${T}n" && ip -n "$NS_D" addr add "$1.2/24" dev "${T}d" || exit 1
	ip -n "$NS_D" link set lo up && ip -n "$NS_C" link set "${T}n" up && ip -n "$NS_D" link set "${T}d" up || exit 1
	ip -n "$NS_D" route add 10.45.0.0/16 via "$1.1" || exit 1
	$NSC sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 || exit 1
	NSD="ip netns exec $NS_D"
}

# yaml_upf CONFIG: the DNN and the UPF on ${T}a (N3) / ${T}n (N6) in XDP generic mode, and
# the web API on 127.0.0.1:5000, appended to CONFIG.
yaml_upf() {
	cat >>"$1" <<EOT
dnns:
  - { name: "internet", pool: "10.45.0.0/16" }
upf:
  n3_interface: "${T}a"
  n6_interface: "${T}n"
  xdp_mode: generic
web: { listen: "127.0.0.1", port: 5000 }
EOT
}

# dn_echo ADDR: the DN's UDP echo server on ADDR:7 (one socket, one reply per datagram), in
# $NS_D; B_PID (killed by e2e_cleanup). Fails the test when it does not start.
dn_echo() {
	cat >"$TMP/echo.py" <<'EOT'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
s.bind((sys.argv[2], 7))
open(sys.argv[1], "w").close()
while True:
    d, a = s.recvfrom(4096)
    s.sendto(d, a)
EOT
	$NSD python3 "$TMP/echo.py" "$TMP/echo.ready" "$1" >"$TMP/echo.log" 2>&1 &
	B_PID=$!
	_i=0
	while [ ! -f "$TMP/echo.ready" ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	[ -f "$TMP/echo.ready" ] || { fail "the DN echo server did not start"; show_logs; exit 1; }
}

# start_solocore_upf CONFIG LOG: start_solocore with the UPF attached; exits 77 (with the
# UPF's reason) when XDP generic mode cannot attach to a veth here, 1 when the core does
# not come up.
start_solocore_upf() {
	SOLOCORE_WEB_TOKEN=$TOKEN start_solocore "$1" "$2"
	_up=$?
	if grep -q "upf: cannot attach" "$2"; then
		echo "SKIP: the UPF cannot attach in XDP generic mode to a veth here: $(grep 'upf:' "$2" | head -n 1)"
		kill -TERM "$CORE_PID" 2>/dev/null; wait "$CORE_PID" 2>/dev/null; CORE_PID=
		exit 77
	fi
	grep -q "upf: attached" "$2" || { fail "the UPF did not attach"; show_logs; exit 1; }
	[ $_up = 0 ] || { fail "solocore run $SOLOCORE_WHY"; show_logs; exit 1; }
}

# dn_echo_ns VAR NS ADDR READYFILE: a UDP echo on ADDR:7 (IPv4 or IPv6) in NS that counts
# what it answers per source (written to READYFILE.srcs on SIGTERM: stop_echo); its pid in VAR.
dn_echo_ns() {
	_v=$1; shift
	cat >"$TMP/echo.py" <<'EOT'
import socket, sys, signal
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[2] else socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
s.bind((sys.argv[2], 7))
srcs = {}
def dump(*a):
    with open(sys.argv[3], "w") as f:
        for k, v in sorted(srcs.items()):
            f.write("%s %d\n" % (k, v))
    sys.exit(0)
signal.signal(signal.SIGTERM, dump)
open(sys.argv[1], "w").close()
while True:
    d, a = s.recvfrom(4096)
    srcs[a[0]] = srcs.get(a[0], 0) + 1
    s.sendto(d, a)
EOT
	ip netns exec "$1" python3 "$TMP/echo.py" "$3" "$2" "$3.srcs" >"$3.log" 2>&1 &
	_p=$!
	_i=0
	while [ ! -f "$3" ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	[ -f "$3" ] || { fail "the DN echo server in $1 did not start"; exit 1; }
	eval "$_v=$_p"
}
# stop_echo VAR READYFILE: SIGTERM, then wait for its per-source counts.
stop_echo() {
	eval "_p=\$$1"
	kill -TERM "$_p" 2>/dev/null
	_i=0
	while [ ! -f "$2.srcs" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	eval "$1="
}


# need_capture: dumpcap and tshark present, else the test fails (build.sh installs tshark;
# a test that checks the wire must not pass without looking at it).
need_capture() {
	command -v dumpcap >/dev/null 2>&1 && command -v tshark >/dev/null 2>&1 ||
		{ echo "FAIL: dumpcap/tshark not installed (build.sh installs tshark)"; exit 1; }
}

# capture_start NS IFACE FILTER COUNT FILE: dumpcap in namespace NS (name) on IFACE, at most
# COUNT frames into FILE; waits until it captures. CAP is its pid (kill -INT to end it).
capture_start() {
	ip netns exec "$1" dumpcap -q -i "$2" -f "$3" -c "$4" -w "$5" >"$5.log" 2>&1 &
	CAP=$!
	_i=0
	while ! grep -q "Capturing on" "$5.log" 2>/dev/null && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
}

# e2e_netns_peer NS NET TAG: one more namespace NS (e.g. a second core) joined to ransim's
# namespace $NS_R by the veth pair TAGa (in NS, NET.1/24) / TAGb (in $NS_R, NET.2/24), lo up.
# The caller deletes NS in its own cleanup (e2e_cleanup does not know it). Needs e2e_netns first.
e2e_netns_peer() {
	ip netns add "$1" || return 1
	ip link add "${3}a" type veth peer name "${3}b" || return 1
	ip link set "${3}a" netns "$1" && ip link set "${3}b" netns "$NS_R" || return 1
	ip -n "$1" addr add "$2.1/24" dev "${3}a" && ip -n "$NS_R" addr add "$2.2/24" dev "${3}b" || return 1
	ip -n "$1" link set lo up && ip -n "$1" link set "${3}a" up && ip -n "$NS_R" link set "${3}b" up
}
