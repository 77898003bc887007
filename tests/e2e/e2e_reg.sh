#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# Registration end to end (issue 5 item 8): the core (e2e_core: config, SQLite with
# generated SIMs, udm, ausf, amf over usrsctp raw IP) in one network namespace, ransim
# (gNBs + UEs) in another, joined by a veth pair. Each CASE asserts real outcomes: the
# ransim report (UEs registered, failure causes, message counts) and the AMF counters.
#
#   e2e_reg.sh SOLOCORE E2E_CORE RANSIM CASE
#
# Cases: one hundred suci algs unknown plmn slice authmac noalg badmac guti resync drop
#        switchoff rereg gnbloss twognb pcap solocore (the last runs `solocore run` itself).  Needs root and `ip netns`: exits 77 (skip) otherwise.
set -u
SOLOCORE=$1 CORE=$2 RANSIM=$3 CASE=$4
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"

e2e_netns e2e$$ 10.38.42 e2e-reg
R="--addr $AMF --backend usrsctp --encap raw --cuc --timeout 60"

gen_sims "$TMP/sims.toml" 100 001010000000001 || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/core.yaml" "$AMF" usrsctp

# Registered, configuration update answered, deregistered: the whole plan of every UE.
expect_all_ok() { # NAME COUNT
	expect "$1" ues_ok "$2"; expect "$1" ues_registered "$2"; expect "$1" ues_failed 0
	expect "$1" cuc_received "$2"; expect "$1" dl_mac_fail 0; expect "$1" stream_violations 0
	expect_rc "$1" 0
}

case $CASE in
one)
	start_core "$TMP/core.yaml" || exit 1
	run_ransim one $R --sims "$TMP/sims.toml" --ues 1
	expect_all_ok one 1
	grep -q "^proc deregistration started 1 done 1" "$TMP/one.out" || fail "deregistration not done"
	grep -q "^proc registration started 1 done 1" "$TMP/one.out" || fail "registration not done"
	# 10 messages gNB->AMF: NG Setup, Initial UE, 5 UL NAS (auth, smc, reg complete, cuc
	# complete, dereg), ICS response, release complete; 6 AMF->gNB + NG Setup Response.
	expect one ngap_tx 9; expect one ngap_rx 7
	expect one "ngap_rx DownlinkNASTransport" 4
	expect one "ngap_rx InitialContextSetupRequest" 1
	expect one "ngap_rx UEContextReleaseCommand" 1
	core_stats
	expect_stat reg_accepted 1; expect_stat auth_ok 1; expect_stat smc_ok 1; expect_stat dereg_ue 1
	expect_stat registered 0
	;;
hundred)
	start_core "$TMP/core.yaml" || exit 1
	run_ransim hundred $R --sims "$TMP/sims.toml" --ues 100 --concurrency 25
	expect_all_ok hundred 100
	expect hundred ngap_tx 801; expect hundred ngap_rx 601
	core_stats
	expect_stat reg_accepted 100; expect_stat dereg_ue 100; expect_stat registered 0
	;;
suci)
	# Profile A (key 1) and profile B (key 2): the HN public key derived from the
	# configuration's private key, a fresh ephemeral key per UE.
	start_core "$TMP/core.yaml" || exit 1
	run_ransim suci_a $R -c "$TMP/core.yaml" --addr $AMF --sims "$TMP/sims.toml" --ues 5 --concurrency 5 --suci A
	expect_all_ok suci_a 5
	run_ransim suci_b $R -c "$TMP/core.yaml" --addr $AMF --sims "$TMP/sims.toml" --ues 5 --concurrency 5 --suci B
	expect_all_ok suci_b 5
	core_stats
	expect_stat reg_accepted 10
	;;
algs)
	# Each NIA1/2/3 x NEA0/1/2/3 pair, forced by the AMF's priority lists; the UE offers all.
	n=0
	for ia in 1 2 3; do
		for ea in 0 1 2 3; do
			mk_config "$TMP/alg.yaml" "$AMF" usrsctp "NIA$ia" "NEA$ea"
			start_core "$TMP/alg.yaml" || exit 1
			run_ransim "nia${ia}_nea$ea" $R --sims "$TMP/sims.toml" --ues 2 --concurrency 2 \
				--expect-nia $ia --expect-nea $ea
			expect_all_ok "nia${ia}_nea$ea" 2
			core_stats
			expect_stat reg_accepted 2
			stop_core
			n=$((n + 1))
		done
	done
	[ $n = 12 ] || fail "ran $n pairs"
	;;
unknown)
	gen_sims "$TMP/other.toml" 1 001019999999001 || exit 1
	start_core "$TMP/core.yaml" || exit 1
	run_ransim unknown $R --sims "$TMP/other.toml" --ues 1
	expect unknown ues_registered 0; expect unknown "failure reg_reject_7" 1; expect_rc unknown 1
	core_stats
	expect_stat reg_rejected 1; expect_stat ues 0
	;;
plmn)
	start_core "$TMP/core.yaml" || exit 1
	run_ransim plmn $R --sims "$TMP/sims.toml" --ues 1 --home-plmn 00202
	expect plmn ues_registered 0; expect plmn "failure reg_reject_11" 1; expect_rc plmn 1
	core_stats
	expect_stat reg_rejected 1
	;;
slice)
	# The subscriber's only slice (SST 7) is not served by this network.
	{ echo '[imsi-001010000000500]'; grep -A2 '^\[imsi-001010000000001\]' "$TMP/sims.toml" | tail -n 2
	  echo 'slices = [ "7" ]'; } >"$TMP/slice.toml"
	import_sims "$TMP/slice.toml" || exit 1
	start_core "$TMP/core.yaml" || exit 1
	run_ransim slice $R --sims "$TMP/slice.toml" --ues 1
	expect slice ues_registered 0; expect slice "failure reg_reject_62" 1; expect_rc slice 1
	core_stats
	expect_stat reg_rejected 1; expect_stat auth_ok 1
	;;
authmac)
	# The UE's SIM holds another K: the USIM finds MAC-A wrong (Authentication Failure #20),
	# the AMF answers Authentication Reject.
	sed 's/^ki = .*/ki = "000102030405060708090A0B0C0D0E0F"/' "$TMP/sims.toml" >"$TMP/wrongk.toml"
	start_core "$TMP/core.yaml" || exit 1
	run_ransim authmac $R --sims "$TMP/wrongk.toml" --ues 1
	expect authmac ues_registered 0; expect authmac auth_mac_fail 1; expect authmac "failure auth_reject" 1
	expect_rc authmac 1
	core_stats
	expect_stat auth_mac_fail 1; expect_stat auth_reject 1; expect_stat registered 0
	;;
noalg)
	mk_config "$TMP/noalg.yaml" "$AMF" usrsctp "NIA2" "NEA0, NEA2"
	start_core "$TMP/noalg.yaml" || exit 1
	run_ransim noalg $R --sims "$TMP/sims.toml" --ues 1 --nia 0,1,3 --nea 0,1,2,3
	expect noalg ues_registered 0; expect noalg "failure reg_reject_23" 1; expect_rc noalg 1
	core_stats
	expect_stat reg_rejected 1; expect_stat smc_ok 0
	;;
badmac)
	# Registration Complete sent once with a corrupted MAC: dropped and counted by the AMF;
	# the good copy, the configuration update and the deregistration then work as usual.
	start_core "$TMP/core.yaml" || exit 1
	run_ransim badmac $R --sims "$TMP/sims.toml" --ues 3 --concurrency 3 --bad-mac
	expect_all_ok badmac 3
	expect badmac bad_mac_sent 3
	core_stats
	expect_stat nas_mac_fail 3; expect_stat reg_accepted 3; expect_stat dereg_ue 3
	;;
guti)
	start_core "$TMP/core.yaml" || exit 1
	run_ransim guti $R --sims "$TMP/sims.toml" --ues 2 --concurrency 2 --unknown-guti
	expect_all_ok guti 2
	expect guti identity_requests 2
	core_stats
	expect_stat reg_accepted 2
	;;
resync)
	# The USIM has seen SQN 0x100000 already; the database still has 0: the first AUTN is
	# stale, the UE sends AUTS, the UDM resynchronises and the second vector succeeds.
	awk '/^\[imsi-/ { print; print "sqn = \"000000100000\""; next } { print }' "$TMP/sims.toml" >"$TMP/ahead.toml"
	start_core "$TMP/core.yaml" || exit 1
	run_ransim resync $R --sims "$TMP/ahead.toml" --ues 2 --concurrency 2
	expect_all_ok resync 2
	expect resync auth_sync_fail 2
	core_stats
	expect_stat auth_sync_fail 2; expect_stat reg_accepted 2
	;;
drop)
	# gNB 0 aborts its association when the Authentication Request arrives; it reconnects
	# and the same UE registers on the new association. The AMF must have released the
	# half-done context with the association (its log names the gNB and the UE count) and
	# no UE context or gNB may be left once the UE has deregistered and ransim has gone.
	CORE_LOG=info mk_config "$TMP/info.yaml" "$AMF" usrsctp
	start_core "$TMP/info.yaml" || exit 1
	run_ransim drop $R --sims "$TMP/sims.toml" --ues 1 --drop-assoc
	expect_all_ok drop 1
	expect drop assoc_drops 1
	expect drop "ngap_tx NGSetupRequest" 2
	grep -q "assoc=[0-9]* down gnb=.* ues=1" "$TMP/core.log" || fail "AMF did not report releasing 1 UE with the dropped association"
	core_stats
	expect_stat reg_accepted 1; expect_stat ues 0; expect_stat registered 0; expect_stat gnbs 0
	;;
rereg)
	# NIA2/NEA2. After registering, the gNB releases each UE to CM-IDLE; the UE comes back
	# with a periodic registration update carrying its 5G-GUTI, integrity protected with
	# the current context (TS 24.501 4.4.6); then deregisters.
	mk_config "$TMP/nea2.yaml" "$AMF" usrsctp "NIA2" "NEA2"
	start_core "$TMP/nea2.yaml" || exit 1
	run_ransim rereg $R --sims "$TMP/sims.toml" --ues 5 --concurrency 5 --reregister --expect-nea 2
	expect rereg ues_ok 5; expect rereg ues_failed 0; expect rereg reregistrations 5
	expect rereg dl_mac_fail 0; expect rereg stream_violations 0; expect_rc rereg 0
	expect rereg "ngap_tx UEContextReleaseRequest" 5
	grep -q "^proc registration started 10 done 10" "$TMP/rereg.out" || fail "10 registrations expected"
	core_stats
	expect_stat reg_accepted 10; expect_stat dereg_ue 5; expect_stat registered 0; expect_stat ues 0
	;;
gnbloss)
	# Association loss cleans up every UE of that gNB and nothing else: gNB B registers 10
	# UEs and holds them connected; meanwhile gNB A (another ransim) registers 10 others and
	# goes away. A's 10 N2 UE associations go with it (the AMF logs ues=10, its UEs stay
	# registered in CM-IDLE); B's UEs then deregister normally over their untouched ones.
	CORE_LOG=info mk_config "$TMP/info.yaml" "$AMF" usrsctp
	start_core "$TMP/info.yaml" || exit 1
	# Two gNBs: two Global RAN Node IDs (an NG Setup naming one held by a live association
	# is refused, issue 31); A keeps ransim's default 0x100.
	$NSR "$RANSIM" $R --sims "$TMP/sims.toml" --sim-offset 10 --ues 10 --concurrency 10 --hold-ms 5000 \
		--gnb-id-base 0x200 >"$TMP/gnb_b.out" 2>"$TMP/gnb_b.log" &
	B_PID=$!
	wait_stat "reg_accepted 10"
	run_ransim gnb_a $R --sims "$TMP/sims.toml" --ues 10 --concurrency 10 --dereg none
	expect gnb_a ues_ok 10; expect gnb_a ues_registered 10; expect_rc gnb_a 0
	wait "$B_PID"; RS_RC=$?; B_PID=
	expect gnb_b ues_ok 10; expect gnb_b ues_failed 0; expect_rc gnb_b 0
	grep -q "^proc deregistration started 10 done 10" "$TMP/gnb_b.out" || fail "gNB B: deregistrations not all done"
	down=$(grep -n "down gnb=.* ues=10" "$TMP/core.log" | head -n 1 | cut -d: -f1)
	first_dereg=$(grep -n "UE-initiated deregistration" "$TMP/core.log" | head -n 1 | cut -d: -f1)
	[ -n "$down" ] || fail "AMF did not report gNB A's association down with its 10 UEs"
	[ -n "$down" ] && [ -n "$first_dereg" ] && [ "$down" -lt "$first_dereg" ] ||
		fail "gNB A went away after gNB B's UEs deregistered: the case proved nothing"
	core_stats
	expect_stat reg_accepted 20; expect_stat dereg_ue 10; expect_stat registered 10; expect_stat gnbs 0
	;;
switchoff)
	start_core "$TMP/core.yaml" || exit 1
	run_ransim switchoff $R --sims "$TMP/sims.toml" --ues 4 --concurrency 4 --dereg switch-off
	expect_all_ok switchoff 4
	grep -q "^proc deregistration started 4 done 4" "$TMP/switchoff.out" || fail "switch-off deregistrations not all done"
	expect switchoff "ngap_rx DownlinkNASTransport" 12   # auth, SMC, CUC; no Deregistration Accept
	core_stats
	expect_stat dereg_ue 4; expect_stat registered 0; expect_stat ues 0
	;;
twognb)
	start_core "$TMP/core.yaml" || exit 1
	run_ransim twognb $R --sims "$TMP/sims.toml" --gnbs 2 --ues 40 --concurrency 10
	expect_all_ok twognb 40
	expect twognb "ngap_tx NGSetupRequest" 2; expect twognb "ngap_rx NGSetupResponse" 2
	core_stats
	expect_stat reg_accepted 40
	;;
pcap)
	if ! command -v tshark >/dev/null 2>&1; then
		echo "SKIP: tshark not installed"; exit 77
	fi
	start_core "$TMP/core.yaml" || exit 1
	# Also the real wire: dumpcap on ransim's veth end sees usrsctp's own packets.
	WIRE=
	if command -v dumpcap >/dev/null 2>&1; then
		$NSR dumpcap -q -i "$VETH_R" -f sctp -w "$TMP/wire.pcapng" >"$TMP/dumpcap.log" 2>&1 &
		WIRE=$!
		i=0
		while ! grep -q "Capturing on" "$TMP/dumpcap.log" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	fi
	run_ransim pcap $R --sims "$TMP/sims.toml" --ues 3 --concurrency 3 --pcap "$TMP/n2.pcap" --expect-nea 0
	expect_all_ok pcap 3
	if [ -n "$WIRE" ]; then
		sleep 0.3
		kill -INT "$WIRE" 2>/dev/null; wait "$WIRE" 2>/dev/null
		# SCTP may bundle several DATA chunks in one packet: count NGAP PDUs, not frames.
		wire=$(tshark -r "$TMP/wire.pcapng" -T fields -e ngap.procedureCode 2>>"$TMP/tshark.log" | tr ',' '\n' | grep -c .)
		wbad=$(tshark -r "$TMP/wire.pcapng" -Y '_ws.malformed || _ws.expert.severity >= error' 2>>"$TMP/tshark.log" | wc -l)
		[ "$wbad" = 0 ] || fail "wire capture: $wbad malformed/error frames"
	fi
	frames=$(tshark -r "$TMP/n2.pcap" -Y ngap 2>"$TMP/tshark.log" | wc -l)
	bad=$(tshark -r "$TMP/n2.pcap" -o nas-5gs.null_decipher:TRUE -Y '_ws.malformed || _ws.expert.severity >= error' 2>>"$TMP/tshark.log" | wc -l)
	want=$(( $(grep '^ngap_tx [0-9]' "$TMP/pcap.out" | cut -d' ' -f2) + $(grep '^ngap_rx [0-9]' "$TMP/pcap.out" | cut -d' ' -f2) ))
	[ "$frames" = "$want" ] || fail "pcap: $frames NGAP frames decoded, $want exchanged"
	[ -z "$WIRE" ] || [ "$wire" = "$want" ] || fail "wire capture: $wire NGAP PDUs decoded, $want exchanged"
	echo "pcap: $want NGAP PDUs exchanged, $frames decoded from ransim's pcap, ${wire:-(no dumpcap)} from the wire"
	[ "$bad" = 0 ] || { fail "pcap: $bad malformed/error frames"; tshark -r "$TMP/n2.pcap" -Y '_ws.malformed || _ws.expert.severity >= error' -V | head -n 60; }
	# NEA0: NAS stays readable; every registration step is visible to the dissector (the
	# Registration Request twice per UE: initial message and Security Mode Complete container).
	tshark -r "$TMP/n2.pcap" -o nas-5gs.null_decipher:TRUE -T fields -e nas_5gs.mm.message_type \
		2>>"$TMP/tshark.log" | tr ',' '\n' | grep . | sort | uniq -c >"$TMP/nastypes"
	for want in "6 0x41" "3 0x42" "3 0x43" "3 0x45" "3 0x46" "3 0x54" "3 0x55" "3 0x56" "3 0x57" "3 0x5d" "3 0x5e"; do
		grep -qx " *$want" "$TMP/nastypes" || { fail "pcap: NAS types (count type): wanted '$want'"; cat "$TMP/nastypes"; }
	done
	;;
solocore)
	# The product itself: `solocore run -c FILE` (not the e2e_core stand-in) serves 10 UEs
	# with profile B SUCIs; its log shows each registration complete.
	CORE_LOG=info mk_config "$TMP/run.yaml" "$AMF" usrsctp
	# `solocore run` starts the AMF (core.c): no N2 listener is a failure, not a skip.
	start_solocore "$TMP/run.yaml" "$TMP/solocore.log" ||
		{ fail "solocore run did not start its N2 listener: $SOLOCORE_WHY"; show_logs; exit 1; }
	run_ransim solocore $R -c "$TMP/run.yaml" --addr $AMF --sims "$TMP/sims.toml" --ues 10 --concurrency 5 --suci B
	expect_all_ok solocore 10
	n=$(grep -c "registration complete" "$TMP/solocore.log")
	[ "$n" = 10 ] || fail "solocore logged $n completed registrations, expected 10"
	;;
*)
	echo "unknown case $CASE"; exit 2
	;;
esac
stop_core
if [ $FAILS != 0 ]; then
	show_logs
	exit 1
fi
echo "PASS: $CASE"
grep -E '^(ues_ok|ues_registered|ues_failed|failure|proc |ngap_(tx|rx) )' "$TMP"/*.out | sed 's|.*/||'
exit 0
