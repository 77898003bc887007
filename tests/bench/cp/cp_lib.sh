# SPDX-License-Identifier: AGPL-3.0-or-later
# Shared by cp-rate and cp-scale (sourced): temp dir, transport (usrsctp raw IP between two
# namespaces when root, else UDP encapsulation on loopback), pinning, config, core start/stop
# and /proc readings. Needs SOLOCORE, E2E_CORE (may be empty), NAME and MAX (UE slots).
TMP=$(mktemp -d /tmp/$NAME.XXXXXX)
CORE_PID=
NSC= NSR=
tag=cpr$$
cleanup() {
	[ -n "$CORE_PID" ] && kill -TERM "$CORE_PID" 2>/dev/null && wait "$CORE_PID" 2>/dev/null
	if [ -n "$NSC" ]; then ip netns del "$tag-c" 2>/dev/null; ip netns del "$tag-r" 2>/dev/null; fi
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

command -v taskset >/dev/null 2>&1 || { echo "SKIP: taskset not found"; exit 77; }
if [ "${PIN:-1}" = 0 ]; then PIN0= PIN1= PINNING="not pinned"
else PIN0="taskset -c 0" PIN1="taskset -c 1" PINNING="core on CPU 0, solocore-load on CPU 1"; fi
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 CPUs"; exit 77; }

# transport
if [ "$(id -u)" = 0 ] && ip netns add "$tag-c" 2>/dev/null; then
	ip netns add "$tag-r"
	ip link add "${tag}a" type veth peer name "${tag}b"
	ip link set "${tag}a" netns "$tag-c"; ip link set "${tag}b" netns "$tag-r"
	ip -n "$tag-c" addr add 10.38.44.1/24 dev "${tag}a"; ip -n "$tag-r" addr add 10.38.44.2/24 dev "${tag}b"
	for ns in "$tag-c" "$tag-r"; do ip -n "$ns" link set lo up; done
	ip -n "$tag-c" link set "${tag}a" up; ip -n "$tag-r" link set "${tag}b" up
	NSC="ip netns exec $tag-c" NSR="ip netns exec $tag-r"
	AMF=10.38.44.1 ENCAP=raw TRANSPORT="usrsctp raw IP (two namespaces, veth)"
	LOPT="--addr $AMF --backend usrsctp --encap raw"
else
	AMF=127.0.0.1 ENCAP=udp TRANSPORT="usrsctp UDP encapsulation (loopback, not root)"
	LOPT="--addr $AMF --backend usrsctp --encap udp --udp-peer-port 9899 --udp-port 9898"
fi

WEBPORT=$((20000 + $$ % 20000))
mk_config() { # FILE INTEGRITY CIPHERING
	cat >"$1" <<EOF2
log: { level: warn, modules: [{ name: main, level: info }] }
web: { listen: "127.0.0.1", port: $WEBPORT }
plmn: { mcc: "001", mnc: "01" }
amf:
  security: { integrity: [$2], ciphering: [$3] }
n2: { address: "$AMF", sctp: usrsctp, usrsctp_encaps: $ENCAP, udp_port: 9899, busy_poll_us: ${BUSY_POLL_US:-0} }
db: { path: "$TMP/core.db" }
slices:
  - { sst: 1, sd: "010203" }
dnns:
  - { name: "internet", pool: "10.44.0.0/14" }
upf: { n3_address: "10.38.44.1", max_sessions: $MAX }
limits: { max_ues: $MAX, max_gnbs: 16 }
EOF2
}

start_core() { # CONFIG KIND
	rm -f "$TMP/ready"
	: >"$TMP/core.log"
	if [ "$2" = solocore ]; then
		$NSC $PIN0 ${CORE_WRAP:-} "$SOLOCORE" run -c "$1" >"$TMP/core.log" 2>&1 &
		CORE_PID=$!
		i=0
		while ! grep -q " running" "$TMP/core.log" && [ $i -lt "${START_TRIES:-100}" ]; do
			kill -0 "$CORE_PID" 2>/dev/null || break; sleep 0.1; i=$((i + 1))
		done
		grep -q " running" "$TMP/core.log" || { echo "solocore run did not start:"; cat "$TMP/core.log"; return 1; }
	else
		$NSC $PIN0 "$E2E_CORE" -c "$1" --ready "$TMP/ready" >"$TMP/core.log" 2>&1 &
		CORE_PID=$!
		i=0
		while [ ! -f "$TMP/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		[ -f "$TMP/ready" ] || { echo "e2e_core did not start:"; cat "$TMP/core.log"; return 1; }
	fi
}
stop_core() {
	kill -TERM "$CORE_PID" 2>/dev/null; wait "$CORE_PID" 2>/dev/null; CORE_PID=
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$CORE_PID/stat"; }
cpu_fields() { awk '{ print $14, $15 }' "/proc/$CORE_PID/stat"; } # utime stime
hwm_kb() { awk '/^VmHWM/ { print $2 }' "/proc/$CORE_PID/status"; }
jget() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" "$2"; }

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$CORE_PID/status"; }
