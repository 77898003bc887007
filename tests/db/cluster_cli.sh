#!/bin/bash
# SPDX-License-Identifier: AGPL-3.0-or-later
# `solocore cluster status|add|remove` against 3 real dqlite nodes (each a
# `test_cluster --node` process on 127.0.0.1, own port and dir; configured by
# the same YAML files the CLI reads), then `solocore run` with a cluster:
# section starting its node. Usage: cluster_cli.sh SOLOCORE TEST_CLUSTER
set -u
SOLOCORE=${1:?solocore binary}
NODE=${2:?test_cluster binary}
T=$(mktemp -d /tmp/solocore-cluster-cli-XXXXXX)
PIDS=()
fails=0

cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# A TCP port nobody listens on now, below the ephemeral range (32768..60999 by default), so
# no outgoing connection of another test holds it when the node binds it.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 12000))
		(exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo "$p"; return; }
	done
}

P=( "" "$(free_port)" "$(free_port)" "$(free_port)" )
A=( "" "127.0.0.1:${P[1]}" "127.0.0.1:${P[2]}" "127.0.0.1:${P[3]}" )
for i in 1 2 3; do
	peers=()
	for j in 1 2 3; do [ "$j" = "$i" ] || peers+=("\"${A[$j]}\""); done
	cat > "$T/n$i.yaml" <<EOF
db:
  path: $T/n$i.db
cluster:
  node_id: $i
  address: "${A[$i]}"
  peers: [$(IFS=,; echo "${peers[*]}")]
EOF
	"$SOLOCORE" config check -c "$T/n$i.yaml" >/dev/null || fail "config check n$i.yaml"
done
# The default dir follows db.path.
"$SOLOCORE" config print -c "$T/n2.yaml" | grep -q "dir: \"\?$T/n2.db.dqlite" && ok "cluster.dir defaults to db.path.dqlite" ||
	fail "cluster.dir default not db.path + .dqlite"

# Issue 31: the cluster link is mutual TLS. One CA (node 1's dir), a certificate per node;
# --cluster from the CLI uses node 1's (--cluster-dir).
"$SOLOCORE" cluster init --dir "$T/n1.db.dqlite" --name n1 > /dev/null || fail "cluster init"
for i in 2 3; do
	"$SOLOCORE" cluster add-node --dir "$T/n1.db.dqlite" --out "$T/n$i.db.dqlite" --name "n$i" > /dev/null ||
		fail "cluster add-node n$i"
done
CD=(--cluster-dir "$T/n1.db.dqlite")

# Start node i from its config's values; wait for "ready" (30 s).
start_node() {
	local i=$1 peers=()
	for j in 1 2 3; do [ "$j" = "$i" ] || peers+=("${A[$j]}"); done
	"$NODE" --node "$i" "${A[$i]}" "$T/n$i.db.dqlite" "${peers[@]}" > "$T/node$i.out" 2> "$T/node$i.err" &
	PIDS[$i]=$!
	for _ in $(seq 300); do
		grep -q ready "$T/node$i.out" 2>/dev/null && return 0
		kill -0 "${PIDS[$i]}" 2>/dev/null || break
		sleep 0.1
	done
	cat "$T/node$i.err"
	return 1
}
for i in 1 2 3; do start_node "$i" || fail "node $i did not start"; done

out=$("$SOLOCORE" cluster status -c "$T/n2.yaml"); rc=$?
echo "$out"
lines=$(echo "$out" | grep -c .)
[ "$rc" = 0 ] && [ "$lines" = 3 ] && ok "status: 3 lines" || fail "status rc=$rc lines=$lines"
[ "$(echo "$out" | grep -c ' voter')" = 3 ] || fail "status: not 3 voters"
[ "$(echo "$out" | grep -c ' leader$')" = 1 ] || fail "status: not exactly one leader"
for i in 1 2 3; do echo "$out" | grep -q "^$i ${A[$i]} voter" || fail "status: no line for node $i"; done

# Remove node 3 (still running), add it back: a voter again.
"$SOLOCORE" cluster remove 3 -c "$T/n1.yaml" || fail "remove 3"
[ "$("$SOLOCORE" cluster status -c "$T/n1.yaml" | grep -c .)" = 2 ] && ok "after remove: 2 lines" || fail "after remove: not 2 lines"
"$SOLOCORE" cluster remove 3 -c "$T/n1.yaml" 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "not a member" "$T/err" && ok "remove of a non-member: exit 1" || fail "remove non-member rc=$rc"
"$SOLOCORE" cluster add 3 "${A[3]}" -c "$T/n1.yaml" || fail "add 3 back"
out=$("$SOLOCORE" cluster status -c "$T/n3.yaml")
echo "$out"
[ "$(echo "$out" | grep -c ' voter')" = 3 ] && ok "node 3 added back as a voter" || fail "after add: not 3 voters"
"$SOLOCORE" cluster add 4 "${A[3]}" -c "$T/n1.yaml" 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "belongs to another member" "$T/err" && ok "add at a member's address: exit 1" || fail "add dup addr rc=$rc"

"$SOLOCORE" cluster add 5 "127.0.0.1:$(free_port)" -c "$T/n1.yaml" 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "does not answer" "$T/err" && ok "add of a node not running: exit 1" || fail "add dead rc=$rc"
[ "$("$SOLOCORE" cluster status -c "$T/n1.yaml" | grep -c .)" = 3 ] || fail "add of a dead node changed the cluster"

# sims import and users on the replicated database (issue 20 item 2): through a follower's
# config, through --cluster, all or nothing, the rows seen through other nodes.
"$SOLOCORE" sims generate --count 5 > "$T/sims.toml" || fail "sims generate"
"$SOLOCORE" sims import "$T/sims.toml" -c "$T/n2.yaml" 2> "$T/err" && grep -q "imported 5 subscribers" "$T/err" &&
	ok "sims import -c (a node's config): 5 into the cluster" || { fail "sims import -c"; cat "$T/err"; }
"$SOLOCORE" sims import "$T/sims.toml" --cluster "${A[3]}" "${CD[@]}" 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "sims.toml:[0-9]*: .*already in the database" "$T/err" &&
	ok "re-import through node 3: the rows are there (file:line, nothing imported)" ||
	{ fail "re-import through node 3 rc=$rc"; cat "$T/err"; }
pw=$(echo "a-long-password-1" | "$SOLOCORE" users create ops --role operator --password-stdin -c "$T/n3.yaml" 2> "$T/err"); rc=$?
[ "$rc" = 0 ] || { fail "users create -c n3 rc=$rc"; cat "$T/err"; }
out=$("$SOLOCORE" users list --cluster "127.0.0.1:1,${A[1]}" "${CD[@]}" 2> "$T/err"); rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q "^ops  *operator" &&
	ok "users list --cluster (first address dead): the user made through node 3" ||
	{ fail "users list --cluster rc=$rc '$out'"; cat "$T/err"; }
echo "a-long-password-2" | "$SOLOCORE" users passwd ops --password-stdin -c "$T/n1.yaml" 2> "$T/err" || fail "users passwd -c n1"
"$SOLOCORE" users delete ops --cluster "${A[2]}" "${CD[@]}" 2> "$T/err" || fail "users delete --cluster"
[ -z "$("$SOLOCORE" users list -c "$T/n3.yaml" 2>/dev/null | grep '^ops ')" ] && ok "users passwd / delete through other nodes" ||
	fail "ops still listed after delete"
"$SOLOCORE" users list --db "$T/x.db" --cluster "${A[1]}" 2> "$T/err"; rc=$?
[ "$rc" = 2 ] && grep -q "give one of them" "$T/err" && ok "--db with --cluster: exit 2" || fail "--db with --cluster rc=$rc"
"$SOLOCORE" sims import "$T/sims.toml" --cluster 2> /dev/null; [ $? = 2 ] || fail "--cluster without a value: not exit 2"
"$SOLOCORE" sims import "$T/sims.toml" --cluster "127.0.0.1:$(free_port)" "${CD[@]}" 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "no node answered with a leader" "$T/err" && ok "--cluster to a dead address: exit 1, says why" ||
	{ fail "--cluster dead rc=$rc"; cat "$T/err"; }

# Issue 31: --cluster without a certificate: exit 1, says which option gives one.
abs=$(readlink -f "$SOLOCORE")
(cd "$T" && "$abs" users list --cluster "${A[1]}" 2> "$T/err"); rc=$?
[ "$rc" = 1 ] && grep -q "client certificate.*--cluster-dir" "$T/err" && ok "--cluster without a certificate: exit 1, names --cluster-dir" ||
	{ fail "--cluster without a certificate rc=$rc"; cat "$T/err"; }
"$SOLOCORE" users list --cluster-dir "$T/n1.db.dqlite" 2> /dev/null; [ $? = 2 ] || fail "--cluster-dir without --cluster: not exit 2"

# Usage errors: exit 2.
"$SOLOCORE" cluster bogus -c "$T/n1.yaml" 2>/dev/null; [ $? = 2 ] || fail "cluster bogus: not exit 2"
"$SOLOCORE" cluster remove x -c "$T/n1.yaml" 2>/dev/null; [ $? = 2 ] || fail "remove x: not exit 2"
"$SOLOCORE" cluster add 5 -c "$T/n1.yaml" 2>/dev/null; [ $? = 2 ] || fail "add without address: not exit 2"
"$SOLOCORE" cluster status -c 2>/dev/null; [ $? = 2 ] || fail "-c without a file: not exit 2"
"$SOLOCORE" cluster status -c "$T/nonexistent.yaml" 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "nonexistent.yaml" "$T/err" || fail "status with a missing config file rc=$rc"
"$SOLOCORE" cluster status 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "no cluster section" "$T/err" || fail "status without a cluster section rc=$rc"

# Two of three gone: the survivor answers but knows no leader once it has stepped down.
leader=$("$SOLOCORE" cluster status -c "$T/n1.yaml" | awk '/ leader$/ { print $1 }')
for i in 1 2 3; do
	[ "$i" = "$leader" ] && continue
	kill -9 "${PIDS[$i]}"; wait "${PIDS[$i]}" 2>/dev/null; PIDS[$i]=""
done
t0=$(date +%s%N)
for _ in $(seq 300); do
	"$SOLOCORE" cluster status -c "$T/n1.yaml" > /dev/null 2> "$T/err" || break
	sleep 0.1
done
echo "status without a majority (after $(( ($(date +%s%N) - t0) / 1000000 )) ms): $(cat "$T/err")"
grep -q "no leader" "$T/err" && ok "minority: status exit 1, no leader" || fail "minority: no 'no leader' message"
kill -9 "${PIDS[$leader]}"; wait "${PIDS[$leader]}" 2>/dev/null; PIDS[$leader]=""
"$SOLOCORE" cluster status -c "$T/n1.yaml" 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "no node answered" "$T/err" && ok "all down: exit 1, no node answered" || fail "all down rc=$rc"

# `solocore run` with a cluster: section starts (and stops) its node: node 1 of a new
# cluster, its own ports for N2 and the web so it runs beside anything else.
RP=$(free_port); N2=$(free_port); WEB=$(free_port); UDP=$(free_port)
cat > "$T/run.yaml" <<EOF
db:
  path: $T/run.db
n2:
  address: 127.0.0.1
  port: $N2
  udp_port: $UDP
web:
  listen: 127.0.0.1
  port: $WEB
cluster:
  node_id: 1
  address: "127.0.0.1:$RP"
EOF
"$SOLOCORE" run -c "$T/run.yaml" > "$T/run.log" 2>&1 &
RUN=$!
PIDS[9]=$RUN
for _ in $(seq 300); do
	grep -q '"running"\|: running' "$T/run.log" && break
	kill -0 "$RUN" 2>/dev/null || break
	sleep 0.1
done
if grep -q "bootstrapped a new cluster" "$T/run.log"; then
	out=$("$SOLOCORE" cluster status -c "$T/run.yaml"); rc=$?
	[ "$rc" = 0 ] && [ "$out" = "1 127.0.0.1:$RP voter leader" ] && ok "solocore run: its node leads a 1-node cluster" ||
		fail "solocore run: status rc=$rc '$out'"
else
	fail "solocore run did not start its cluster node"; cat "$T/run.log"
fi
# A second `solocore run` whose cluster address is taken (by the first): start-up fails, exit 1.
sed -e "s/port: $N2/port: $(free_port)/" -e "s/port: $WEB/port: $(free_port)/" -e "s/udp_port: $UDP/udp_port: $(free_port)/" \
	-e "s|$T/run.db|$T/run2.db|" "$T/run.yaml" > "$T/run2.yaml"
timeout 60 "$SOLOCORE" run -c "$T/run2.yaml" > "$T/run2.log" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "starting cluster failed" "$T/run2.log" && ok "solocore run: cluster address taken -> exit 1" ||
	{ fail "second run rc=$rc"; tail -5 "$T/run2.log"; }
# Issue 31: node 1 on a fresh dir made the cluster CA itself and said so; a node 2 without a
# certificate refuses to start and names the command that makes one; no key in any log.
grep -q "node 1: made a new cluster CA and its certificate in $T/run.db.dqlite/tls" "$T/run.log" &&
	ok "solocore run: node 1 on a fresh dir made its CA (logged)" || fail "no 'made a new cluster CA' line"
sed -e "s/port: $N2/port: $(free_port)/" -e "s/port: $WEB/port: $(free_port)/" -e "s/udp_port: $UDP/udp_port: $(free_port)/" \
	-e "s|$T/run.db|$T/run3.db|" -e "s/node_id: 1/node_id: 2/" -e "s/address: \"127.0.0.1:$RP\"/address: \"127.0.0.1:$(free_port)\"\n  peers: [\"127.0.0.1:$RP\"]/" \
	"$T/run.yaml" > "$T/run3.yaml"
timeout 60 "$SOLOCORE" run -c "$T/run3.yaml" > "$T/run3.log" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "node 2: no certificate in $T/run3.db.dqlite/tls.*solocore cluster add-node" "$T/run3.log" &&
	ok "solocore run: node 2 without a certificate -> exit 1, names cluster add-node" ||
	{ fail "node 2 without a certificate rc=$rc"; tail -5 "$T/run3.log"; }
! grep -q "PRIVATE KEY" "$T"/run*.log || fail "key material in a log"
kill -TERM "$RUN"; wait "$RUN"; rc=$?; PIDS[9]=""
[ "$rc" = 0 ] && ok "solocore run stopped cleanly" || { fail "solocore run exit $rc"; tail -20 "$T/run.log"; }
grep -q "stopped" "$T/run.log" || fail "no 'stopped' in the run log"

echo "cluster_cli: $fails failure(s)"
[ "$fails" = 0 ]
