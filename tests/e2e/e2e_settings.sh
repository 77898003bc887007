#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# Network settings in the real binary: `solocore run` (N2 over usrsctp/UDP on 127.0.0.1, no
# root needed), ransim as the gNB and UE, curl for the API.
#   1. a gNB in TAC 5 is refused; PATCH tacs [1, 5] (live); the same gNB and UE register;
#      PATCH slices while a gNB is set up: it gets an AMF CONFIGURATION UPDATE over SCTP;
#   2. PATCH plmn (restart_required) and a new DNN "iot" (live): a PDU session on iot gets an
#      address from its pool; GET shows plmn pending;
#   3. restart: the log names the keys taken from the database, the AMF runs with the new
#      PLMN, nothing is pending;
#   4. DELETE /api/v1/settings, restart: the configuration file's values again.
# Skips (77) only when curl is missing.
# usage: e2e_settings.sh SOLOCORE_EXE RANSIM_EXE
set -u
SOLOCORE=$1
ransim=$2
K=465B5CE8B199B49FAA5F0A2EE238A6BC
OPC=E8ED289DEBA952E4283B54E88E6183CA
TOKEN=e2e-settings-token-7c1d
command -v curl >/dev/null 2>&1 || { echo "curl not installed: skipped"; exit 77; }
. "$(dirname "$0")/e2e_lib.sh"   # free_port, free_udp, yaml_*, start_solocore
tmp=$(mktemp -d)
CORE_PID=
cleanup() { [ -n "$CORE_PID" ] && kill "$CORE_PID" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
port=$(free_port)
n2port=$(free_port)
udpport=$(free_udp)
{ yaml_db_web "$tmp/solocore.db" "$port"; yaml_n2_udp "$n2port" "$udpport"; } > "$tmp/solocore.yaml"
cat >> "$tmp/solocore.yaml" <<YAML
log:
  level: info
tac: [1]
slices: [{sst: 1, sd: "010203"}]
dnns:
  - {name: internet, pool: 10.45.0.0/16}
YAML
printf '[imsi-001010000000001]\nki = "%s"\nopc = "%s"\ndnns = [ "internet", "iot" ]\n' $K $OPC > "$tmp/sims.toml"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
run=0

start() {
	run=$((run + 1))
	SOLOCORE_WEB_TOKEN=$TOKEN start_solocore "$tmp/solocore.yaml" "$tmp/log$run" ' running' 200 ||
		{ echo "FAIL: solocore run $SOLOCORE_WHY"; cat "$tmp/log$run"; exit 1; }
}

stop() {
	kill -TERM "$CORE_PID"
	wait "$CORE_PID" || bad "solocore exited $? after SIGTERM"
	CORE_PID=
}

base=http://127.0.0.1:$port
A="Authorization: Bearer $TOKEN"
# expect STATUS METHOD PATH [curl args...]: the body is left in $tmp/body
expect() {
	want=$1; shift; m=$1; shift; p=$1; shift
	got=$(curl -s -o "$tmp/body" -w '%{http_code}' -X "$m" -H "$A" "$@" "$base$p")
	if [ "$got" != "$want" ]; then
		bad "$m $p: $got, expected $want: $(cat "$tmp/body")"
	else
		echo "ok: $m $p -> $got"
	fi
}
# json EXPR: evaluate a Python expression on the last body (as j)
json() { python3 -c "import json,sys; j=json.load(open('$tmp/body')); print($1)"; }
check() { got=$(json "$1"); [ "$got" = "$2" ] || bad "$1 = $got, expected $2"; }
# gnb NAME ARGS...: ransim with one gNB and one UE; returns its status
gnb() {
	name=$1; shift
	"$ransim" -c "$tmp/solocore.yaml" --addr 127.0.0.1 --port "$n2port" --encap udp \
		--udp-port "$(free_udp)" --udp-peer-port "$udpport" --sims "$tmp/sims.toml" --ues 1 \
		--timeout 20 "$@" > "$tmp/$name.out" 2> "$tmp/$name.log"
}

start
expect 200 POST /api/v1/subscribers/import --data-binary @"$tmp/sims.toml"
# 1. TACs, live.
gnb tac5-before --tac 5 && bad "a gNB in TAC 5 registered before TAC 5 was served"
grep -q "NG Setup Failure" "$tmp/log$run" || bad "no NG Setup Failure for TAC 5"
expect 200 PATCH /api/v1/settings -d '{"tacs": [1, 5]}'
check "','.join(j['applied'])" tacs
gnb tac5-after --tac 5 || bad "TAC 5 after the PATCH: ransim failed: $(tail -5 "$tmp/tac5-after.log")"
# Slices, live: a gNB already set up gets an AMF CONFIGURATION UPDATE (and goes on).
gnb hold --tac 5 --hold-ms 4000 &
gpid=$!
i=0
until curl -s -H "$A" "$base/api/v1/gnbs" | grep -q '"READY"'; do
	i=$((i + 1)); [ $i -gt 100 ] && { bad "ransim's gNB never became READY"; break; }
	sleep 0.1
done
expect 200 PATCH /api/v1/settings -d '{"slices": [{"sst": 1, "sd": "010203"}, {"sst": 2}]}'
check "','.join(j['applied'])" slices
wait $gpid || bad "ransim with a gNB held through the slices change failed: $(tail -5 "$tmp/hold.log")"
grep -q "AMF Configuration Update sent to 1 gNB" "$tmp/log$run" || bad "no AMF Configuration Update to the connected gNB"
grep -q "undecodable" "$tmp/hold.log" && bad "ransim could not decode what the AMF sent"
# 2. PLMN waits for a restart; a new DNN is live and its pool hands out addresses.
expect 200 PATCH /api/v1/settings -d '{"plmn": {"mcc": "001", "mnc": "02"}, "dnns": [{"name": "internet", "pool": "10.45.0.0/16"}, {"name": "iot", "pool": "10.47.0.0/24", "mtu": 1300}]}'
check "','.join(j['applied'])" dnns
check "','.join(j['restart_required'])" plmn
check "','.join(j['settings']['pending_restart'])" plmn
gnb iot --tac 5 --session --dnn iot || bad "PDU session on the new DNN: $(tail -5 "$tmp/iot.log")"
grep -q "established dnn=iot addr=10.47.0." "$tmp/log$run" || bad "no session on iot from 10.47.0.0/24"
stop
# 3. Restart: the saved keys on top of the file.
start
grep -q "settings from the database (override the configuration file): plmn, tacs, slices, dnns" "$tmp/log$run" ||
	bad "the start-up log does not name the keys from the database"
grep -q "plmn=001-02" "$tmp/log$run" || bad "the AMF did not start with PLMN 001/02"
expect 200 GET /api/v1/settings
check "j['plmn']['mnc']" 02
check "j['tacs']" "[1, 5]"
check "[d['name'] for d in j['dnns']]" "['internet', 'iot']"
check "j['pending_restart']" "[]"
check "j['saved']" "['plmn', 'tacs', 'slices', 'dnns']"
# 4. Back to the file.
expect 200 DELETE /api/v1/settings
check "j['deleted']" "['plmn', 'tacs', 'slices', 'dnns']"
check "j['settings']['pending_restart']" "['plmn', 'tacs', 'slices', 'dnns']"
stop
start
grep -q "settings from the database" "$tmp/log$run" && bad "settings still come from the database after DELETE"
expect 200 GET /api/v1/settings
check "j['plmn']['mnc']" 01
check "j['tacs']" "[1]"
check "j['saved']" "[]"
stop
if grep -q -e "$K" -e "$OPC" -e "$TOKEN" "$tmp"/log*; then bad "a secret reached the log"; fi
if [ $fail -ne 0 ]; then
	for f in "$tmp"/log*; do echo "== $f"; cat "$f"; done
	for f in "$tmp"/*.log; do echo "== $f"; tail -20 "$f"; done
fi
exit $fail
