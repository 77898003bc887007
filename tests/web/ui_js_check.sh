#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# The embedded UI's script must parse: extract it from web/ui.html and run
# `node --check` on it. Without node the test is skipped (exit 77).
set -eu
html="$1"
if ! command -v node >/dev/null 2>&1; then
	echo "node not installed: cannot check the UI script" >&2
	exit 77
fi
tmp=$(mktemp --suffix=.js)
trap 'rm -f "$tmp"' EXIT
sed -n '/<script>/,/<\/script>/p' "$html" | sed '1d;$d' > "$tmp"
test -s "$tmp" || { echo "no <script> in $html" >&2; exit 1; }
node --check "$tmp"
echo "ui.html script: $(wc -l < "$tmp") lines, syntax ok"
