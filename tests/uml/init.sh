#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
# PID 1 inside User-Mode Linux (see uml_run.sh). The root is the host's / on
# read-only hostfs. Kernel command line words of the form KEY=VALUE that the
# kernel does not know reach us as environment variables:
#   UML_RESULTS  host directory for results, mounted writable (hostfs)
#   UML_HELPER   host path of umlhelper (module loading, poweroff)
#   UML_NO_HMAC  1: leave hmac unloaded and module auto-loading off
#                (tests the ENOSYS report)
#   UML_MODULES  comma-separated extra modules to load (e.g. veth,tun)
# The job is $UML_RESULTS/job.sh (written by uml_run.sh); its output goes to
# job.log and its exit status to rc in the results directory. Then power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp

mount -t proc proc /proc
mount -t sysfs sysfs /sys
# The kernel may have mounted devtmpfs on /dev already (DEVTMPFS_MOUNT).
if [ ! -c /dev/null ]; then
	mount -t devtmpfs devtmpfs /dev 2>/dev/null || {
		mount -t tmpfs -o mode=755 tmpfs /dev
		mknod -m 666 /dev/null c 1 3
		mknod -m 666 /dev/zero c 1 5
		mknod -m 666 /dev/urandom c 1 9
	}
fi
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /run
# Host directories under /tmp the job needs (uml_run.sh names them): the tmpfs
# above hides them, so mount them back from the host, read-only.
for d in $(echo "${UML_BIND:-}" | tr ':' ' '); do
	mkdir -p "$d"
	mount -t hostfs -r none "$d" -o "$d" || echo "uml-init: cannot mount $d" >&2
done
mkdir -p /tmp/results
if ! mount -t hostfs none /tmp/results -o "$UML_RESULTS"; then
	echo "uml-init: cannot mount results dir $UML_RESULTS" >&2
	"$UML_HELPER" poweroff
fi
R=/tmp/results
KVER=$(uname -r)
MODDIR=/usr/lib/uml/modules/$KVER
{
	echo "uml-init: kernel $KVER"
	# The host has no /lib/modules for this kernel (and no kmod), and the root
	# is read-only: umlhelper loads modules straight from the UML package.
	"$UML_HELPER" modload "$MODDIR" sctp
	# The SCTP cookie is signed with HMAC (net.sctp.cookie_hmac_alg, sha256 by
	# default): without the hmac template a listener fails with ENOSYS.
	if [ "${UML_NO_HMAC:-0}" = 1 ]; then
		echo "uml-init: UML_NO_HMAC=1: hmac not loaded, kernel module auto-loading off"
	else
		# The kernel's own module requests (crypto templates, rtnl-link-veth,
		# ...) go to umlhelper, which resolves modules.alias like modprobe.
		echo "$UML_HELPER" >/proc/sys/kernel/modprobe
	fi
	for m in $(echo "${UML_MODULES:-}" | tr ',' ' '); do
		"$UML_HELPER" modload "$MODDIR" "$m"
	done
	if [ "${UML_NO_HMAC:-0}" = 1 ]; then
		:
	elif ! "$UML_HELPER" modload "$MODDIR" hmac; then
		# Every cookie_hmac_alg but 'none' needs hmac (md5, sha1 and sha256
		# all fail with ENOSYS without it): unsigned cookies, test use only.
		echo "uml-init: hmac not loadable; setting net.sctp.cookie_hmac_alg=none"
		echo none >/proc/sys/net/sctp/cookie_hmac_alg
	fi
	ip link set lo up
} >"$R/init.log" 2>&1

cd /tmp
sh "$R/job.sh" >"$R/job.log" 2>&1
echo $? >"$R/rc.tmp"
mv "$R/rc.tmp" "$R/rc"
sync
umount /tmp/results
"$UML_HELPER" poweroff
