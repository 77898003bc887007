#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# The UI in a real browser: `solocore run` (first start: the admin's one-time
# password from its stdout), headless Chromium driven by playwright-core
# (installed here by npm into BUILD/web-browser/node_modules) runs browser.js:
# every page of the UI against the API (login, subscribers add / import /
# edit / export / delete with API errors at their fields, policies, users and
# tokens, audit, settings), solocore-load (BUILD/tests/ransim) registering 2 UEs
# with a PDU session each shown on the dashboard, sessions, UEs and gNBs pages,
# the phone viewport, a read-only user.
# The UPF: as root with `ip netns`, REAL: solocore run in a core namespace with
# its XDP UPF on two veths (N3 toward a gNB namespace, N6 toward a DN namespace
# with a UDP echo server, generic XDP), solocore-load in the gNB namespace over
# usrsctp raw IP sending GTP-U (--traffic 200 for 10 s), the browser in the core
# namespace: the dashboard's UPF tile and chart are drawn from the UPF's real
# counters. Otherwise INJECTED: everything on 127.0.0.1 (usrsctp over UDP), no
# UPF, and browser.js adds "upf" counters to the stats answers (page.route).
# Which one ran is printed first, loudly ("UPF MODE: ...").
# Screenshots (CI artifacts): BUILD/web-ui.png (dashboard), BUILD/web-ui-phone.png,
# BUILD/web-ui-<page>.png and BUILD/web-ui-<page>-phone.png; printed as "screenshot: PATH".
# Needs the Debian packages chromium and chromium-driver. SKIPS (77), saying
# why, when Chromium is missing or npm cannot fetch playwright-core.
# usage: browser_test.sh SOLOCORE_EXE BUILD_DIR
set -u
SOLOCORE=$1
build=$2
[ -x /usr/bin/chromium ] || { echo "SKIP: /usr/bin/chromium missing (apt-get install chromium chromium-driver)"; exit 77; }
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { echo "SKIP: node/npm missing"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
load=$build/tests/ransim/solocore-load
[ -x "$load" ] || { echo "FAIL: $load not built"; exit 1; }
mods=$build/web-browser
if [ ! -d "$mods/node_modules/playwright-core" ]; then
	mkdir -p "$mods"
	if ! (cd "$mods" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --silent \
		--prefix "$mods" playwright-core@1 >"$mods/npm.log" 2>&1); then
		echo "SKIP: npm could not install playwright-core (no registry?):"; cat "$mods/npm.log"; exit 77
	fi
fi
. "$here/../../e2e/e2e_lib.sh"   # free_port, yaml_*, start_solocore
tmp=$(mktemp -d)
CORE_PID=
echo_pid=
T=bwt$$
cleanup() {
	[ -n "$CORE_PID" ] && kill "$CORE_PID" 2>/dev/null && wait "$CORE_PID" 2>/dev/null
	[ -n "$echo_pid" ] && kill "$echo_pid" 2>/dev/null
	if [ "$real" = 1 ]; then for n in c r d; do ip netns del "$T-$n" 2>/dev/null; done; fi
	rm -rf "$tmp"
}
real=0
why="not root"
if [ "$(id -u)" = 0 ]; then
	why="'ip netns' not available"
	command -v ip >/dev/null 2>&1 && ip netns add "$T-c" 2>/dev/null && real=1
fi
trap cleanup EXIT
port=$(free_port)
n2port=$(free_port)
udpport=$(free_port)
NSC=
if [ "$real" = 1 ]; then
	# gNB (r) --N3 veth-- core (c) --N6 veth-- DN (d); e2e_traffic.sh's topology
	ip netns add "$T-r" && ip netns add "$T-d" || exit 1
	ip link add "${T}a" type veth peer name "${T}b" && ip link add "${T}n" type veth peer name "${T}d" || exit 1
	ip link set "${T}a" netns "$T-c" && ip link set "${T}n" netns "$T-c" || exit 1
	ip link set "${T}b" netns "$T-r" && ip link set "${T}d" netns "$T-d" || exit 1
	ip -n "$T-c" addr add 10.38.51.1/24 dev "${T}a" && ip -n "$T-r" addr add 10.38.51.2/24 dev "${T}b" || exit 1
	ip -n "$T-c" addr add 10.38.52.1/24 dev "${T}n" && ip -n "$T-d" addr add 10.38.52.2/24 dev "${T}d" || exit 1
	for n in c r d; do ip -n "$T-$n" link set lo up; done
	ip -n "$T-c" link set "${T}a" up && ip -n "$T-c" link set "${T}n" up || exit 1
	ip -n "$T-r" link set "${T}b" up && ip -n "$T-d" link set "${T}d" up || exit 1
	ip -n "$T-d" route add 10.45.0.0/16 via 10.38.52.1 || exit 1
	ip netns exec "$T-c" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 || exit 1
	printf '%s\n' 'import socket, sys' 's = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)' \
		's.bind(("10.38.52.2", 7))' 'open(sys.argv[1], "w").close()' \
		'while True:' '    d, a = s.recvfrom(4096)' '    s.sendto(d, a)' >"$tmp/echo.py"
	ip netns exec "$T-d" python3 "$tmp/echo.py" "$tmp/echo.ready" >"$tmp/echo.log" 2>&1 &
	echo_pid=$!
	NSC="ip netns exec $T-c"
	n2port=38412
	echo "UPF MODE: REAL -- solocore's XDP UPF (generic, veth) forwards solocore-load's GTP-U; the UPF chart is drawn from its counters"
else
	echo "UPF MODE: INJECTED -- $why: no UPF runs, browser.js injects \"upf\" counters into the stats answers"
fi
yaml_db_web "$tmp/solocore.db" "$port" > "$tmp/solocore.yaml"
if [ "$real" = 1 ]; then
	cat >> "$tmp/solocore.yaml" <<YAML
n2:
  address: "10.38.51.1"
  port: $n2port
  sctp: usrsctp
  usrsctp_encaps: raw
upf:
  n3_interface: "${T}a"
  n6_interface: "${T}n"
  xdp_mode: generic
YAML
else
	yaml_n2_udp "$n2port" "$udpport" >> "$tmp/solocore.yaml"
fi
unset SOLOCORE_WEB_TOKEN   # first start without a token: the admin's one-time password
start_solocore "$tmp/solocore.yaml" "$tmp/log" "web: listening" 300 ||
	{ echo "FAIL: solocore run $SOLOCORE_WHY:"; cat "$tmp/log"; exit 1; }
pw=$(sed -n 's/.*web user "admin" created with password \([^ ]*\).*/\1/p' "$tmp/log")
[ -n "$pw" ] || { echo "FAIL: no one-time admin password printed on first start"; cat "$tmp/log"; exit 1; }
K=465B5CE8B199B49FAA5F0A2EE238A6BC
OPC=E8ED289DEBA952E4283B54E88E6183CA
printf '[imsi-001010000000201]\nki = "%s"\nopc = "%s"\n\n[imsi-001010000000202]\nki = "%s"\nopc = "%s"\n' \
	$K $OPC $K $OPC > "$tmp/sims.toml"
if [ "$real" = 1 ]; then
	grep -q "upf: attached" "$tmp/log" || { echo "FAIL: the UPF did not attach (REAL mode):"; cat "$tmp/log"; exit 1; }
	i=0; while [ ! -f "$tmp/echo.ready" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -f "$tmp/echo.ready" ] || { echo "FAIL: the DN echo server did not start"; cat "$tmp/echo.log"; exit 1; }
	# browser.js spawns "ip netns exec <gNB ns> solocore-load ..." (ip execs it: same pid)
	SOLOCORE_UPF_REAL=1 NODE_PATH=$mods/node_modules $NSC node "$here/browser.js" "http://127.0.0.1:$port" \
		admin "$pw" "$tmp/sims.toml" "$build/web-ui.png" ip netns exec "$T-r" "$load" sessions \
		-c "$tmp/solocore.yaml" --addr 10.38.51.1 --port "$n2port" --backend usrsctp --encap raw \
		--sims "$tmp/sims.toml" --ues 2 --concurrency 2 --duration 200 --no-progress \
		--gnb-n3 10.38.51.2 --traffic 200 --traffic-secs 10 --traffic-dst 10.38.52.2
	rc=$?
else
	NODE_PATH=$mods/node_modules node "$here/browser.js" "http://127.0.0.1:$port" admin "$pw" "$tmp/sims.toml" \
		"$build/web-ui.png" "$load" sessions -c "$tmp/solocore.yaml" --addr 127.0.0.1 --port "$n2port" \
		--encap udp --udp-port "$(free_port)" --udp-peer-port "$udpport" --sims "$tmp/sims.toml" --ues 2 \
		--concurrency 2 --duration 200 --no-progress
	rc=$?
fi
[ "$real" = 1 ] && echo "UPF MODE was: REAL (XDP UPF, GTP-U from solocore-load)" ||
	echo "UPF MODE was: INJECTED ($why)"
kill -TERM "$CORE_PID"; wait "$CORE_PID"; CORE_PID=
if grep -q -e "$K" "$tmp/log"; then echo "FAIL: a key reached the log"; rc=1; fi
[ $rc -eq 0 ] || cat "$tmp/log"
exit $rc
