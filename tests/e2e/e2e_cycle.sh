#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# The 27-message cycle end to end (issue 6 item 5): the core in one network namespace,
# ransim in another, usrsctp raw IP over a veth pair. The core is e2e_core (db, udm, ausf,
# amf with the smf attached, no user plane; upf.n3_address is what the gNBs are told) and,
# in the 'solocore' case, `solocore run` itself. Each case asserts the ransim report (every
# NAS MAC verified, NGAP PDUs counted each way) and the core's counters (SIGUSR1).
#
#   e2e_cycle.sh SOLOCORE E2E_CORE RANSIM CASE [SOLOCORE_LOAD]
#
# Cases: one two_hundred dnns rejects gnbloss unknown_svc pcap radiocap solocore load
# Needs root and `ip netns`: exits 77 (skip) otherwise.
set -u
SOLOCORE=$1 CORE=$2 RANSIM=$3 CASE=$4 LOAD=${5:-}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"

e2e_netns e2c$$ 10.38.43 e2e-cycle
R="--addr $AMF --backend usrsctp --encap raw --cuc --timeout 120"

# Two DNNs (ims: a /30, two usable addresses: the exhausted pool), two slices.
mk_cycle_config() { # FILE [log level]
	mk_config "$1" "$AMF" usrsctp
	sed -i "s/^  level: .*/  level: ${2:-warn}/" "$1"
	cat >>"$1" <<EOF2
slices:
  - { sst: 1, sd: "010203" }
  - { sst: 2 }
dnns:
  - { name: "internet", pool: "10.45.0.0/16" }
  - { name: "ims", pool: "10.46.0.0/30" }
upf:
  n3_address: "10.38.43.1"
EOF2
}

gen_sims "$TMP/sims.toml" 200 001010000000001 || exit 1
# One SIM subscribed to slice 1 and DNN internet only.
gen_sims "$TMP/narrow.toml" 1 001010000009001 || exit 1
printf 'slices = [ "1:010203" ]\ndnns = [ "internet" ]\n' >>"$TMP/narrow.toml"
import_sims "$TMP/sims.toml" || exit 1
import_sims "$TMP/narrow.toml" || exit 1
mk_cycle_config "$TMP/core.yaml"

# Every UE did the whole cycle, every check passed.
expect_cycle_ok() { # NAME COUNT
	expect "$1" ues_ok "$2"; expect "$1" ues_failed 0; expect "$1" cycles "$2"
	expect "$1" pdu_established "$2"; expect "$1" service_accepts "$2"; expect "$1" pdu_released "$2"
	expect "$1" dl_mac_fail 0; expect "$1" stream_violations 0; expect_rc "$1" 0
}

# The 17 + 10 messages of issue 6, by name, times N (plus one NG Setup each way).
expect_cycle_counts() { # NAME N
	n=$2
	expect "$1" ngap_tx $((17 * n + 1)); expect "$1" ngap_rx $((10 * n + 1))
	expect "$1" "ngap_tx InitialUEMessage" $((2 * n))
	expect "$1" "ngap_tx UplinkNASTransport" $((8 * n))
	expect "$1" "ngap_tx InitialContextSetupResponse" $((2 * n))
	expect "$1" "ngap_tx PDUSessionResourceSetupResponse" "$n"
	expect "$1" "ngap_tx UEContextReleaseRequest" "$n"
	expect "$1" "ngap_tx UEContextReleaseComplete" $((2 * n))
	expect "$1" "ngap_tx PDUSessionResourceReleaseResponse" "$n"
	expect "$1" "ngap_rx DownlinkNASTransport" $((4 * n))
	expect "$1" "ngap_rx InitialContextSetupRequest" $((2 * n))
	expect "$1" "ngap_rx PDUSessionResourceSetupRequest" "$n"
	expect "$1" "ngap_rx UEContextReleaseCommand" $((2 * n))
	expect "$1" "ngap_rx PDUSessionResourceReleaseCommand" "$n"
}

case $CASE in
one)
	start_core "$TMP/core.yaml" || exit 1
	run_ransim one $R --sims "$TMP/sims.toml" --ues 1 --cycle
	expect_cycle_ok one 1
	expect_cycle_counts one 1
	core_stats
	expect_stat reg_accepted 1; expect_stat service_req 1; expect_stat dereg_ue 1; expect_stat registered 0
	expect_stat smf_est_accepted 1; expect_stat smf_rel_ue 1; expect_stat smf_up_deactivated 1
	expect_stat smf_up_reactivated 1; expect_stat smf_sessions 0; expect_stat "pool_used internet" 0
	;;
two_hundred)
	# QCore's method: 200 UEs one after another; exactly 27 x 200 NGAP PDUs.
	start_core "$TMP/core.yaml" || exit 1
	run_ransim two_hundred $R --sims "$TMP/sims.toml" --ues 200 --concurrency 1 --cycle --timeout 600
	expect_cycle_ok two_hundred 200
	expect_cycle_counts two_hundred 200
	grep "^proc cycle " "$TMP/two_hundred.out"
	core_stats
	expect_stat reg_accepted 200; expect_stat service_req 200; expect_stat dereg_ue 200
	expect_stat smf_est_accepted 200; expect_stat smf_rel_ue 200; expect_stat smf_sessions 0
	expect_stat "pool_used internet" 0; expect_stat ues 0
	;;
dnns)
	# internet on slice 1 (explicit DNN and S-NSSAI), ims on slice 2, and the defaults.
	start_core "$TMP/core.yaml" || exit 1
	run_ransim internet $R --sims "$TMP/sims.toml" --ues 2 --concurrency 2 --cycle --dnn internet --pdu-snssai
	expect_cycle_ok internet 2
	run_ransim ims $R --sims "$TMP/sims.toml" --sim-offset 2 --ues 2 --concurrency 2 --cycle --dnn ims \
		--pdu-snssai --req-sst 2 --req-sd none
	expect_cycle_ok ims 2
	run_ransim dflt $R --sims "$TMP/sims.toml" --sim-offset 4 --ues 2 --concurrency 2 --cycle
	expect_cycle_ok dflt 2
	core_stats
	expect_stat smf_est_accepted 6; expect_stat smf_rel_ue 6; expect_stat smf_sessions 0
	expect_stat "pool_used internet" 0; expect_stat "pool_used ims" 0
	;;
rejects)
	start_core "$TMP/core.yaml" || exit 1
	# unknown DNN: #27; the UE then deregisters
	run_ransim nodnn $R --sims "$TMP/sims.toml" --ues 1 --session --dnn nosuchdnn
	expect nodnn "failure pdu_reject_27" 1; expect nodnn pdu_rejected 1; expect nodnn ues_failed 1
	grep -q "^proc deregistration started 1 done 1" "$TMP/nodnn.out" || fail "nodnn: no deregistration"
	# slice 2 requested by a UE subscribed to slice 1 only: not in its allowed NSSAI, so the
	# AMF returns the request (TS 24.501 5.4.5.2.5, 5GMM #90) or the SMF rejects it
	run_ransim noslice $R --sims "$TMP/narrow.toml" --ues 1 --session --pdu-snssai --req-sst 2 --req-sd none
	grep -q "^failure pdu_not_forwarded_90 1\|^failure pdu_reject_" "$TMP/noslice.out" || fail "noslice: no rejection"
	grep "^failure" "$TMP/noslice.out"
	expect noslice pdu_rejected 1; expect noslice pdu_established 0
	grep -q "^proc deregistration started 1 done 1" "$TMP/noslice.out" || fail "noslice: no deregistration"
	# the ims /30 pool: two addresses held by two UEs, the third UE is refused (#26)
	$NSR "$RANSIM" $R --sims "$TMP/sims.toml" --sim-offset 10 --ues 2 --concurrency 2 --session --dnn ims \
		--pdu-snssai --req-sst 2 --req-sd none --hold-ms 4000 --gnb-id-base 0x200 \
		>"$TMP/hold.out" 2>"$TMP/hold.log" &   # a gNB of its own beside "pool"'s (issue 31)
	B_PID=$!
	wait_stat "pool_used ims 2"
	expect_stat "pool_used ims" 2
	run_ransim pool $R --sims "$TMP/sims.toml" --sim-offset 20 --ues 1 --session --dnn ims --pdu-snssai \
		--req-sst 2 --req-sd none
	expect pool "failure pdu_reject_26" 1; expect pool pdu_rejected 1
	wait "$B_PID"; RS_RC=$?; B_PID=
	expect hold ues_ok 2; expect hold pdu_established 2; expect_rc hold 0
	core_stats
	expect_stat smf_est_rejected 2; expect_stat smf_sessions 0; expect_stat "pool_used ims" 0
	expect_stat registered 0
	;;
gnbloss)
	# 10 UEs with a session each, connected; then their gNB's association is aborted (the
	# gNB is lost). TS 23.502 4.2.6 / TS 23.527: an AN release -- the UEs go CM-IDLE, their
	# sessions and addresses stay (user plane deactivated) for the next service request;
	# the AMF logs the loss.
	CORE_LOG=info mk_cycle_config "$TMP/info.yaml" info
	start_core "$TMP/info.yaml" || exit 1
	run_ransim lost $R --sims "$TMP/sims.toml" --ues 10 --concurrency 10 --session --dereg none --abort
	expect lost ues_ok 10; expect lost pdu_established 10; expect_rc lost 0
	wait_stat "gnbs 0"
	expect_stat smf_est_accepted 10; expect_stat smf_sessions 10; expect_stat "pool_used internet" 10
	expect_stat gnbs 0
	grep -q "down gnb=.* ues=10" "$TMP/core.log" || fail "AMF did not log the association down with 10 UEs"
	grep "down gnb=" "$TMP/core.log" | head -n 1
	grep -q "N2 association lost: AN release, sessions kept" "$TMP/core.log" ||
		fail "AMF did not treat the association loss as an AN release"
	expect_stat registered 10
	;;
unknown_svc)
	start_core "$TMP/core.yaml" || exit 1
	run_ransim svc $R --sims "$TMP/sims.toml" --ues 1 --unknown-service
	expect svc "failure svc_reject_9" 1; expect svc service_rejects 1
	expect svc "ngap_rx UEContextReleaseCommand" 1
	core_stats
	expect_stat service_rej 1; expect_stat ues 0
	;;
radiocap)
	start_core "$TMP/core.yaml" || exit 1
	run_ransim rcap $R --sims "$TMP/sims.toml" --ues 3 --concurrency 3 --cycle --radio-cap
	expect_cycle_ok rcap 3
	expect rcap "ngap_tx UERadioCapabilityInfoIndication" 6
	expect rcap ngap_tx $((19 * 3 + 1)); expect rcap ngap_rx $((10 * 3 + 1))
	;;
pcap)
	if ! command -v tshark >/dev/null 2>&1; then
		echo "SKIP: tshark not installed"; exit 77
	fi
	start_core "$TMP/core.yaml" || exit 1
	$NSR dumpcap -q -i "$VETH_R" -f sctp -w "$TMP/wire.pcapng" >"$TMP/dumpcap.log" 2>&1 &
	WIRE=$!
	i=0
	while ! grep -q "Capturing on" "$TMP/dumpcap.log" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	run_ransim pcap $R --sims "$TMP/sims.toml" --ues 3 --concurrency 3 --cycle --pcap "$TMP/n2.pcap"
	expect_cycle_ok pcap 3
	sleep 0.3
	kill -INT "$WIRE" 2>/dev/null; wait "$WIRE" 2>/dev/null
	want=$((27 * 3 + 2))
	frames=$(tshark -r "$TMP/n2.pcap" -Y ngap 2>"$TMP/tshark.log" | wc -l)
	bad=$(tshark -r "$TMP/n2.pcap" -Y '_ws.malformed || _ws.expert.severity >= error' 2>>"$TMP/tshark.log" | wc -l)
	[ "$frames" = "$want" ] || fail "pcap: $frames NGAP frames decoded, $want exchanged"
	[ "$bad" = 0 ] || { fail "pcap: $bad malformed/error frames"; tshark -r "$TMP/n2.pcap" -Y '_ws.malformed || _ws.expert.severity >= error' -V | head -n 60; }
	wire=$(tshark -r "$TMP/wire.pcapng" -T fields -e ngap.procedureCode 2>>"$TMP/tshark.log" | tr ',' '\n' | grep -c .)
	wbad=$(tshark -r "$TMP/wire.pcapng" -Y '_ws.malformed || _ws.expert.severity >= error' 2>>"$TMP/tshark.log" | wc -l)
	[ "$wire" = "$want" ] || fail "wire capture: $wire NGAP PDUs decoded, $want exchanged"
	[ "$wbad" = 0 ] || fail "wire capture: $wbad malformed/error frames"
	# every PDU session procedure visible to the dissector
	tshark -r "$TMP/n2.pcap" -T fields -e ngap.procedureCode 2>>"$TMP/tshark.log" | tr ',' '\n' | grep . |
		sort -n | uniq -c >"$TMP/procs"
	# TS 38.413 9.4: PDUSessionResourceSetup 29, PDUSessionResourceRelease 28, InitialContextSetup
	# 14, UEContextRelease 41, UEContextReleaseRequest 42, InitialUEMessage 15, NGSetup 21
	for p in "6 29" "6 28" "12 14" "12 41" "3 42" "6 15" "2 21"; do
		grep -qx " *$p" "$TMP/procs" || { fail "pcap: procedure counts (count code): wanted '$p'"; cat "$TMP/procs"; }
	done
	# TS 24.501 4.4.6, 8.2.16: each SERVICE REQUEST (0x4c) integrity protected (security
	# header type 1), only the cleartext IEs outside, the rest in the NAS message container
	tshark -r "$TMP/n2.pcap" -Y 'nas_5gs.mm.message_type == 0x4c' -V >"$TMP/svc.txt" 2>>"$TMP/tshark.log"
	[ -n "${E2E_DUMP_SVC:-}" ] && cat "$TMP/svc.txt"
	nsvc=$(grep -c 'Message type: Service request' "$TMP/svc.txt")
	[ "$nsvc" = 3 ] || fail "pcap: $nsvc SERVICE REQUESTs decoded, 3 sent"
	ncont=$(grep -c 'NAS message container$' "$TMP/svc.txt")
	[ "$ncont" = 3 ] || fail "pcap: $ncont SERVICE REQUESTs with a NAS message container, want 3"
	nsht=$(grep -c 'Security header type: Integrity protected (1)' "$TMP/svc.txt")
	[ "$nsht" = 3 ] || fail "pcap: $nsht SERVICE REQUESTs with security header type 1, want 3"
	! grep -q '^ *Uplink data status$' "$TMP/svc.txt" || fail "pcap: uplink data status of a SERVICE REQUEST in the clear"
	echo "pcap: $want NGAP PDUs, $frames decoded from ransim's pcap, $wire from the wire, none malformed"
	;;
load)
	# solocore-load (issue 8): each mode, zero errors and the exact NGAP count
	start_core "$TMP/core.yaml" || exit 1
	L="--addr $AMF --backend usrsctp --encap raw --timeout 120"
	$NSR "$LOAD" cycle $L --sims "$TMP/sims.toml" --ues 20 --concurrency 4 --passes 3 >"$TMP/lcycle.out" 2>"$TMP/lcycle.log"
	RS_RC=$?; expect_rc lcycle 0
	expect lcycle cycles 60; expect lcycle ue_runs_failed 0; expect lcycle ngap_pdus $((27 * 60 + 2))
	grep -q "^latency cycle n 60 " "$TMP/lcycle.out" || fail "load cycle: no cycle latency line"
	grep "^ngap_pdus_per_s\|^ms_per_completed\|^latency cycle" "$TMP/lcycle.out"
	$NSR "$LOAD" register $L --sims "$TMP/sims.toml" --sim-offset 20 --ues 10 --concurrency 10 --json \
		--duration 1 >"$TMP/lreg.out" 2>"$TMP/lreg.log"
	RS_RC=$?; expect_rc lreg 0
	grep -q '"completed":10,' "$TMP/lreg.out" || fail "load register: $(cat "$TMP/lreg.out")"
	grep -q '"ue_runs_failed":0,' "$TMP/lreg.out" || fail "load register: failures"
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["latency_us"]["registration"]["n"] == 10' \
			"$TMP/lreg.out" || fail "load register: --json output is not the expected JSON"
	fi
	# registered and held: 10 registrations = 10 x 10 PDUs (+ NG Setup)
	grep -q '"ngap_pdus":102,' "$TMP/lreg.out" || fail "load register: PDU count $(cat "$TMP/lreg.out")"
	$NSR "$LOAD" sessions $L --sims "$TMP/sims.toml" --sim-offset 40 --ues 10 --concurrency 10 \
		>"$TMP/lsess.out" 2>"$TMP/lsess.log"
	RS_RC=$?; expect_rc lsess 0
	expect lsess completed 10; expect lsess ngap_pdus $((13 * 10 + 2)); expect lsess ue_runs_failed 0
	# on a terminal: the progress line (stderr), rewritten in place
	if command -v script >/dev/null 2>&1; then
		script -qfec "$NSR $LOAD register $L --sims $TMP/sims.toml --sim-offset 60 --ues 5 --duration 2" \
			"$TMP/tty.log" >/dev/null 2>&1 || fail "load on a terminal: exit status $?"
		grep -aq "msg/s .* UE runs done" "$TMP/tty.log" || fail "load on a terminal: no progress line"
	fi
	core_stats
	expect_stat smf_est_accepted 70
	;;
solocore)
	# The product: `solocore run`.
	mk_cycle_config "$TMP/run.yaml" info
	start_solocore "$TMP/run.yaml" "$TMP/solocore.log" || { fail "solocore run $SOLOCORE_WHY"; show_logs; exit 1; }
	run_ransim solo $R --sims "$TMP/sims.toml" --ues 200 --concurrency 1 --cycle
	expect_cycle_ok solo 200
	expect_cycle_counts solo 200
	n=$(grep -c "established dnn=internet" "$TMP/solocore.log")
	[ "$n" = 200 ] || fail "solocore logged $n established sessions, expected 200"
	grep "^proc cycle " "$TMP/solo.out"
	;;
*)
	echo "unknown case $CASE"; exit 2
	;;
esac

[ $FAILS = 0 ] || { show_logs; exit 1; }
echo "ok: $CASE"
exit 0
