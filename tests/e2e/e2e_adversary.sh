#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# The adversary suite (issue 13 item 4): a stranger who knows a subscriber's IMSI, SUCI,
# 5G-GUTI and 5G-S-TMSI, but not its K, must not disturb it in any way.
#
#   gNB ns (ransim)  --veth N2 + N3--  core ns (solocore run, XDP UPF)  --veth N6--  DN ns
#   10.38.61.2                         10.38.61.1 | 10.38.62.1                      10.38.62.2: UDP echo :7
#
# `solocore run` (usrsctp raw IP on N2, the XDP UPF in generic mode on both veths, timers.t3560
# 1 s so that T3560's five expiries fit in a test). ransim --attack ATTACK with two gNBs: UE 0,
# the victim (its real K/OPc from the imported SIM file), registers on gNB 0, sets up a PDU
# session and sends 200 G-PDU/s of UDP to the echo server through the UPF for the whole run.
# A forger (tests/ransim/adv.c; same SUPI, random K) runs the attack once on the victim's own
# association and once on the second gNB, each time on a fresh RAN-UE-NGAP-ID. ransim writes
# the phases to an events file and waits for our ack of each, so the web API is read:
#   ready       before the attack: the victim's UE context and PDU session (A)
#   attack_end  right after it (B)
#   check       after a 2 s window of traffic (C)
# Asserted, the victim-unharmed checks first:
#  - ransim: exit 0, adv_victim_ok 1 (still REGISTERED on the same N2 connection, no UE Context
#    Release Command for it during the attack, no downlink NAS failing its MAC, uplink and
#    downlink G-PDUs in the window after the attack), and the victim's protected
#    deregistration at the end accepted (its NAS security context still lines up);
#  - the web API at C: GET /api/v1/ues/imsi-...: 5GMM state REGISTERED, connected, the same
#    AMF/RAN UE NGAP IDs as at A; its PDU session 1 with the same UE IP, user plane active;
#    the session's and the UPF's (GET /api/v1/stats) uplink and downlink packets grew from B
#    to C;
#  - the forger got the answer the spec defines (adv_forger_ok 1: e.g. REGISTRATION REJECT
#    #23, AUTHENTICATION REJECT, SERVICE REJECT #9, a release), never an acceptance;
#  - the N2 wire (dumpcap on the gNB's veth, IP protocol 132) and ransim's own pcap decoded
#    by tshark through the shared runner (ransim-pcapcheck): nothing malformed. Without
#    tshark/dumpcap this part is noted and left out.
#
#   e2e_adversary.sh SOLOCORE RANSIM PCAPCHECK TSHARK ATTACK     env: PPS (200), GNBS (2)
#
# Needs root and `ip netns` (77 otherwise), python3 (echo server, API client), XDP generic
# mode on veth (77 with the UPF's reason otherwise).
set -u
SOLOCORE=$1 RANSIM=$2 PCAPCHECK=$3 TSHARK=$4 ATTACK=$5
PPS=${PPS:-200} GNBS=${GNBS:-2}
CORE=
TOKEN=e2e-adversary-token-7c1e
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/e2e_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (DN echo server, API client)"; exit 77; }

T=adv$$
e2e_netns "$T" 10.38.61 e2e-adversary
NS_D=$T-d
trap 'ip netns del "$NS_D" 2>/dev/null; [ -n "${CAP:-}" ] && kill -KILL "$CAP" 2>/dev/null; e2e_cleanup' EXIT INT TERM
e2e_dn 10.38.62

IMSI=001010000000001
gen_sims "$TMP/sims.toml" 1 "$IMSI" || exit 1
import_sims "$TMP/sims.toml" || exit 1
mk_config "$TMP/run.yaml" "$AMF" usrsctp
sed -i "s/^  level: .*/  level: info/" "$TMP/run.yaml"
yaml_upf "$TMP/run.yaml"
cat >>"$TMP/run.yaml" <<EOF
timers: { t3560: 1 }
EOF

dn_echo 10.38.62.2

start_solocore_upf "$TMP/run.yaml" "$TMP/core.log"

# api OUT: the victim's UE context, its PDU session 1 and the UPF's totals as "key value" lines.
cat >"$TMP/api.py" <<'EOF'
import http.client, json, sys
tok, supi = sys.argv[1], sys.argv[2]
def get(path):
    c = http.client.HTTPConnection("127.0.0.1", 5000, timeout=10)
    c.request("GET", path, headers={"Authorization": "Bearer " + tok})
    r = c.getresponse()
    return r.status, json.loads(r.read() or b"null")
st, ue = get("/api/v1/ues/" + supi)
print("ue_http", st)
if st == 200:
    print("ue_state", ue.get("state"))
    print("ue_connected", 1 if ue.get("connected") else 0)
    print("ue_amf_id", ue.get("amf_ue_ngap_id"))
    print("ue_ran_id", ue.get("ran_ue_ngap_id"))
    print("ue_tmsi", ue.get("tmsi"))
    s = [x for x in ue.get("sessions") or [] if x.get("psi") == 1]
    print("sess_n", len(s))
    if s:
        print("sess_ip", s[0].get("ue_ip"))
        print("sess_state", s[0].get("state"))
        print("sess_up", 1 if s[0].get("user_plane") else 0)
        print("sess_ul", s[0].get("ul_packets"))
        print("sess_dl", s[0].get("dl_packets"))
st, ss = get("/api/v1/sessions?limit=100")
print("sessions_total", len(ss.get("items") or []) if st == 200 else -1)
st, s = get("/api/v1/stats")
u = (s or {}).get("upf") or {}
print("upf_ul", u.get("ul_packets", -1))
print("upf_dl", u.get("dl_packets", -1))
EOF
api() { $NSC python3 "$TMP/api.py" "$TOKEN" "imsi-$IMSI" >"$TMP/$1.out" 2>"$TMP/api_$1.log" || fail "web API query ($1)"; }
v() { grep "^$2 " "$TMP/$1.out" | head -n 1 | cut -d' ' -f2-; }

# The N2 wire: SCTP (IP protocol 132) on the gNB's veth.
CAP=
if [ -x "$TSHARK" ] && command -v dumpcap >/dev/null 2>&1; then
	$NSR dumpcap -q -i "$VETH_R" -f "ip proto 132" -w "$TMP/n2wire.pcapng" >"$TMP/dumpcap.log" 2>&1 &
	CAP=$!
	i=0
	while ! grep -q "Capturing on" "$TMP/dumpcap.log" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
else
	echo "note: no dumpcap/tshark: the N2 wire is not decoded (the rest is asserted)"
fi

EV=$TMP/events
: >"$EV"
$NSR "$RANSIM" --attack "$ATTACK" --attack-events "$EV" -c "$TMP/run.yaml" --sims "$TMP/sims.toml" \
	--addr "$AMF" --backend usrsctp --encap raw --gnbs "$GNBS" --ues 1 --cuc --timeout 120 \
	--gnb-n3 10.38.61.2 --traffic "$PPS" --traffic-dst 10.38.62.2 --traffic-port 7 \
	--pcap "$TMP/ransim.pcap" >"$TMP/adv.out" 2>"$TMP/adv.log" &
RS_PID=$!
# Each phase line: read the API, then ack it (ransim waits up to 20 s for the ack).
for ph in ready:A attack_end:B check:C; do
	name=${ph%%:*} snapn=${ph##*:}
	while ! grep -qx "$name" "$EV" && kill -0 "$RS_PID" 2>/dev/null; do sleep 0.05; done
	grep -qx "$name" "$EV" || break
	api "$snapn"
	touch "$EV.$name.ack"
done
wait "$RS_PID"
RS_RC=$?
RS_PID=
[ -n "$CAP" ] && { sleep 0.3; kill -INT "$CAP" 2>/dev/null; wait "$CAP" 2>/dev/null; CAP=; }

echo "attack $ATTACK: $(grep '^attack_spec ' "$TMP/adv.out" | cut -d' ' -f2-)"
grep -E '^(adv_|forger_rx)' "$TMP/adv.out"
for s in A B C; do [ -f "$TMP/$s.out" ] && echo "api $s: $(tr '\n' ' ' <"$TMP/$s.out")"; done

# ---- the victim is unharmed (ransim's view) ----
expect_rc adv 0
expect adv adv_checked 1
expect adv adv_victim_ok 1
expect adv adv_victim_release_cmds 0
expect adv dl_mac_fail 0
expect adv adv_traffic 1
expect adv adv_victim_deregistered 1
# ---- the victim is unharmed (the core's view, web API) ----
if [ -f "$TMP/A.out" ] && [ -f "$TMP/B.out" ] && [ -f "$TMP/C.out" ]; then
	case "$(v C ue_state)" in REGISTERED*) ;; *) fail "victim's 5GMM state after the attack: '$(v C ue_state)' (http $(v C ue_http))";; esac
	[ "$(v C ue_connected)" = 1 ] || fail "victim not CM-CONNECTED after the attack"
	[ "$(v C ue_amf_id)" = "$(v A ue_amf_id)" ] && [ "$(v C ue_ran_id)" = "$(v A ue_ran_id)" ] ||
		fail "victim's N2 connection changed: AMF/RAN UE NGAP ID $(v A ue_amf_id)/$(v A ue_ran_id) -> $(v C ue_amf_id)/$(v C ue_ran_id)"
	[ "$(v C sess_n)" = 1 ] || fail "victim's PDU session 1 is gone"
	[ -n "$(v A sess_ip)" ] && [ "$(v C sess_ip)" = "$(v A sess_ip)" ] || fail "victim's UE IP '$(v A sess_ip)' -> '$(v C sess_ip)'"
	[ "$(v C sess_up)" = 1 ] || fail "victim's user plane not active after the attack"
	gt() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" != None ] && [ "$2" != None ] && [ "$1" -gt "$2" ]; }
	gt "$(v C sess_ul)" "$(v B sess_ul)" || fail "victim's uplink G-PDUs (UPF session counter) stopped: $(v B sess_ul) -> $(v C sess_ul)"
	gt "$(v C sess_dl)" "$(v B sess_dl)" || fail "victim's downlink G-PDUs (UPF session counter) stopped: $(v B sess_dl) -> $(v C sess_dl)"
	gt "$(v C upf_ul)" "$(v B upf_ul)" || fail "UPF uplink stopped after the attack: $(v B upf_ul) -> $(v C upf_ul)"
	gt "$(v C upf_dl)" "$(v B upf_dl)" || fail "UPF downlink stopped after the attack: $(v B upf_dl) -> $(v C upf_dl)"
	[ "$(v C sessions_total)" = 1 ] || fail "sessions in the core after the attack: $(v C sessions_total), expected the victim's 1"
else
	fail "ransim did not reach every phase (ready, attack_end, check): $(tr '\n' ' ' <"$EV")"
fi
# ---- the forger got the spec's answer, never an acceptance ----
expect adv adv_forger_ok 1
! grep -q '^adv_step .* answer accepted_' "$TMP/adv.out" || fail "the network accepted the forger"
# ---- the N2 wire ----
if [ -x "$TSHARK" ]; then
	"$PCAPCHECK" "$TSHARK" "$TMP/ransim.pcap" 10 >"$TMP/pcap_rs.out" 2>"$TMP/pcap_rs.log" ||
		{ fail "ransim's N2 pcap: $(cat "$TMP/pcap_rs.out")"; head -n 20 "$TMP/pcap_rs.log"; }
	cat "$TMP/pcap_rs.out"
	if [ -f "$TMP/n2wire.pcapng" ]; then
		"$PCAPCHECK" "$TSHARK" "$TMP/n2wire.pcapng" 10 >"$TMP/pcap_wire.out" 2>"$TMP/pcap_wire.log" ||
			{ fail "N2 wire capture: $(cat "$TMP/pcap_wire.out")"; head -n 20 "$TMP/pcap_wire.log"; }
		cat "$TMP/pcap_wire.out"
	fi
fi
stop_core
[ $FAILS = 0 ] || { show_logs; grep -E "adv |ransim" "$TMP/adv.log" | tail -n 40; exit 1; }
echo "ok: adv-$ATTACK"
exit 0
