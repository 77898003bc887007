#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# A policy and a subscription change reach attached UEs (test `policy-change`, suite e2e).
#
#   ransim ns (gNB + 3 UEs)  --veth--  core ns (`solocore run`, web API on 127.0.0.1:5000)
#   10.38.55.2                         10.38.55.1
#
# Provisioned through the API: policy "e2e-pol" (UE-AMBR 100/200 Mbit/s, session-AMBR
# 10/20 Mbit/s) and three SIMs: A on the policy; B on the policy with a session-AMBR of its
# own (7/8 Mbit/s); C on no policy with its own UE-AMBR (300/400) and session-AMBR (5/6).
# ransim registers them (NIA2, NEA0 so that tshark reads the NAS), opens PDU session 1 each
# and holds them CM-CONNECTED (--hold-ms). While they are held the script
#   1. PUTs the policy: UE-AMBR 150/250, session-AMBR 30/40 Mbit/s;
#   2. PATCHes B's own UE-AMBR to 160/260 Mbit/s.
# What the core must do (core.c web_set_change_ops, amf/ue_ambr.c, smf/smf_policy.c):
#  - UE-AMBR: a UE CONTEXT MODIFICATION REQUEST to the gNB of each connected UE whose
#    subscribed UE-AMBR changed (TS 38.413 8.3.4.2; TS 23.501 5.7.2.6): A once (150/250),
#    B twice (150/250 from the policy, then 160/260, its own value winning, TS 23.501
#    5.7.2.6 / web/README "own > policy > default"); C nothing;
#  - session-AMBR: a network-requested PDU session modification of each ACTIVE session whose
#    session-AMBR changed (TS 23.502 4.3.3.2, TS 24.501 6.3.2.2): PDU SESSION RESOURCE MODIFY
#    REQUEST (TS 38.413 8.2.3.2) with the new session-AMBR in the Modify Request Transfer
#    (9.3.4.3) and the PDU SESSION MODIFICATION COMMAND in its NAS-PDU: A only (30/40); B keeps
#    its own 7/8, C its own 5/6.
# ransim answers as gNB and UE (UE CONTEXT MODIFICATION RESPONSE, PDU SESSION RESOURCE MODIFY
# RESPONSE, PDU SESSION MODIFICATION COMPLETE, TS 24.501 6.3.2.3).
#
# Asserted: ransim's report (per UE: the UE-AMBR its gNB holds and how many modifications,
# the session-AMBR the UE and the gNB hold and how many commands; totals, NGAP counts by
# message); GET /api/v1/sessions after the changes: A's session ACTIVE with 30/40 (the SMF
# took the COMPLETE, TS 24.501 6.3.2.3), B 7/8, C 5/6; every UE ran its plan (registered,
# session, deregistered); tshark on ransim's N2 pcap (ngap + nas-5gs, NEA0 read with
# null_decipher): nothing malformed, the UE-AMBR of each INITIAL CONTEXT SETUP REQUEST (A, B
# 100/200, C 300/400), 3 UE CONTEXT MODIFICATION REQUESTs with those UE-AMBRs
# in order, 3 RESPONSEs, one PDU SESSION RESOURCE MODIFY REQUEST / RESPONSE, one PDU SESSION
# MODIFICATION COMMAND with the session-AMBR 30/40 Mbit/s and one COMPLETE.
# Against a core that sends neither (e.g. 092bc1d) the counts and values are 0: it fails.
#
#   e2e_policy.sh SOLOCORE RANSIM [TSHARK]     env: HOLD_MS (8000)
#
# Needs root and `ip netns` (77 otherwise, from e2e_netns), curl (77 otherwise).
set -u
SOLOCORE=$1 RANSIM=$2 TSHARK=${3:-tshark}
HOLD_MS=${HOLD_MS:-8000}
CORE=
TOKEN=e2e-policy-token-3b9d
M=000000    # Mbit/s in bit/s: ${n}$M
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
command -v curl >/dev/null 2>&1 || { echo "SKIP: curl not found (API client)"; exit 77; }

T=pol$$
e2e_netns "$T" 10.38.55 e2e-policy
A=imsi-001010000000001 B=imsi-001010000000002 C=imsi-001010000000003

mk_config "$TMP/run.yaml" "$AMF" usrsctp "NIA2, NIA1, NIA3" "NEA0, NEA2"
sed -i "s/^  level: .*/  level: info/" "$TMP/run.yaml"
cat >>"$TMP/run.yaml" <<EOF
dnns:
  - { name: "internet", pool: "10.45.0.0/16" }
upf:
  n3_address: "$AMF"
web: { listen: "127.0.0.1", port: 5000 }
EOF
SOLOCORE_WEB_TOKEN=$TOKEN start_solocore "$TMP/run.yaml" "$TMP/core.log" ||
	{ fail "solocore run $SOLOCORE_WHY"; show_logs; exit 1; }

# api METHOD PATH [BODY]: the HTTP status on stdout, the body in $TMP/body.
api() {
	$NSC curl -s -o "$TMP/body" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $TOKEN" \
		${3:+--data-binary "$3"} "http://127.0.0.1:5000$2"
}
# api_ok STATUS METHOD PATH [BODY]: fails the test (with the body) on another status.
api_ok() {
	want=$1; shift
	got=$(api "$@")
	[ "$got" = "$want" ] || { fail "$1 $2: HTTP $got, expected $want: $(cat "$TMP/body")"; return 1; }
}
# sessions NAME: "supi state ambr_ul ambr_dl" per PDU session, sorted, in $TMP/NAME.sess.
sessions() {
	api GET '/api/v1/sessions?limit=100' >"$TMP/status" && [ "$(cat "$TMP/status")" = 200 ] || return 1
	python3 -c 'import json,sys
for s in sorted(json.load(open(sys.argv[1]))["items"], key=lambda s: s["supi"]):
    print(s["supi"], s["state"], s["ambr_ul"], s["ambr_dl"])' "$TMP/body" >"$TMP/$1.sess"
}
# wait_sessions NAME LINES: until GET /api/v1/sessions shows exactly LINES (5 s at most).
wait_sessions() {
	_end=$(($(date +%s%N) + 5000000000))
	while [ "$(date +%s%N)" -lt $_end ]; do
		sessions "$1" && [ "$(cat "$TMP/$1.sess")" = "$2" ] && return 0
		sleep 0.1
	done
	fail "sessions ($1): expected
$2
got
$(cat "$TMP/$1.sess" 2>/dev/null)"
	return 1
}

# the policy, then the SIMs on it (a policy must exist before a SIM file names it, db/SIMS.md)
api_ok 201 POST /api/v1/policies "{\"name\": \"e2e-pol\", \"ue_ambr_ul\": 100$M, \"ue_ambr_dl\": 200$M,
	\"ambr_ul\": 10$M, \"ambr_dl\": 20$M}" || { show_logs; exit 1; }
gen_sims "$TMP/a.toml" 1 001010000000001 && gen_sims "$TMP/b.toml" 1 001010000000002 &&
	gen_sims "$TMP/c.toml" 1 001010000000003 || exit 1
printf 'policy = "e2e-pol"\n' >>"$TMP/a.toml"
printf 'policy = "e2e-pol"\nambr_ul = %s\nambr_dl = %s\n' "7$M" "8$M" >>"$TMP/b.toml"
printf 'ue_ambr_ul = %s\nue_ambr_dl = %s\nambr_ul = %s\nambr_dl = %s\n' "300$M" "400$M" "5$M" "6$M" >>"$TMP/c.toml"
cat "$TMP/a.toml" "$TMP/b.toml" "$TMP/c.toml" >"$TMP/sims.toml"
api_ok 200 POST /api/v1/subscribers/import "@$TMP/sims.toml" || { show_logs; exit 1; }

# three UEs, PDU session 1 each, held CM-CONNECTED for HOLD_MS, then deregistered
$NSR "$RANSIM" --sims "$TMP/sims.toml" --addr "$AMF" --backend usrsctp --encap raw --ues 3 \
	--concurrency 3 --cuc --session --hold-ms "$HOLD_MS" --dereg normal --timeout 60 \
	--pcap "$TMP/n2.pcap" >"$TMP/rs.out" 2>"$TMP/rs.log" &
RS_PID=$!
t0=$(date +%s%N)
ms() { echo $((($(date +%s%N) - t0) / 1000000)); }

wait_sessions before "$A ACTIVE 10$M 20$M
$B ACTIVE 7$M 8$M
$C ACTIVE 5$M 6$M" || { show_logs; exit 1; }
echo "sessions up at $(ms) ms"
# 1. the policy changes: A's and B's UE-AMBR, A's session-AMBR (B and C have their own)
api_ok 200 PUT /api/v1/policies/e2e-pol "{\"ue_ambr_ul\": 150$M, \"ue_ambr_dl\": 250$M,
	\"ambr_ul\": 30$M, \"ambr_dl\": 40$M}"
# A's session shows 30/40 only once the SMF took the COMPLETE (TS 24.501 6.3.2.3)
wait_sessions policy "$A ACTIVE 30$M 40$M
$B ACTIVE 7$M 8$M
$C ACTIVE 5$M 6$M" && echo "policy change through at $(ms) ms"
# 2. B's own UE-AMBR (its session-AMBR unchanged: no PDU session modification)
api_ok 200 PATCH /api/v1/subscribers/001010000000002 "{\"ue_ambr_ul\": 160$M, \"ue_ambr_dl\": 260$M}"
sleep 1
wait_sessions after "$A ACTIVE 30$M 40$M
$B ACTIVE 7$M 8$M
$C ACTIVE 5$M 6$M"
[ "$(ms)" -lt "$HOLD_MS" ] || fail "the changes took longer than the hold ($(ms) ms >= $HOLD_MS ms): raise HOLD_MS"
wait "$RS_PID"
RS_RC=$?
RS_PID=

# every UE ran its plan: registered, PDU session, held, deregistered; no check failed
expect_rc rs 0
expect rs ues_ok 3
expect rs ues_failed 0
expect rs pdu_established 3
expect rs dl_mac_fail 0
expect rs stream_violations 0
# what the gNB and the UEs received (the totals exact, so nothing went elsewhere)
expect rs ue_ctx_mods 3
expect rs ue_ambr_ul_last "160$M"
expect rs ue_ambr_dl_last "260$M"
expect rs pdu_mod_requests 1
expect rs pdu_mod_commands 1
expect rs pdu_mod_rejected 0
expect rs sess_ambr_ul_last "30$M"
expect rs sess_ambr_dl_last "40$M"
expect rs "ue_qos $A" "ue_ctx_mods 1 ue_ambr_ul 150$M ue_ambr_dl 250$M pdu_mods 1 sess_ambr_ul 30$M sess_ambr_dl 40$M n2_ambr_ul 30$M n2_ambr_dl 40$M"
expect rs "ue_qos $B" "ue_ctx_mods 2 ue_ambr_ul 160$M ue_ambr_dl 260$M pdu_mods 0 sess_ambr_ul 7$M sess_ambr_dl 8$M n2_ambr_ul 7$M n2_ambr_dl 8$M"
! grep -q "^ue_qos $C " "$TMP/rs.out" || fail "C (own values, no policy) got a modification: $(grep "^ue_qos $C " "$TMP/rs.out")"
expect rs "ngap_rx UEContextModificationRequest" 3
expect rs "ngap_tx UEContextModificationResponse" 3
expect rs "ngap_rx PDUSessionResourceModifyRequest" 1
expect rs "ngap_tx PDUSessionResourceModifyResponse" 1

# tshark on ransim's N2 pcap: NGAP and NAS-5GS (NEA0: null_decipher reads the protected NAS)
if command -v "$TSHARK" >/dev/null 2>&1; then
	ts() { "$TSHARK" -r "$TMP/n2.pcap" -o nas-5gs.null_decipher:TRUE "$@" 2>>"$TMP/tshark.log"; }
	bad=$(ts -Y '_ws.malformed || _ws.expert.severity >= error' | wc -l)
	[ "$bad" = 0 ] || { fail "n2 pcap: $bad malformed/error frames"; ts -Y '_ws.malformed || _ws.expert.severity >= error' | head; }
	# TS 38.413 9.2.2.1: the UE-AMBR each gNB context started with (ICS, procedure code 14):
	# the policy's for A and B, C's own
	got=$(ts -Y 'ngap.procedureCode == 14 && ngap.initiatingMessage_element' -T fields \
		-e ngap.RAN_UE_NGAP_ID -e ngap.uEAggregateMaximumBitRateUL -e ngap.uEAggregateMaximumBitRateDL | sort -s -k1,1n)
	want="0	100$M	200$M
1	100$M	200$M
2	300$M	400$M"
	[ "$got" = "$want" ] || fail "n2 pcap: INITIAL CONTEXT SETUP REQUESTs (RAN UE id, UE-AMBR UL, DL):
$got
expected
$want"
	# TS 38.413 8.3.4: UE CONTEXT MODIFICATION REQUEST (procedure code 40) with the UE-AMBR, in order
	got=$(ts -Y 'ngap.procedureCode == 40 && ngap.initiatingMessage_element' -T fields \
		-e ngap.RAN_UE_NGAP_ID -e ngap.uEAggregateMaximumBitRateUL -e ngap.uEAggregateMaximumBitRateDL | sort -s -k1,1n)
	want="0	150$M	250$M
1	150$M	250$M
1	160$M	260$M"
	[ "$got" = "$want" ] || fail "n2 pcap: UE CONTEXT MODIFICATION REQUESTs (RAN UE id, UL, DL):
$got
expected
$want"
	n=$(ts -Y 'ngap.procedureCode == 40 && ngap.successfulOutcome_element' | wc -l)
	[ "$n" = 3 ] || fail "n2 pcap: $n UE CONTEXT MODIFICATION RESPONSEs, 3 expected"
	# TS 38.413 8.2.3: PDU SESSION RESOURCE MODIFY (procedure code 26), one each way, A's (RAN UE id 0)
	got=$(ts -Y 'ngap.procedureCode == 26 && ngap.initiatingMessage_element' -T fields -e ngap.RAN_UE_NGAP_ID \
		-e ngap.pDUSessionAggregateMaximumBitRateUL -e ngap.pDUSessionAggregateMaximumBitRateDL)
	[ "$got" = "0	30$M	40$M" ] || fail "n2 pcap: PDU SESSION RESOURCE MODIFY REQUESTs (RAN UE id, session-AMBR UL, DL): '$got'"
	n=$(ts -Y 'ngap.procedureCode == 26 && ngap.successfulOutcome_element' | wc -l)
	[ "$n" = 1 ] || fail "n2 pcap: $n PDU SESSION RESOURCE MODIFY RESPONSEs, 1 expected"
	# TS 24.501 8.3.9 / 8.3.10: the COMMAND (0xcb) with the session-AMBR 30/40 Mbit/s, the COMPLETE (0xcc)
	ts -Y 'nas_5gs.sm.message_type == 0xcb' -V >"$TMP/cmd.txt"
	n=$(grep -c 'Message type: PDU session modification command' "$TMP/cmd.txt")
	[ "$n" = 1 ] || fail "n2 pcap: $n PDU SESSION MODIFICATION COMMANDs, 1 expected"
	# 9.11.4.14: the value in the unit the SMF chose (1 kbps or 1 Mbps multiples)
	grep -Eq 'Session-AMBR for downlink: (40 Mbps|40000 Kbps) ' "$TMP/cmd.txt" &&
		grep -Eq 'Session-AMBR for uplink: (30 Mbps|30000 Kbps) ' "$TMP/cmd.txt" ||
		fail "n2 pcap: the COMMAND's session-AMBR is not 30/40 Mbit/s: $(grep -i 'Session-AMBR for' "$TMP/cmd.txt")"
	n=$(ts -Y 'nas_5gs.sm.message_type == 0xcc' | wc -l)
	[ "$n" = 1 ] || fail "n2 pcap: $n PDU SESSION MODIFICATION COMPLETEs, 1 expected"
	echo "n2 pcap: nothing malformed; UE CONTEXT MODIFICATION REQUESTs (RAN UE id, UL, DL): $(echo "$want" | tr '\t\n' ' ;')"
else
	echo "note: no tshark: the N2 pcap is not decoded (the rest is asserted)"
fi

grep -E '^(ue_ctx_mods|pdu_mod_requests|pdu_mod_commands|ue_qos) ' "$TMP/rs.out"
stop_core
[ $FAILS = 0 ] || { show_logs; for f in "$TMP"/*.sess; do echo "---- $f"; cat "$f"; done; exit 1; }
echo "ok: policy-change"
exit 0
