#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# Who may use N2 (issue 31 point 6), over real SCTP: e2e_core (db, udm, ausf, amf, smf on one
# loop; N2 on usrsctp raw IP) in one network namespace, ransim processes (gNBs + UEs) in
# another, joined by a veth; the gNB side has two addresses (.2 and .3).
#
#   dupid    gNB A (ransim, .2, Global gNB ID 00101:0x100/22) registers a UE and holds it. gNB B
#            (a second ransim from .3, the same Global gNB ID) sends NG SETUP REQUEST: NG SETUP
#            FAILURE (TS 38.413 8.7.1.3), cause Misc "unspecified" (9.3.1.2) with Time to Wait,
#            decoded by tshark from B's capture. A is asked (AMF CONFIGURATION UPDATE, 8.7.3)
#            and answers; it keeps its UE: its deregistration after the hold is accepted (exit
#            0), no UE CONTEXT RELEASE COMMAND but that one, no Error Indication. The core
#            counts one gNB set up, not two.
#   allowed  n2.allowed_gnbs: ["00101:0x100/22@<.2>/32", "00101:0x101/22@192.0.2.1"]. One
#            ransim from .2 with gNBs 0x100 and 0x101: gNB 0 sets up and its UE registers; gNB
#            1 (listed, but not from its prefix) gets NG SETUP FAILURE Misc "unspecified"
#            (tshark) and its association is closed by the core (SCTP SHUTDOWN); the core says
#            why in its log; one gNB set up.
#   psguess  gNB A (.2) registers a UE with a PDU session and holds it. gNB B (.3, gNB ID 0x200)
#            registers a UE of its own, learns that UE's AMF UE NGAP ID F and sends one PATH
#            SWITCH REQUEST (TS 38.413 8.4.4) per guess around F (+-64, and the old pattern
#            "generation << index bits | index", ransim --ps-guess): every one gets ERROR
#            INDICATION unknown-local-UE-NGAP-ID (10.6), none an ACKNOWLEDGE or FAILURE; A's UE
#            is not moved (its deregistration after the hold is accepted on A).
#   ids      1000 UEs register (and stay): the AMF UE NGAP IDs ransim was given (--amf-ids,
#            TS 38.413 9.3.3.1, 40 bits) are all distinct, no two successive ones (in the order
#            the AMF named them) within 2^24 of each other (random IDs: ~0.03 such pairs
#            expected), bit 39 set in 400..600 of them (binomial 500 +- 16).
#
#   e2e_n2_guard.sh SOLOCORE E2E_CORE RANSIM TSHARK CASE
#
# Needs root and `ip netns` (77 otherwise). Without tshark the decode checks fail loudly.
set -u
SOLOCORE=$1 CORE=$2 RANSIM=$3 TSHARK=$4 CASE=$5
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"

T=n2g$$
e2e_netns "$T" 10.38.71 e2e-n2-guard
A_IP=10.38.71.2 B_IP=10.38.71.3
ip -n "$NS_R" addr add "$B_IP/24" dev "$VETH_R" || exit 1
R="--addr $AMF --backend usrsctp --encap raw --cuc --timeout 60"

gen_sims "$TMP/sims.toml" "$([ "$CASE" = ids ] && echo 1000 || echo 2)" 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/core.yaml" "$AMF" usrsctp
sed -i "s/^  level: .*/  level: info/" "$TMP/core.yaml"
# no user plane in e2e_core: the N3 address the gNBs are told (e2e_cycle.sh)
printf 'upf:\n  n3_address: "%s"\n' "$AMF" >>"$TMP/core.yaml"

# ng_setup_failure PCAP: the cause of the NG SETUP FAILUREs in the capture (tshark), one a line.
ng_setup_failure() {
	"$TSHARK" -r "$1" -Y 'ngap.procedureCode == 21 && ngap.unsuccessfulOutcome_element' -T fields -e ngap.misc \
		2>>"$TMP/tshark.log"
}
need_tshark() {
	[ -x "$TSHARK" ] || { fail "tshark not found ($TSHARK): the NG SETUP FAILURE is not decoded"; return 1; }
}
# A in the background: its UE registers (and sets up a session with $1) and holds HOLD ms.
start_a() {
	$NSR "$RANSIM" $R --sims "$TMP/sims.toml" --ues 1 --local-addr "$A_IP" --hold-ms "${HOLD:-6000}" $1 \
		--pcap "$TMP/a.pcap" >"$TMP/a.out" 2>"$TMP/a.log" &
	A_PID=$!
	wait_stat "registered 1" || fail "A's UE did not register"
}
wait_a() {
	wait "$A_PID"
	RS_RC=$?
	A_PID=
}
trap '[ -n "${A_PID:-}" ] && kill -KILL "$A_PID" 2>/dev/null; e2e_cleanup' EXIT INT TERM

case $CASE in
dupid)
	start_core "$TMP/core.yaml" || exit 1
	start_a ""
	run_ransim b $R --sims "$TMP/sims.toml" --ues 1 --sim-offset 1 --local-addr "$B_IP" --timeout 10 \
		--pcap "$TMP/b.pcap"
	core_stats
	expect_stat gnbs 1
	expect_rc b 1
	grep -q "^failure ng_setup_failure" "$TMP/b.out" || fail "b: no NG SETUP FAILURE ($(grep '^failure' "$TMP/b.out"))"
	expect b ues_registered 0
	grep -q "NG Setup from gnb=00101:0x100/22 refused: that Global RAN Node ID is held by" "$TMP/core.log" ||
		fail "core: no log line for the refused NG Setup"
	wait_a
	expect_rc a 0
	expect a ues_ok 1
	expect a amf_cfg_updates 1
	expect a "ngap_rx UEContextReleaseCommand" 1
	! grep -q "^failure error_indication" "$TMP/a.out" || fail "a: Error Indication"
	if need_tshark; then
		c=$(ng_setup_failure "$TMP/b.pcap")
		[ "$c" = 5 ] || fail "b.pcap: NG SETUP FAILURE cause misc '$c', expected 5 (unspecified)"
		echo "tshark: B's NG SETUP FAILURE, cause misc $c"
	fi
	;;
allowed)
	sed -i "s|^  usrsctp_encaps: raw|  usrsctp_encaps: raw\n  allowed_gnbs: [\"00101:0x100/22@$A_IP/32\", \"00101:0x101/22@192.0.2.1\"]|" "$TMP/core.yaml"
	start_core "$TMP/core.yaml" || exit 1
	run_ransim ab $R --sims "$TMP/sims.toml" --gnbs 2 --ues 2 --local-addr "$A_IP" --timeout 15 --pcap "$TMP/ab.pcap"
	core_stats
	expect_stat reg_accepted 1
	expect_rc ab 1
	[ "$(grep -c "NG Setup gnb-id=" "$TMP/core.log")" = 1 ] || fail "core: $(grep -c "NG Setup gnb-id=" "$TMP/core.log") gNBs set up, 1 expected"
	grep -q "NG Setup gnb-id=100 gnb=00101:0x100/22 " "$TMP/core.log" || fail "core: gNB 0 (listed) not set up"
	expect ab ues_ok 1
	grep -q "^failure ng_setup_failure" "$TMP/ab.out" || fail "ab: no NG SETUP FAILURE for gNB 1"
	grep -q "assoc=[0-9]* NG Setup from gnb=00101:0x101/22 refused: not in n2.allowed_gnbs" "$TMP/core.log" ||
		fail "core: no log line for the gNB not allowed"
	grep -q "down: shutdown" "$TMP/core.log" || fail "core: the refused association was not shut down"
	if need_tshark; then
		c=$(ng_setup_failure "$TMP/ab.pcap")
		[ "$c" = 5 ] || fail "ab.pcap: NG SETUP FAILURE cause misc '$c', expected one, 5 (unspecified)"
		echo "tshark: gNB 1's NG SETUP FAILURE, cause misc $c"
	fi
	;;
psguess)
	start_core "$TMP/core.yaml" || exit 1
	HOLD=8000 start_a --session
	sleep 1
	run_ransim b $R --sims "$TMP/sims.toml" --ues 1 --sim-offset 1 --local-addr "$B_IP" --gnb-id-base 0x200 \
		--hold-ms 3000 --ps-guess --timeout 20
	sent=$(grep "^ps_guess_sent " "$TMP/b.out" | cut -d' ' -f2)
	[ "${sent:-0}" -gt 400 ] || fail "b: ${sent:-no} PATH SWITCH REQUEST guesses sent"
	expect b ps_guess_error_ind "${sent:-0}"
	expect b ps_guess_ack 0
	expect b ps_guess_fail 0
	expect b ps_guess_other 0
	expect_rc b 0
	wait_a
	expect_rc a 0
	expect a ues_ok 1
	expect a pdu_established 1
	expect a "ngap_rx UEContextReleaseCommand" 1
	echo "b: $sent guesses, $(grep '^ps_guess_error_ind ' "$TMP/b.out" | cut -d' ' -f2) ERROR INDICATIONs"
	;;
ids)
	start_core "$TMP/core.yaml" || exit 1
	run_ransim ids $R --sims "$TMP/sims.toml" --ues 1000 --concurrency 50 --dereg none --timeout 60 \
		--amf-ids "$TMP/ids.txt"
	expect_rc ids 0
	expect ids ues_registered 1000
	core_stats
	expect_stat registered 1000
	res=$(awk '{ id = $2 + 0; n++; if (id > 1099511627775) bad++; if (id >= 549755813888) top++;
		if (n > 1) { d = id - prev; if (d < 0) d = -d; if (d < 16777216) near++ }
		prev = id; seen[$2]++ }
		END { for (k in seen) if (seen[k] > 1) dup++; printf "%d %d %d %d %d", n, bad + 0, dup + 0, near + 0, top + 0 }' \
		"$TMP/ids.txt")
	set -- $res
	echo "ids: $1 AMF UE NGAP IDs, $2 past 2^40-1, $3 repeated, $4 successive pairs within 2^24, $5 with bit 39 set;" \
		"first $(head -n 3 "$TMP/ids.txt" | cut -d' ' -f2 | tr '\n' ' ')"
	[ "$1" = 1000 ] || fail "ids: $1 IDs, 1000 expected"
	[ "$2" = 0 ] && [ "$3" = 0 ] || fail "ids: $2 out of range, $3 repeated"
	[ "$4" -le 2 ] || fail "ids: $4 successive pairs within 2^24 (sequential IDs)"
	[ "$5" -ge 400 ] && [ "$5" -le 600 ] || fail "ids: bit 39 set in $5 of 1000"
	;;
*)
	echo "unknown case $CASE"; exit 2;;
esac
stop_core
[ $FAILS = 0 ] || { show_logs; exit 1; }
echo "ok: n2-guard-$CASE"
exit 0
