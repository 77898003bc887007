#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# solocore quick start, for root on Debian 12:
#   ./build.sh run    install what is missing, build, start the core on its defaults
#   ./build.sh test   install what is missing, build (gcc, clang, ASan+UBSan, fuzzers), run every test
# Other verbs: deps (packages only), build (build only).
set -eu
cd "$(dirname "$0")"

# Every Debian package the build, the tests and the benchmarks need. Later
# features add theirs here, never anywhere else.
PKGS="meson ninja-build pkg-config gcc clang llvm libclang-rt-14-dev python3
      libyaml-dev libcmocka-dev libssl-dev libsqlite3-dev sqlite3 libdqlite-dev
      libsctp-dev libusrsctp-dev
      libbpf-dev libxdp-dev bpftool linux-libc-dev
      libjansson-dev libnghttp2-dev libhttp-parser-dev
      tshark iproute2 ethtool user-mode-linux procps util-linux curl nodejs
      chromium chromium-driver"

deps() {
	missing=""
	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "build.sh: installing:$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update
		apt-get install -y --no-install-recommends $missing
	fi
}

# setup DIR CC [meson options...]: configure once, reconfigure if already there.
setup() {
	dir=$1; compiler=$2; shift 2
	if [ -f "$dir/build.ninja" ]; then
		meson setup --reconfigure "$dir" "$@" >/dev/null
	else
		CC=$compiler meson setup "$dir" "$@"
	fi
	ninja -C "$dir"
}

build() {
	setup build gcc
}

run_tests() {
	jobs=$(nproc)
	# 1. gcc, optimised: the whole suite (unit, codec, crypto, e2e).
	setup build gcc
	meson test -C build --print-errorlogs --num-processes "$jobs" --no-suite fuzz
	# 2. clang with ASan+UBSan: the same suite again; any finding aborts the test.
	setup build-asan clang -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
	# tests/lsan.supp: leaks inside libdqlite's dependencies only (each one explained there).
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp":print_suppressions=0 \
		meson test -C build-asan --print-errorlogs --num-processes "$jobs" --no-suite fuzz --no-suite bench
	# 3. libFuzzer targets (clang, ASan+UBSan), each for fuzz_seconds.
	setup build-fuzz clang -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized
	meson test -C build-fuzz --print-errorlogs --num-processes "$jobs" --suite fuzz
}

case "${1:-}" in
deps) deps ;;
build) deps; build ;;
run) deps; build; shift; exec ./build/solocore run "$@" ;;
test) deps; run_tests ;;
*) echo "usage: $0 run|test|build|deps" >&2; exit 2 ;;
esac
