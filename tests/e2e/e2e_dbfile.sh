#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# Issue 31 point 3 (adversary): a second process opens the database file while `solocore run`
# writes to it. The core used to drop its own POSIX locks on the file (db_file_private opened
# and closed it at every connection), so the other process, closing its connection, found
# nobody on the file, checkpointed and deleted the core's -wal and -shm: later API writes went
# to an unlinked WAL (lost on SIGKILL) or overwrote the other process's (on a clean stop).
#
#   e2e_dbfile.sh SOLOCORE      (no root: N2 on usrsctp over UDP on loopback)
#
# Twice (the core stopped by SIGKILL, then by SIGTERM), on a fresh database: rounds of
# subscriber creations through the REST API (each must answer 201), and between them the
# three kinds of second process: `solocore users list --db`, `solocore sims import --db` (new
# IMSIs each time) and the sqlite3 shell counting subscribers. Checked after every round: the
# core holds a POSIX lock on the database file's inode (/proc/locks), the -wal keeps its inode.
# After the stop: every subscriber the API acknowledged and every IMSI a CLI import reported
# is in the file (read by the sqlite3 shell, which recovers the WAL).
set -u
SOLOCORE=$1
K=465B5CE8B199B49FAA5F0A2EE238A6BC
OPC=E8ED289DEBA952E4283B54E88E6183CA
TOKEN=e2e-dbfile-token-31
ROUNDS=${ROUNDS:-4}
for c in curl sqlite3 python3; do
	command -v $c >/dev/null 2>&1 ||
		{ echo "FAIL: $c is needed (a second process on the database / the API client) and is not installed"; exit 1; }
done
[ -r /proc/locks ] || { echo "FAIL: /proc/locks is not readable: the core's lock cannot be checked"; exit 1; }
. "$(dirname "$0")/e2e_lib.sh"   # free_port, free_udp, yaml_db_web, yaml_n2_udp, start_solocore
tmp=$(mktemp -d /tmp/solocore-dbfile-XXXXXX)
CORE_PID=
cleanup() { [ -n "$CORE_PID" ] && kill -9 "$CORE_PID" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
FAILS=0
bad() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

# core_locks DB: 0 when the core holds a POSIX lock on DB's inode ("N: POSIX ADVISORY READ
# PID MAJ:MIN:INODE START END"; the pid of a POSIX lock is its process's).
core_locks() {
	awk -v pid="$CORE_PID" -v ino=":$(stat -c %i "$1")" \
		'$2 == "POSIX" && $5 == pid && substr($6, length($6) - length(ino) + 1) == ino { f = 1 }
		 END { exit !f }' /proc/locks
}

# phase SIGNAL
phase() {
	sig=$1 db=$tmp/$1.db acked=$tmp/$1.acked imported=$tmp/$1.imported
	: >"$acked"; : >"$imported"
	port=$(free_port)
	{ yaml_db_web "$db" "$port"; yaml_n2_udp "$(free_port)" "$(free_udp)"; } >"$tmp/$sig.yaml"
	SOLOCORE_WEB_TOKEN=$TOKEN start_solocore "$tmp/$sig.yaml" "$tmp/$sig.log" 'web: listening' 200 ||
		{ bad "$sig: solocore run $SOLOCORE_WHY"; cat "$tmp/$sig.log"; return; }
	for i in $(seq 50); do curl -sf "127.0.0.1:$port/api/v1/health" >/dev/null && break; sleep 0.1; done
	[ -e "$db-wal" ] || { bad "$sig: no $db-wal after start-up"; return; }
	wal=$(stat -c %i "$db-wal")
	core_locks "$db" || bad "$sig: the core holds no POSIX lock on $db at start (/proc/locks)"
	n=0
	for r in $(seq "$ROUNDS"); do
		for j in 1 2 3; do
			n=$((n + 1))
			imsi=$(printf '0010110%08d' $n)
			code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
				-d "{\"imsi\":\"$imsi\",\"k\":\"$K\",\"opc\":\"$OPC\"}" "127.0.0.1:$port/api/v1/subscribers")
			[ "$code" = 201 ] && echo "$imsi" >>"$acked" || bad "$sig: POST $imsi: $code $(cat "$tmp/body")"
		done
		# The second processes, one after the other, each opening and closing the file.
		"$SOLOCORE" users list --db "$db" >/dev/null 2>"$tmp/cli.err" ||
			bad "$sig: users list --db: $(cat "$tmp/cli.err")"
		"$SOLOCORE" sims generate --count 2 --imsi-start "$(printf '0010120%06d00' "$r")" --random-keys \
			>"$tmp/r.toml" 2>/dev/null || bad "$sig: sims generate failed"
		if "$SOLOCORE" sims import "$tmp/r.toml" --db "$db" >/dev/null 2>"$tmp/cli.err"; then
			printf '0010120%06d00\n0010120%06d01\n' "$r" "$r" >>"$imported"
		else
			bad "$sig: sims import --db: $(cat "$tmp/cli.err")"
		fi
		sqlite3 "$db" 'SELECT count(*) FROM subscribers' >/dev/null 2>"$tmp/cli.err" ||
			bad "$sig: sqlite3: $(cat "$tmp/cli.err")"
		core_locks "$db" || bad "$sig: round $r: the core holds no POSIX lock on $db after the other processes"
		[ "$(stat -c %i "$db-wal" 2>/dev/null)" = "$wal" ] ||
			bad "$sig: round $r: $db-wal was deleted or replaced under the running core"
	done
	kill -s "$sig" "$CORE_PID"
	wait "$CORE_PID"
	CORE_PID=
	sqlite3 "$db" 'SELECT supi FROM subscribers' >"$tmp/rows" 2>"$tmp/cli.err" ||
		{ bad "$sig: sqlite3 after the stop: $(cat "$tmp/cli.err")"; return; }
	lost=0
	for imsi in $(cat "$acked" "$imported"); do
		grep -q "$imsi\$" "$tmp/rows" || { lost=$((lost + 1)); echo "  lost: $imsi"; }
	done
	[ "$lost" = 0 ] || bad "$sig: $lost of $(cat "$acked" "$imported" | wc -l) acknowledged writes are not in the file"
	echo "$sig: $(wc -l <"$acked") API writes, $(wc -l <"$imported") SIMs imported by the CLI, $lost lost"
}

phase KILL
phase TERM
[ "$FAILS" = 0 ] && echo "PASS: the core kept its lock and its WAL; no acknowledged write lost" && exit 0
echo "$FAILS failure(s)"
exit 1
