#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# web/ inside the real binary: `solocore run` with a temp config and database,
# then curl over HTTP/1.1 and h2c: health, create, duplicate, get without
# secrets, import, export, metrics, auth; SIGTERM stops it cleanly and no key
# reached the log. Skips (77) only when curl is missing.
# usage: e2e_web.sh SOLOCORE_EXE
set -u
SOLOCORE=$1
K=465B5CE8B199B49FAA5F0A2EE238A6BC
OPC=E8ED289DEBA952E4283B54E88E6183CA
TOKEN=e2e-admin-token-5f3a
command -v curl >/dev/null 2>&1 || { echo "curl not installed: skipped"; exit 77; }
. "$(dirname "$0")/../e2e/e2e_lib.sh"   # free_port, yaml_*, start_solocore
tmp=$(mktemp -d)
CORE_PID=
cleanup() { [ -n "$CORE_PID" ] && kill "$CORE_PID" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
port=$(free_port)
{ yaml_db_web "$tmp/solocore.db" "$port"; yaml_n2_udp "$(free_port)" "$(free_port)"; } > "$tmp/solocore.yaml"
SOLOCORE_WEB_TOKEN=$TOKEN start_solocore "$tmp/solocore.yaml" "$tmp/log" '"\?running' 200 ||
	{ echo "FAIL: solocore run $SOLOCORE_WHY"; cat "$tmp/log"; exit 1; }
grep -q "web: listening" "$tmp/log" || { echo "FAIL: solocore run did not start web/"; cat "$tmp/log"; exit 1; }
base=http://127.0.0.1:$port
fail=0
# expect STATUS METHOD PATH [curl args...]
expect() {
	want=$1; shift; m=$1; shift; p=$1; shift
	got=$(curl -s -o "$tmp/body" -w '%{http_code}' -X "$m" "$@" "$base$p")
	if [ "$got" != "$want" ]; then
		echo "FAIL: $m $p: $got, expected $want: $(cat "$tmp/body")"; fail=1
	else
		echo "ok: $m $p -> $got"
	fi
}
A="Authorization: Bearer $TOKEN"
expect 200 GET /api/v1/health
expect 200 GET /api/v1/version --http2-prior-knowledge
expect 401 GET /api/v1/subscribers
expect 201 POST /api/v1/subscribers -H "$A" -d "{\"imsi\":\"001010000000001\",\"k\":\"$K\",\"opc\":\"$OPC\"}"
expect 409 POST /api/v1/subscribers -H "$A" -d "{\"imsi\":\"001010000000001\",\"k\":\"$K\",\"opc\":\"$OPC\"}"
expect 200 GET /api/v1/subscribers/001010000000001 -H "$A"
grep -q "$K" "$tmp/body" && { echo "FAIL: K returned without secrets=1"; fail=1; }
printf '[imsi-001010000000002]\nki = "%s"\nopc = "%s"\n' $K $OPC > "$tmp/sims.toml"
expect 200 POST /api/v1/subscribers/import -H "$A" --data-binary @"$tmp/sims.toml" --http2-prior-knowledge
expect 200 GET /api/v1/subscribers/export -H "$A"
grep -q '\[imsi-001010000000002\]' "$tmp/body" || { echo "FAIL: export lacks the imported SIM"; fail=1; }
expect 200 GET /metrics -H "$A"
grep -q '^solocore_subscribers 2$' "$tmp/body" || { echo "FAIL: metrics: $(grep subscribers "$tmp/body")"; fail=1; }
kill -TERM "$CORE_PID"
wait "$CORE_PID"; rc=$?
CORE_PID=
[ $rc -eq 0 ] || { echo "FAIL: solocore exited $rc after SIGTERM"; fail=1; }
if grep -q -e "$K" -e "$OPC" -e "$TOKEN" "$tmp/log"; then echo "FAIL: a secret reached the log"; fail=1; fi
[ $fail -eq 0 ] || cat "$tmp/log"
exit $fail
