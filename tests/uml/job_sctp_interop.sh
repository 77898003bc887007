#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# UML job for tests/sctp/e2e_uml_interop.sh: Linux kernel SCTP (what real gNBs
# run) against n2sctp's usrsctp raw-IP backend on the host, over a TAP link.
#   1. kernel client (UML, 10.38.42.2) -> usrsctp server (host, 10.38.42.1)
#   2. kernel server (UML) <- usrsctp client (host, retrying until we listen)
# Usage: job_sctp_interop.sh N2ECHO
set -u
N2ECHO=$1
ip addr add 10.38.42.2/24 dev eth0 && ip link set eth0 up || { echo "FAIL: eth0"; exit 1; }
rc=0
echo "== kernel client -> usrsctp server"
"$N2ECHO" client --backend kernel --addr 10.38.42.1 --port 38412 --msgs 300 --timeout 30 || rc=1
echo "== usrsctp client -> kernel server"
"$N2ECHO" server --backend kernel --addr 10.38.42.2 --port 38412 --assocs 1 --timeout 60 || rc=1
exit $rc
