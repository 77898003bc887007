#!/bin/bash
# SPDX-License-Identifier: AGPL-3.0-or-later
# Joining the cluster with one-time tokens (issue 31 point 1, membership side), with real
# `solocore run` nodes (real dqlite over the cluster link's mutual TLS, real OpenSSL) on
# 127.0.0.1, own ports and dirs:
#  (a) a rogue node (a cluster: section naming the member as peer, no certificate, no token)
#      cannot join: it exits 1 saying why, and the member list is unchanged;
#  (b) a token of another cluster, an unknown secret, an expired token: refused, nothing written;
#  (c) one token used by two `solocore cluster join` at once: exactly one enrolls;
#  (d) node 2 started with a fresh token (cluster.join_token) enrolls and becomes a voter;
#      the same token again: refused (already used);
#  (e) no token and no line of the CA key in any log line of either node or of the CLI.
# Usage: e2e_cluster_join.sh SOLOCORE
set -u
SOLOCORE=${1:?solocore binary}
T=$(mktemp -d /tmp/solocore-cluster-join-XXXXXX)
PIDS=()
fails=0

cleanup() {
	for p in "${PIDS[@]}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# A TCP port nobody listens on now, below the ephemeral range.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 12000))
		(exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo "$p"; return; }
	done
}

# Node i's config: its own N2, web and cluster ports; peers = node 1 (for i > 1).
A1="127.0.0.1:$(free_port)"
write_conf() {
	local i=$1 addr=$2 token=${3:-}
	{
		echo "db: {path: $T/n$i.db}"
		echo "n2: {address: 127.0.0.1, port: $(free_port), udp_port: $(free_port)}"
		echo "web: {listen: 127.0.0.1, port: $(free_port)}"
		echo "cluster:"
		echo "  node_id: $i"
		echo "  address: \"$addr\""
		[ "$i" != 1 ] && echo "  peers: [\"$A1\"]"
		[ -n "$token" ] && echo "  join_token: \"$token\""
	} > "$T/n$i.yaml"
	chmod 600 "$T/n$i.yaml"
}

# Start node i; 0 when it logs "running" (60 s), 1 when it exits first (exit code in $T/rc$i).
start_node() {
	local i=$1
	"$SOLOCORE" run -c "$T/n$i.yaml" > "$T/run$i.log" 2>&1 &
	PIDS[$i]=$!
	for _ in $(seq 600); do
		grep -q ': running' "$T/run$i.log" 2>/dev/null && return 0
		if ! kill -0 "${PIDS[$i]}" 2>/dev/null; then
			wait "${PIDS[$i]}"; echo $? > "$T/rc$i"; PIDS[$i]=""
			return 1
		fi
		sleep 0.1
	done
	return 1
}

voters() { "$SOLOCORE" cluster status -c "$T/n1.yaml" 2>/dev/null | grep -c ' voter'; }
members() { "$SOLOCORE" cluster status -c "$T/n1.yaml" 2>/dev/null | grep -c .; }
no_tls_files() { [ ! -e "$1/tls/node.crt" ] && [ ! -e "$1/tls/node.key" ] && [ ! -e "$1/tls/ca.key" ]; }

write_conf 1 "$A1"
start_node 1 || { cat "$T/run1.log"; fail "node 1 did not start"; exit 1; }
[ "$(members)" = 1 ] && ok "node 1 leads a 1-node cluster" || fail "node 1: $(members) members"

# (a) A rogue node: the member as peer, no certificate, no token.
write_conf 3 "127.0.0.1:$(free_port)"
timeout 90 "$SOLOCORE" run -c "$T/n3.yaml" > "$T/rogue.log" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "no certificate in" "$T/rogue.log" &&
	ok "(a) rogue node without certificate or token: exit 1, says why" ||
	{ fail "(a) rogue node rc=$rc"; tail -5 "$T/rogue.log"; }
[ "$(members)" = 1 ] && ok "(a) member list unchanged" || fail "(a) the rogue changed the member list: $(members)"
rm -rf "$T/n3.db.dqlite"

# Tokens from node 1 (offline: its dir), one per case.
token() { "$SOLOCORE" cluster token -c "$T/n1.yaml" "$@" 2>> "$T/cli.err"; }
TOK=$(token) || fail "cluster token"
case "$TOK" in scj1.*) ok "cluster token: one printed" ;; *) fail "cluster token printed '$TOK'" ;; esac
"$SOLOCORE" cluster token -c "$T/n1.yaml" --ttl 8d > /dev/null 2>&1; [ $? = 2 ] || fail "--ttl 8d: not exit 2"
"$SOLOCORE" cluster token --dir "$T/n1.db.dqlite" > /dev/null 2>&1; [ $? = 2 ] || fail "--dir without --address: not exit 2"

# (b) Another cluster's token naming node 1's address: the CA does not match, nothing sent.
"$SOLOCORE" cluster init --dir "$T/other" > /dev/null || fail "cluster init other"
OTHER=$("$SOLOCORE" cluster token --dir "$T/other" --address "$A1" 2>> "$T/cli.err")
"$SOLOCORE" cluster join --dir "$T/j-other" --token "$OTHER" > /dev/null 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "does not match the token's fingerprint" "$T/err" && no_tls_files "$T/j-other" &&
	ok "(b) another cluster's token: refused before sending it, nothing written" ||
	{ fail "(b) other CA rc=$rc"; cat "$T/err"; }
# An unknown secret: one character of a real token changed.
BAD=$(token); c=${BAD:20:1}; [ "$c" = A ] && r=B || r=A
BAD="${BAD:0:20}$r${BAD:21}"
echo "$BAD" | "$SOLOCORE" cluster join --dir "$T/j-bad" --token - > /dev/null 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "refused: unknown token" "$T/err" && no_tls_files "$T/j-bad" &&
	ok "(b) unknown token: refused by the member, nothing written" || { fail "(b) unknown rc=$rc"; cat "$T/err"; }
# Expired: the store's expiry of that token put in the past (no waiting on the clock).
EXP=$(token)
id=$(grep -o 'join token [0-9a-f]*' "$T/cli.err" | tail -1 | awk '{print $3}')
sed -i "s/^\($id[0-9a-f]*\) [0-9]* /\1 $(( $(date +%s) - 10 )) /" "$T/n1.db.dqlite/tls/join_tokens"
"$SOLOCORE" cluster join --dir "$T/j-exp" --token "$EXP" > /dev/null 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "refused: token expired" "$T/err" && no_tls_files "$T/j-exp" &&
	ok "(b) expired token: refused, nothing written" || { fail "(b) expired rc=$rc"; cat "$T/err"; }

# (c) One token, two joiners at once.
RACE=$(token)
"$SOLOCORE" cluster join --dir "$T/race1" --token "$RACE" > "$T/race1.out" 2>&1 & r1=$!
"$SOLOCORE" cluster join --dir "$T/race2" --token "$RACE" > "$T/race2.out" 2>&1 & r2=$!
wait $r1; rc1=$?; wait $r2; rc2=$?
if [ $((rc1 + rc2)) = 1 ] && { [ "$rc1" = 0 ] && no_tls_files "$T/race2" || no_tls_files "$T/race1"; }; then
	ok "(c) one token used twice at once: one enrollment (exit $rc1 / $rc2)"
else
	fail "(c) race: exit $rc1 / $rc2"; cat "$T/race1.out" "$T/race2.out"
fi
grep -q "already used" "$T/race1.out" "$T/race2.out" || fail "(c) the loser was not told 'already used'"

# (d) Node 2 with a fresh token in its config: enrolls, joins, a voter.
A2="127.0.0.1:$(free_port)"
write_conf 2 "$A2" "$TOK"
if start_node 2; then
	[ -s "$T/n2.db.dqlite/tls/node.crt" ] && [ "$(stat -c %a "$T/n2.db.dqlite/tls/ca.key")" = 600 ] &&
		ok "(d) node 2 enrolled (node.crt, ca.key 0600)" || fail "(d) node 2's tls files"
	for _ in $(seq 100); do [ "$(voters)" = 2 ] && break; sleep 0.1; done
	[ "$(voters)" = 2 ] && ok "(d) node 2 is a voter" || { fail "(d) voters: $(voters)"; "$SOLOCORE" cluster status -c "$T/n1.yaml"; }
	grep -q "audit cluster: enrollment accepted: node 2 at $A2" "$T/run1.log" &&
		ok "(d) node 1's log audits the enrollment" || fail "(d) no enrollment audit line on node 1"
	grep -q "audit cluster: enrolled: node 2 at $A2" "$T/run2.log" &&
		grep -q "audit cluster: node added: node 2 at $A2 is a voter" "$T/run2.log" &&
		grep -q "audit cluster: joined: node 2 at $A2 through $A1" "$T/run2.log" &&
		ok "(d) node 2's log audits enrollment, add and join" || fail "(d) node 2's audit lines"
else
	fail "(d) node 2 did not start"; tail -20 "$T/run2.log"
fi
# The same token again, for another node: already used, nothing written.
"$SOLOCORE" cluster join --dir "$T/j-reuse" --token "$TOK" > /dev/null 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "refused: token already used" "$T/err" && no_tls_files "$T/j-reuse" &&
	ok "(d) a used token again: refused" || { fail "(d) reuse rc=$rc"; cat "$T/err"; }
[ "$(members)" = 2 ] || fail "member list: $(members) members, 2 expected"
# A `solocore run` whose token is spent: exit 1 before its node starts, nothing written, audited.
write_conf 3 "127.0.0.1:$(free_port)" "$TOK"
timeout 60 "$SOLOCORE" run -c "$T/n3.yaml" > "$T/run3.log" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "audit cluster: enrollment failed: node 3 .*refused: token already used" "$T/run3.log" &&
	no_tls_files "$T/n3.db.dqlite" && ok "(b) solocore run with a spent token: exit 1, nothing written" ||
	{ fail "(b) run with a spent token rc=$rc"; tail -5 "$T/run3.log"; }
# Node 2 restarted with the (spent) token still in its config: not used, starts on its data.
kill -TERM "${PIDS[2]}" 2>/dev/null; wait "${PIDS[2]}" 2>/dev/null; PIDS[2]=""
mv "$T/run2.log" "$T/run2a.log"
start_node 2 && grep -q "cluster.join_token not used" "$T/run2.log" &&
	ok "node 2 restarted: its certificate, the token not used again" || { fail "node 2 restart"; tail -5 "$T/run2.log"; }
# CLI usage errors: exit 2; no config: exit 1.
"$SOLOCORE" cluster join --dir "$T/j-x" > /dev/null 2>&1; [ $? = 2 ] || fail "join without a token: not exit 2"
"$SOLOCORE" cluster token -c "$T/n1.yaml" --ttl 1x > /dev/null 2>&1; [ $? = 2 ] || fail "--ttl 1x: not exit 2"
"$SOLOCORE" cluster token -c "$T/n1.yaml" --ttl 0 > /dev/null 2>&1; [ $? = 2 ] || fail "--ttl 0: not exit 2"
"$SOLOCORE" cluster token > /dev/null 2>&1; [ $? = 2 ] || fail "token without -c or --dir: not exit 2"
"$SOLOCORE" cluster join -c "$T/none.yaml" --token x > /dev/null 2>&1; [ $? = 1 ] || fail "join -c missing file: not exit 1"
"$SOLOCORE" cluster token --dir "$T/j-x" --address "$A1" > /dev/null 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "no cluster CA" "$T/err" || fail "token from a dir without CA rc=$rc"
"$SOLOCORE" cluster join --dir "$T/j-x" --token scj1.short > /dev/null 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "not one" "$T/err" || fail "join with a malformed token rc=$rc"

# Removed through the CLI: audited too.
"$SOLOCORE" cluster remove 2 -c "$T/n1.yaml" > /dev/null 2> "$T/remove.err"; rc=$?
[ "$rc" = 0 ] && grep -q "audit cluster: node removed: node 2" "$T/remove.err" &&
	ok "cluster remove 2: audited" || { fail "cluster remove 2 rc=$rc"; cat "$T/remove.err"; }
kill -TERM "${PIDS[2]}" 2>/dev/null; wait "${PIDS[2]}" 2>/dev/null; PIDS[2]=""

# (e) No token and no CA key line in any log of the nodes or the CLI.
leak=0
for t in "$TOK" "$BAD" "$EXP" "$RACE" "$OTHER"; do
	grep -qF -- "${t:5:40}" "$T"/run*.log "$T/rogue.log" "$T/err" "$T/cli.err" "$T/remove.err" "$T"/race*.out && leak=1
done
while read -r line; do
	case "$line" in -----*|"") continue ;; esac
	grep -qF -- "$line" "$T"/run*.log "$T/rogue.log" "$T/cli.err" "$T/remove.err" "$T"/race*.out && leak=1
done < "$T/n1.db.dqlite/tls/ca.key"
grep -q "PRIVATE KEY" "$T"/run*.log && leak=1
[ "$leak" = 0 ] && ok "(e) no token and no CA key in any log line" || fail "(e) a secret in a log"

echo "e2e_cluster_join: $fails failure(s)"
[ "$fails" = 0 ]
