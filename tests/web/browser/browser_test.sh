#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# The UI in a real browser: `solocore run` (first start: the admin's one-time
# password from its stdout), headless Chromium driven by playwright-core
# (installed here by npm into BUILD/web-browser/node_modules) runs browser.js:
# every page of the UI against the API (login, subscribers add / import /
# edit / export / delete with API errors at their fields, policies, users and
# tokens, audit, settings), solocore-load (BUILD/tests/ransim) registering 2 UEs
# with a PDU session each (usrsctp/UDP) shown on the dashboard, sessions, UEs
# and gNBs pages, the phone viewport, a read-only user.
# Screenshots (CI artifacts): BUILD/web-ui.png (dashboard), BUILD/web-ui-phone.png,
# BUILD/web-ui-<page>.png and BUILD/web-ui-<page>-phone.png; printed as "screenshot: PATH".
# Needs the Debian packages chromium and chromium-driver. SKIPS (77), saying
# why, when Chromium is missing or npm cannot fetch playwright-core.
# usage: browser_test.sh SOLOCORE_EXE BUILD_DIR
set -u
exe=$1
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
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
n2port=$(free_port)
udpport=$(free_port)
cat > "$tmp/solocore.yaml" <<YAML
db:
  path: "$tmp/solocore.db"
web:
  listen: "127.0.0.1"
  port: $port
n2:
  address: "127.0.0.1"
  port: $n2port
  sctp: usrsctp
  usrsctp_encaps: udp
  udp_port: $udpport
YAML
env -u SOLOCORE_WEB_TOKEN "$exe" run -c "$tmp/solocore.yaml" > "$tmp/log" 2>&1 &
pid=$!
i=0
while ! grep -q "web: listening" "$tmp/log" 2>/dev/null; do
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "FAIL: solocore run exited during start-up:"; cat "$tmp/log"; pid=; exit 1
	fi
	i=$((i + 1)); [ $i -gt 300 ] && { echo "solocore run did not start web/"; cat "$tmp/log"; exit 1; }
	sleep 0.1
done
pw=$(sed -n 's/.*web user "admin" created with password \([^ ]*\).*/\1/p' "$tmp/log")
[ -n "$pw" ] || { echo "FAIL: no one-time admin password printed on first start"; cat "$tmp/log"; exit 1; }
K=465B5CE8B199B49FAA5F0A2EE238A6BC
OPC=E8ED289DEBA952E4283B54E88E6183CA
printf '[imsi-001010000000201]\nki = "%s"\nopc = "%s"\n\n[imsi-001010000000202]\nki = "%s"\nopc = "%s"\n' \
	$K $OPC $K $OPC > "$tmp/sims.toml"
NODE_PATH=$mods/node_modules node "$here/browser.js" "http://127.0.0.1:$port" admin "$pw" "$tmp/sims.toml" \
	"$build/web-ui.png" "$load" sessions -c "$tmp/solocore.yaml" --addr 127.0.0.1 --port "$n2port" \
	--encap udp --udp-port "$(free_port)" --udp-peer-port "$udpport" --sims "$tmp/sims.toml" --ues 2 \
	--concurrency 2 --duration 200 --no-progress
rc=$?
kill -TERM "$pid"; wait "$pid"; pid=
if grep -q -e "$K" "$tmp/log"; then echo "FAIL: a key reached the log"; rc=1; fi
[ $rc -eq 0 ] || cat "$tmp/log"
exit $rc
