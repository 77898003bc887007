/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * umlhelper - what the UML init needs that this host may not have installed
 * (kmod's modprobe, a poweroff that works without systemd):
 *
 *   umlhelper modload DIR NAME...  load modules NAME (e.g. sctp, hmac) and their
 *                                  dependencies from DIR/modules.dep with
 *                                  finit_module(2); already loaded is fine
 *   umlhelper poweroff             sync and reboot(RB_POWER_OFF)
 *   umlhelper -q -- NAME           the kernel's modprobe call (init writes our
 *                                  path to /proc/sys/kernel/modprobe): NAME is a
 *                                  module or an alias from modules.alias (e.g.
 *                                  crypto-hmac, rtnl-link-veth), loaded from
 *                                  /usr/lib/uml/modules/`uname -r`
 *   umlhelper launch UML ARGS...   (host side) exec UML under a seccomp filter
 *                                  that fails ptrace(PTRACE_GETREGSET,
 *                                  NT_X86_XSTATE) with EIO, see below
 *
 * Why "launch": the 6.1 UML kernel probes XSTATE support with GETREGSET
 * (which truncates happily) and then restores FP state with SETREGSET using
 * its own 832-byte struct _xstate. Hosts whose XSAVE area is larger (AVX-512,
 * AMX: this CI's Xeons) reject any SETREGSET not covering the whole area with
 * EFAULT, so the first user process (init) dies with SIGSEGV ("ptrace set fp
 * regs failed, errno = 14") and UML panics. Failing the probe makes UML fall
 * back to PTRACE_GETFPREGS/SETFPREGS (the 512-byte FXSAVE image), which works
 * everywhere. Guest processes are unaffected: UML traps their system calls
 * with PTRACE_SYSEMU before seccomp sees them.
 * Exit status 0 on success; modload prints each module it loads.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <fnmatch.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAXDEP 64

static char *deps_text;
static char path_buf[512];

/* The modules.dep line for a module file "kernel/.../NAME.ko", or NULL. */
static char *dep_line(const char *name)
{
	char want[128];
	size_t wl = (size_t)snprintf(want, sizeof(want), "/%s.ko", name);

	for (char *line = deps_text; line && *line;) {
		char *nl = strchr(line, '\n');
		char *colon = strchr(line, ':');
		if (colon && (!nl || colon < nl)) {
			/* basename match, with '-' and '_' equivalent as modprobe does */
			size_t n = (size_t)(colon - line);
			if (n >= wl) {
				const char *tail = colon - wl;
				size_t i = 0;
				for (; i < wl; i++) {
					char a = tail[i] == '-' ? '_' : tail[i], b = want[i] == '-' ? '_' : want[i];
					if (a != b)
						break;
				}
				if (i == wl && (tail == line || tail[0] == '/'))
					return line;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 20, len = 0, n;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			char *p = realloc(buf, cap * 2 + 1);
			if (!p) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = p;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* modules.alias: "alias PATTERN MODULE" lines, PATTERN a shell glob. */
static int resolve_alias(const char *dir, const char *name, char *out, size_t outsz)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/modules.alias", dir);
	char *text = read_file(path);
	int rc = -1;

	for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		char pat[256], mod[128];
		if (sscanf(line, "alias %255s %127s", pat, mod) == 2 && fnmatch(pat, name, 0) == 0) {
			snprintf(out, outsz, "%s", mod);
			rc = 0;
			break;
		}
	}
	free(text);
	return rc;
}

static int load_path(const char *dir, const char *rel, size_t rellen)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%.*s", dir, (int)rellen, rel);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "umlhelper: %s: %s\n", path, strerror(errno));
		return -1;
	}
	long rc = syscall(SYS_finit_module, fd, "", 0);
	int e = errno;
	close(fd);
	if (rc != 0 && e != EEXIST) {
		fprintf(stderr, "umlhelper: finit_module %s: %s\n", path, strerror(e));
		return -1;
	}
	printf("umlhelper: %s %.*s\n", rc == 0 ? "loaded" : "present", (int)rellen, rel);
	return 0;
}

/* Dependencies are listed in load order reversed: load them last to first. */
static int load_module(const char *dir, const char *name)
{
	char *line = dep_line(name);
	if (!line) {
		fprintf(stderr, "umlhelper: module %s not in %s/modules.dep (built in?)\n", name, dir);
		return -1;
	}
	char *colon = strchr(line, ':');
	char *end = strchr(line, '\n');
	if (!end)
		end = line + strlen(line);
	const char *dep[MAXDEP];
	size_t depl[MAXDEP];
	int n = 0;
	for (char *p = colon + 1; p < end && n < MAXDEP;) {
		while (p < end && *p == ' ')
			p++;
		char *q = p;
		while (q < end && *q != ' ')
			q++;
		if (q > p) {
			dep[n] = p;
			depl[n++] = (size_t)(q - p);
		}
		p = q;
	}
	for (int i = n - 1; i >= 0; i--)
		if (load_path(dir, dep[i], depl[i]) < 0)
			return -1;
	return load_path(dir, line, (size_t)(colon - line));
}

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif

static int launch(char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ptrace, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PTRACE_GETREGSET, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NT_X86_XSTATE, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EIO & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		perror("umlhelper: seccomp");
		return 1;
	}
	execv(argv[0], argv);
	perror(argv[0]);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "launch"))
		return launch(argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "poweroff")) {
		sync();
		reboot(RB_POWER_OFF);
		perror("umlhelper: reboot");
		return 1;
	}
	if (argc >= 3 && !strcmp(argv[1], "-q")) {
		/* Called by the kernel as "modprobe -q -- NAME". */
		struct utsname u;
		char dir[256], mod[128];
		const char *name = argv[argc - 1];
		if (uname(&u) < 0)
			return 1;
		snprintf(dir, sizeof(dir), "/usr/lib/uml/modules/%s", u.release);
		snprintf(path_buf, sizeof(path_buf), "%s/modules.dep", dir);
		deps_text = read_file(path_buf);
		if (!deps_text)
			return 1;
		if (!dep_line(name) && resolve_alias(dir, name, mod, sizeof(mod)) == 0)
			name = mod;
		int rc = load_module(dir, name) < 0;
		free(deps_text);
		return rc;
	}
	if (argc < 4 || strcmp(argv[1], "modload")) {
		fprintf(stderr, "usage: umlhelper modload DIR NAME... | umlhelper poweroff\n");
		return 2;
	}
	char path[512];
	snprintf(path, sizeof(path), "%s/modules.dep", argv[2]);
	deps_text = read_file(path);
	if (!deps_text) {
		perror(path);
		return 1;
	}
	int rc = 0;
	for (int i = 3; i < argc; i++)
		if (load_module(argv[2], argv[i]) < 0)
			rc = 1;
	free(deps_text);
	return rc;
}
