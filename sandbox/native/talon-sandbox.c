/*
 * talon-sandbox: talon's sandbox helper as a small static program.
 *
 * It stands in for `talon __sandbox-exec exec`, the helper in Go
 * (sandbox/internal/helper), reads the same arguments and does the same
 * things in the same order:
 *
 *   talon-sandbox __sandbox-exec exec FLAGS... -- BINARY ARGV...
 *
 * In new PID and mount namespaces (-ns), which talon creates when it
 * starts this program, it makes every mount private, mounts a fresh
 * /proc, binds the -ro paths read-only over themselves and hides the -d
 * paths (a mode-000 tmpfs over a directory, /dev/null over a file). Then
 * it forks the program; the child restricts itself (Landlock, no new
 * privileges, the seccomp socket filter, no capabilities, the rlimits)
 * and execs exactly BINARY with ARGV. The helper stays as the program's
 * init: it forwards signals, reaps orphans and exits with the program's
 * status; when talon's process ends (the -death descriptor reaches end of
 * file) it kills the program. Without namespaces it is the program's
 * child subreaper and kills what is left itself.
 *
 * Unlike the Go helper it has no runtime to start and no threads, which
 * is what a spawn cost (see RATIONALE.md, "The sandbox helper is a small
 * program where one can be built"). The rlimits need no second step: they
 * are set in the forked child, which runs nothing of this program's after
 * them but execve. The helper itself is never restricted; it runs nothing
 * but this file.
 *
 * Build: musl-gcc -O2 -static -o talon-sandbox talon-sandbox.c, or cc
 * instead of musl-gcc (make build tries both). musl's start-up is the
 * cheaper by far: glibc's probes the processor with cpuid, which a virtual
 * machine traps, and that alone costs a spawn about 0.5 ms.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The kernel's interfaces this program uses beyond what the C library
 * declares, written out so that it builds against glibc and musl alike
 * (musl-gcc sees no kernel headers): capget/capset, classic BPF and
 * seccomp_data, close_range. */

#ifndef SYS_close_range
#define SYS_close_range 436 /* one number on every architecture */
#endif

struct cap_header {
	uint32_t version;
	int pid;
};
struct cap_data {
	uint32_t effective, permitted, inheritable;
};
#define CAP_VERSION_3 0x20080522
#define CAP_SETPCAP_BIT 8

struct bpf_insn {
	uint16_t code;
	uint8_t jt, jf;
	uint32_t k;
};
struct bpf_prog {
	unsigned short len;
	struct bpf_insn *filter;
};
#define BPF_LD_W_ABS 0x20  /* BPF_LD | BPF_W | BPF_ABS */
#define BPF_ALU_AND_K 0x54 /* BPF_ALU | BPF_AND | BPF_K */
#define BPF_RET_K 0x06     /* BPF_RET | BPF_K */
#define BPF_JEQ_K 0x15     /* BPF_JMP | BPF_JEQ | BPF_K */
#define SECCOMP_MODE_FILTER_ 2
/* Offsets in struct seccomp_data: nr, arch, and the low halves of the
 * arguments on these little-endian architectures. */
#define SD_NR 0
#define SD_ARCH 4
#define SD_ARG(i) (16 + 8 * (i))

/* The protocol version: talon runs `-proto N -probe` first and uses this
 * program only when it answers 0. Bump it with every change of meaning. */
#define PROTOCOL 1

extern char **environ;

/* ---- the spec ---- */

struct list {
	char **v;
	int n;
};

struct spec {
	const char *ws, *tmp, *exe;
	struct list read, write, deny, devices, protect;
	int *ports; /* room for every argument, as the lists have */
	int nports;
	int bind, ns, udp, probe, child;
	int death;
	int cpu, mem, nproc, nofile;
	int proto;
};

/* add appends s to l; main gives every list room for all the arguments. */
static void add(struct list *l, char *s)
{
	l->v[l->n++] = s;
}

/* atoi_strict is the Go helper's atoi: 1 to 9 decimal digits. */
static int atoi_strict(const char *s, int *out)
{
	size_t n = strlen(s);
	if (n == 0 || n > 9)
		return -1;
	int v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* parse reads the flags [Spec.Args] writes; it returns the index of the
 * first argument after "--", or -1. */
static int parse(int argc, char **argv, struct spec *s)
{
	for (int i = 0; i < argc; i++) {
		const char *f = argv[i];
		if (strcmp(f, "--") == 0)
			return i + 1;
		int *sw = NULL;
		if (strcmp(f, "-b") == 0)
			sw = &s->bind;
		else if (strcmp(f, "-ns") == 0)
			sw = &s->ns;
		else if (strcmp(f, "-u") == 0)
			sw = &s->udp;
		else if (strcmp(f, "-probe") == 0)
			sw = &s->probe;
		else if (strcmp(f, "-child") == 0)
			sw = &s->child;
		if (sw) {
			*sw = 1;
			continue;
		}
		if (i + 1 >= argc)
			return -1;
		char *v = argv[++i];
		int *num = NULL;
		if (strcmp(f, "-ws") == 0)
			s->ws = v;
		else if (strcmp(f, "-r") == 0)
			add(&s->read, v);
		else if (strcmp(f, "-w") == 0)
			add(&s->write, v);
		else if (strcmp(f, "-d") == 0)
			add(&s->deny, v);
		else if (strcmp(f, "-v") == 0)
			add(&s->devices, v);
		else if (strcmp(f, "-ro") == 0)
			add(&s->protect, v);
		else if (strcmp(f, "-t") == 0)
			s->tmp = v;
		else if (strcmp(f, "-x") == 0)
			s->exe = v;
		else if (strcmp(f, "-death") == 0)
			num = &s->death;
		else if (strcmp(f, "-p") == 0)
			num = &s->ports[s->nports++];
		else if (strcmp(f, "-cpu") == 0)
			num = &s->cpu;
		else if (strcmp(f, "-mem") == 0)
			num = &s->mem;
		else if (strcmp(f, "-nproc") == 0)
			num = &s->nproc;
		else if (strcmp(f, "-nofile") == 0)
			num = &s->nofile;
		else if (strcmp(f, "-proto") == 0)
			num = &s->proto;
		else
			return -1;
		if (num && atoi_strict(v, num) != 0)
			return -1;
	}
	return -1;
}

/* ---- errors, written as the Go helper writes them ---- */

static char errbuf[4096];

/* fail records "step: error" with Go's lowercase error texts. */
static int fail(const char *step, int err)
{
	char e[256];
	snprintf(e, sizeof e, "%s", strerror(err));
	if (e[0] >= 'A' && e[0] <= 'Z')
		e[0] = (char)(e[0] - 'A' + 'a');
	snprintf(errbuf, sizeof errbuf, "%s: %s", step, e);
	return -1;
}

static void say(const char *a, const char *b, const char *c)
{
	char out[8192];
	int n = snprintf(out, sizeof out, "%s%s%s", a, b, c);
	if (n > 0)
		(void)!write(2, out, (size_t)(n < (int)sizeof out ? n : (int)sizeof out - 1));
}

/* within reports whether p is dir or below it (the Go helper's Within). */
static int within(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	if (strcmp(p, dir) == 0)
		return 1;
	if (n > 1 && dir[n - 1] == '/')
		n--;
	return strlen(p) > n && strncmp(p, dir, n) == 0 && (strcmp(dir, "/") == 0 || p[n] == '/');
}

/* hidden reports whether the namespace hides the denied path d. */
static int hidden(const struct spec *s, const char *d)
{
	return strcmp(d, "/") != 0 && (s->ws == NULL || !within(s->ws, d));
}

/* ---- mounts ---- */

static unsigned long mount_flags(unsigned long st)
{
	static const struct {
		unsigned long st, ms;
	} m[] = {
		{1, MS_RDONLY}, {2, MS_NOSUID}, {4, MS_NODEV}, {8, MS_NOEXEC},
		{1024, MS_NOATIME}, {2048, MS_NODIRATIME}, {4096, MS_RELATIME}, {8192, 256 /* MS_NOSYMFOLLOW */},
	};
	unsigned long ms = 0;
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
		if (st & m[i].st)
			ms |= m[i].ms;
	return ms;
}

#define MS_HIDDEN (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)

static int bind_read_only(const char *src, const char *dst, unsigned long flags, unsigned long extra)
{
	char step[PATH_MAX + 64];
	if (mount(src, dst, NULL, flags, NULL) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(step, sizeof step, "bind %s read-only", dst);
		return fail(step, errno);
	}
	struct statfs fs;
	if (statfs(dst, &fs) != 0) {
		snprintf(step, sizeof step, "read the mount flags of %s", dst);
		return fail(step, errno);
	}
	if (mount("none", dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | extra | mount_flags((unsigned long)fs.f_flags), NULL) != 0) {
		snprintf(step, sizeof step, "make %s read-only", dst);
		return fail(step, errno);
	}
	return 0;
}

static int hide(const char *path)
{
	char step[PATH_MAX + 16];
	struct stat st;
	snprintf(step, sizeof step, "hide %s", path);
	if (stat(path, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return fail(step, errno);
	}
	if (S_ISDIR(st.st_mode)) {
		if (mount("tmpfs", path, "tmpfs", MS_HIDDEN, "mode=000") != 0)
			return fail(step, errno);
		return 0;
	}
	return bind_read_only("/dev/null", path, MS_BIND, MS_HIDDEN);
}

static int shorter_first(const void *a, const void *b)
{
	size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);
	return x < y ? -1 : x > y;
}

/* grant_of returns the innermost writable grant (the workspace or a -w
 * path) that holds p below it, or NULL. */
static const char *grant_of(const struct spec *s, const char *p)
{
	const char *root = NULL;
	if (s->ws && strcmp(s->ws, p) != 0 && within(p, s->ws))
		root = s->ws;
	for (int i = 0; i < s->write.n; i++) {
		const char *r = s->write.v[i];
		if (strcmp(r, p) != 0 && within(p, r) && (!root || strlen(r) > strlen(root)))
			root = r;
	}
	return root;
}

/* pin binds every directory between each protected path and its writable
 * grant over itself, shallowest first, as the Go helper's pins does: a
 * mount point cannot be renamed or removed, so no process in the
 * namespace can move a protected path away with its directory. */
static int pin(const struct spec *s)
{
	size_t cap = 1;
	for (int i = 0; i < s->protect.n; i++)
		for (const char *c = s->protect.v[i]; *c; c++)
			cap += *c == '/';
	char **dirs = calloc(cap, sizeof *dirs);
	if (!dirs)
		return fail("pin the directories of protected paths", ENOMEM);
	size_t n = 0;
	int rc = 0;
	for (int i = 0; i < s->protect.n && rc == 0; i++) {
		const char *p = s->protect.v[i];
		const char *root = grant_of(s, p);
		if (!root)
			continue;
		char *d = strdup(p);
		if (!d) {
			rc = fail("pin the directories of protected paths", ENOMEM);
			break;
		}
		for (;;) {
			char *slash = strrchr(d, '/');
			if (!slash || slash == d)
				break;
			*slash = 0;
			if (strcmp(d, root) == 0 || !within(d, root))
				break;
			int seen = 0;
			for (size_t k = 0; k < n && !seen; k++)
				seen = strcmp(dirs[k], d) == 0;
			if (seen)
				continue;
			if (n >= cap || !(dirs[n] = strdup(d))) {
				rc = fail("pin the directories of protected paths", ENOMEM);
				break;
			}
			n++;
		}
		free(d);
	}
	qsort(dirs, n, sizeof *dirs, shorter_first);
	for (size_t k = 0; k < n && rc == 0; k++) {
		if (mount(dirs[k], dirs[k], NULL, MS_BIND | MS_REC, NULL) != 0 && errno != ENOENT && errno != ENOTDIR) {
			char step[PATH_MAX + 32];
			snprintf(step, sizeof step, "bind %s over itself", dirs[k]);
			rc = fail(step, errno);
		}
	}
	for (size_t k = 0; k < n; k++)
		free(dirs[k]);
	free(dirs);
	return rc;
}

/* mount_namespace prepares the new mount namespace, as the Go helper's
 * mountNamespace does. */
static int mount_namespace(const struct spec *s)
{
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		return fail("read the working directory", errno);
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return fail("make the mounts private", errno);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		return fail("mount a fresh /proc", errno);
	if (pin(s) != 0)
		return -1;
	for (int i = 0; i < s->protect.n; i++)
		if (bind_read_only(s->protect.v[i], s->protect.v[i], MS_BIND | MS_REC, 0) != 0)
			return -1;
	for (int i = 0; i < s->deny.n; i++)
		if (hidden(s, s->deny.v[i]) && hide(s->deny.v[i]) != 0)
			return -1;
	if (chdir(cwd) != 0) {
		char step[PATH_MAX + 64];
		snprintf(step, sizeof step, "enter the working directory %s (is it denied?)", cwd);
		return fail(step, errno);
	}
	return 0;
}

/* ---- Landlock ---- */

#define SYS_CREATE_RULESET 444
#define SYS_ADD_RULE 445
#define SYS_RESTRICT_SELF 446
#define RULESET_VERSION 1
#define RULE_PATH_BENEATH 1
#define RULE_NET_PORT 2

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_REFER (1ULL << 13)
#define FS_TRUNCATE (1ULL << 14)
#define FS_IOCTL_DEV (1ULL << 15)
#define FS_V1 ((1ULL << 13) - 1)
#define FS_READ (FS_EXECUTE | FS_READ_FILE | FS_READ_DIR)
#define FS_FILE (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)
#define FS_DEVICE (FS_READ_FILE | FS_WRITE_FILE | FS_READ_DIR | FS_TRUNCATE | FS_IOCTL_DEV)
#define FS_CARVED (FS_READ_DIR | FS_MAKE_DIR)
#define NET_BIND_TCP (1ULL << 0)
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

struct ruleset_attr {
	uint64_t fs, net, scoped;
};

struct path_beneath_attr {
	uint64_t allowed;
	int32_t fd;
} __attribute__((packed));

struct net_port_attr {
	uint64_t allowed, port;
};

static int landlock_abi(void)
{
	long v = syscall(SYS_CREATE_RULESET, NULL, 0, RULESET_VERSION);
	return v < 0 ? 0 : (int)v;
}

static int add_path(int rfd, const char *path, uint64_t rights)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0; /* absent paths grant nothing */
	struct stat st;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		rights &= FS_FILE;
	if (rights == 0) {
		close(fd);
		return 0;
	}
	struct path_beneath_attr pb = {.allowed = rights, .fd = fd};
	if (syscall(SYS_ADD_RULE, rfd, RULE_PATH_BENEATH, &pb, 0) != 0) {
		int e = errno;
		close(fd);
		char step[PATH_MAX + 32];
		snprintf(step, sizeof step, "landlock rule for %s", path);
		return fail(step, e);
	}
	close(fd);
	return 0;
}

/* carve adds g, or when a denied path lies inside g, FS_CARVED on g and a
 * rule for each entry of g, carved again where it leads to the denied
 * path (the Go helper's carve). */
static int carve(int rfd, const char *path, uint64_t rights, uint64_t handled, char **deny, int ndeny, int depth)
{
	char *inside[ndeny > 0 ? ndeny : 1];
	int nin = 0;
	for (int i = 0; i < ndeny; i++) {
		if (within(path, deny[i]))
			return 0; /* g is itself denied */
		if (within(deny[i], path))
			inside[nin++] = deny[i];
	}
	if (nin == 0)
		return add_path(rfd, path, rights & handled);
	if (depth > 8)
		return 0;
	DIR *d = opendir(path);
	if (!d)
		return 0; /* unreadable: grant nothing rather than the secret */
	if (add_path(rfd, path, rights & FS_CARVED & handled) != 0) {
		closedir(d);
		return -1;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char sub[PATH_MAX];
		if (snprintf(sub, sizeof sub, "%s/%s", strcmp(path, "/") == 0 ? "" : path, e->d_name) >= (int)sizeof sub)
			continue;
		if (carve(rfd, sub, rights, handled, inside, nin, depth + 1) != 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

static int grant(int rfd, const char *path, uint64_t rights, uint64_t handled, char **deny, int ndeny)
{
	if (ndeny == 0)
		return add_path(rfd, path, rights & handled);
	return carve(rfd, path, rights, handled, deny, ndeny, 0);
}

/* ---- seccomp: the socket filter ---- */

#if defined(__x86_64__)
#define AUDIT_ARCH_THIS 0xc000003eU
#elif defined(__aarch64__)
#define AUDIT_ARCH_THIS 0xc00000b7U
#elif defined(__riscv) && __riscv_xlen == 64
#define AUDIT_ARCH_THIS 0xc00000f3U
#endif

#ifdef AUDIT_ARCH_THIS
#define RET_ERRNO(e) (0x00050000U | (unsigned)(e))
#define RET_ALLOW 0x7fff0000U

/* build_filter writes the Go helper's socketFilter into f and returns
 * its length: socket(2) makes only Unix, netlink, TCP and (with udp) UDP
 * sockets; io_uring_setup(2) fails; system calls of another
 * architecture fail with ENOSYS. sandbox/internal/helper's tests compare
 * it with socketFilter instruction for instruction. */
static int build_filter(int udp, struct bpf_insn f[32])
{
	int n = 0;
#define L(v) (f[n++] = (struct bpf_insn){.code = BPF_LD_W_ABS, .k = (v)})
#define AND(v) (f[n++] = (struct bpf_insn){.code = BPF_ALU_AND_K, .k = (v)})
#define RET(v) (f[n++] = (struct bpf_insn){.code = BPF_RET_K, .k = (v)})
#define JEQ(v, t, fl) (f[n++] = (struct bpf_insn){.code = BPF_JEQ_K, .jt = (t), .jf = (fl), .k = (v)})
	/* Jumps are written with symbolic targets, resolved below. */
	int jt[32], jf[32];
	for (int i = 0; i < 32; i++)
		jt[i] = jf[i] = -1;
	int lbl_inet, lbl_dgram, lbl_eperm, lbl_enosys, lbl_allow;
#define J(v, t, fl) (jt[n] = (t), jf[n] = (fl), JEQ((v), 0, 0))
	enum { T_NEXT = -1, T_INET = 100, T_DGRAM, T_EPERM, T_ENOSYS, T_ALLOW };
	L(SD_ARCH);
	J(AUDIT_ARCH_THIS, T_NEXT, T_ENOSYS);
	L(SD_NR);
	AND(~0x40000000U);
	J(425 /* io_uring_setup */, T_EPERM, T_NEXT);
	J(__NR_socket, T_NEXT, T_ALLOW);
	L(SD_ARG(0));
	J(1 /* AF_UNIX */, T_ALLOW, T_NEXT);
	J(16 /* AF_NETLINK */, T_ALLOW, T_NEXT);
	J(2 /* AF_INET */, T_INET, T_NEXT);
	J(10 /* AF_INET6 */, T_INET, T_EPERM);
	lbl_inet = n;
	L(SD_ARG(1));
	AND(0xf);
	J(2 /* SOCK_DGRAM */, T_DGRAM, T_NEXT);
	J(1 /* SOCK_STREAM */, T_NEXT, T_EPERM);
	L(SD_ARG(2));
	J(0, T_ALLOW, T_NEXT);
	J(6 /* IPPROTO_TCP */, T_ALLOW, T_NEXT);
	RET(RET_ERRNO(EPROTONOSUPPORT));
	lbl_dgram = n;
	if (udp) {
		L(SD_ARG(2));
		J(0, T_ALLOW, T_NEXT);
		J(17 /* IPPROTO_UDP */, T_ALLOW, T_EPERM);
	} else {
		RET(RET_ERRNO(EPERM));
	}
	lbl_eperm = n;
	RET(RET_ERRNO(EPERM));
	lbl_enosys = n;
	RET(RET_ERRNO(ENOSYS));
	lbl_allow = n;
	RET(RET_ALLOW);
	for (int i = 0; i < n; i++) {
		if (f[i].code != BPF_JEQ_K)
			continue;
		int t[2] = {jt[i], jf[i]};
		unsigned char *out[2] = {&f[i].jt, &f[i].jf};
		for (int k = 0; k < 2; k++) {
			int to;
			switch (t[k]) {
			case T_INET: to = lbl_inet; break;
			case T_DGRAM: to = lbl_dgram; break;
			case T_EPERM: to = lbl_eperm; break;
			case T_ENOSYS: to = lbl_enosys; break;
			case T_ALLOW: to = lbl_allow; break;
			default: to = i + 1; break;
			}
			*out[k] = (unsigned char)(to - i - 1);
		}
	}
	return n;
#undef L
#undef AND
#undef RET
#undef JEQ
#undef J
}

/* filter_sockets installs build_filter's program. */
static int filter_sockets(int udp)
{
	struct bpf_insn f[32];
	struct bpf_prog prog = {.len = (unsigned short)build_filter(udp, f), .filter = f};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER_, &prog, 0, 0) != 0)
		return fail("install the seccomp filter", errno);
	return 0;
}
#else
static int filter_sockets(int udp)
{
	(void)udp;
	return 0;
}
#endif

/* ---- capabilities ---- */

#define SECURE_NO_ROOT (1 << 0 | 1 << 1 | 1 << 2 | 1 << 3 | 1 << 5 | 1 << 6 | 1 << 7)

static int last_cap(void)
{
	char b[16] = {0};
	int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 63;
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	while (n > 0 && (b[n - 1] == '\n' || b[n - 1] == ' '))
		b[--n] = 0;
	int v;
	if (n > 0 && atoi_strict(b, &v) == 0)
		return v;
	return 63;
}

/* drop_capabilities is the Go helper's dropCapabilities. */
static int drop_capabilities(void)
{
	struct cap_header hdr = {.version = CAP_VERSION_3, .pid = 0};
	struct cap_data data[2];
	memset(data, 0, sizeof data);
	if (syscall(SYS_capget, &hdr, data) != 0)
		return fail("read the capabilities", errno);
	if (data[0].effective & (1U << CAP_SETPCAP_BIT)) {
		int last = last_cap();
		for (int c = 0; c <= last; c++) {
			if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0) {
				if (errno == EINVAL)
					break;
				char step[64];
				snprintf(step, sizeof step, "drop capability %d from the bounding set", c);
				return fail(step, errno);
			}
		}
		if (prctl(PR_SET_SECUREBITS, SECURE_NO_ROOT, 0, 0, 0) != 0)
			return fail("lock the securebits", errno);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		return fail("clear the ambient capabilities", errno);
	memset(data, 0, sizeof data);
	if (syscall(SYS_capset, &hdr, data) != 0)
		return fail("clear the capabilities", errno);
	return 0;
}

static int set_limit(const char *name, int res, unsigned long long v)
{
	if (v == 0)
		return 0;
	struct rlimit r = {.rlim_cur = v, .rlim_max = v};
	if (setrlimit(res, &r) != 0) {
		char step[64];
		snprintf(step, sizeof step, "set the %s limit to %llu", name, v);
		return fail(step, errno);
	}
	return 0;
}

/* restrict_self applies the spec to this process, as the Go helper's
 * Restrict does: Landlock, no new privileges, the seccomp filter,
 * Landlock enforced, no capabilities, then the rlimits. */
static int restrict_self(const struct spec *s)
{
	int abi = landlock_abi();
	if (abi < 1) {
		snprintf(errbuf, sizeof errbuf, "this kernel has no usable Landlock");
		return -1;
	}
	struct ruleset_attr attr = {.fs = FS_V1};
	if (abi >= 2)
		attr.fs |= FS_REFER;
	if (abi >= 3)
		attr.fs |= FS_TRUNCATE;
	if (abi >= 5)
		attr.fs |= FS_IOCTL_DEV;
	size_t size = offsetof(struct ruleset_attr, net);
	if (abi >= 4) {
		attr.net = NET_CONNECT_TCP;
		if (!s->bind)
			attr.net |= NET_BIND_TCP;
		size = offsetof(struct ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL;
		size = sizeof attr;
	}
	long rfd = syscall(SYS_CREATE_RULESET, &attr, size, 0);
	if (rfd < 0)
		return fail("landlock_create_ruleset", errno);
	/* In namespaces the denied paths are hidden by mounts; only those
	 * left to Landlock (one that holds the workspace) are carved out. */
	char *deny[s->deny.n > 0 ? s->deny.n : 1];
	int ndeny = 0;
	for (int i = 0; i < s->deny.n; i++)
		if (!s->ns || !hidden(s, s->deny.v[i]))
			deny[ndeny++] = s->deny.v[i];
	uint64_t all = attr.fs;
	int r = 0;
	for (int i = 0; r == 0 && i < s->read.n; i++)
		r = grant((int)rfd, s->read.v[i], FS_READ, all, deny, ndeny);
	for (int i = 0; r == 0 && i < s->devices.n; i++)
		r = grant((int)rfd, s->devices.v[i], FS_DEVICE, all, deny, ndeny);
	if (r == 0 && s->exe)
		r = grant((int)rfd, s->exe, FS_READ, all, deny, ndeny);
	for (int i = 0; r == 0 && i < s->write.n; i++)
		r = grant((int)rfd, s->write.v[i], all, all, deny, ndeny);
	if (r == 0 && s->tmp)
		r = grant((int)rfd, s->tmp, all, all, deny, ndeny);
	if (r == 0 && s->ws)
		r = add_path((int)rfd, s->ws, all);
	if (r == 0 && abi >= 4) {
		for (int i = 0; i < s->nports; i++) {
			struct net_port_attr na = {.allowed = NET_CONNECT_TCP, .port = (uint64_t)s->ports[i]};
			if (syscall(SYS_ADD_RULE, rfd, RULE_NET_PORT, &na, 0) != 0) {
				char step[64];
				snprintf(step, sizeof step, "landlock rule for port %d", s->ports[i]);
				r = fail(step, errno);
				break;
			}
		}
	}
	if (r == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		r = fail("no_new_privs", errno);
	if (r == 0)
		r = filter_sockets(s->udp);
	if (r == 0 && syscall(SYS_RESTRICT_SELF, rfd, 0) != 0)
		r = fail("landlock_restrict_self", errno);
	close((int)rfd);
	if (r == 0)
		r = drop_capabilities();
	if (r == 0)
		r = set_limit("cpu", RLIMIT_CPU, (unsigned long long)s->cpu);
	if (r == 0)
		r = set_limit("memory", RLIMIT_AS, (unsigned long long)s->mem << 20);
	if (r == 0)
		r = set_limit("process", RLIMIT_NPROC, (unsigned long long)s->nproc);
	if (r == 0)
		r = set_limit("open files", RLIMIT_NOFILE, (unsigned long long)s->nofile);
	return r;
}

/* ---- the program ---- */

/* environment returns environ with TMPDIR set to tmp (when tmp is set),
 * or NULL when there is no memory for it. */
static char **environment(const char *tmp)
{
	if (!tmp)
		return environ;
	int n = 0;
	while (environ[n])
		n++;
	char **env = calloc((size_t)n + 2, sizeof *env);
	size_t len = strlen(tmp) + sizeof "TMPDIR=";
	char *kv = malloc(len);
	if (!env || !kv) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(kv, len, "TMPDIR=%s", tmp);
	int k = 0;
	for (int i = 0; i < n; i++)
		if (strncmp(environ[i], "TMPDIR=", 7) != 0)
			env[k++] = environ[i];
	env[k++] = kv;
	env[k] = NULL;
	return env;
}

/* exec_program runs the program in this process; it returns only on
 * failure, with 127 when the program is missing, else 126. */
static int exec_program(char **rest, char **env)
{
	execve(rest[0], rest + 1, env);
	int e = errno;
	char msg[256];
	snprintf(msg, sizeof msg, "%s", strerror(e));
	if (msg[0] >= 'A' && msg[0] <= 'Z')
		msg[0] = (char)(msg[0] - 'A' + 'a');
	say("talon: ", rest[0], ": ");
	say(msg, "\n", "");
	return e == ENOENT ? 127 : 126;
}

static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};

/* proc is one visible process and its parent. */
struct proc {
	pid_t pid, ppid;
	int below;
};

static int by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct proc *)a)->pid, y = ((const struct proc *)b)->pid;
	return (x > y) - (x < y);
}

/* read_ppid reads the parent pid from /proc/PID/stat: the fourth field,
 * after the command name in parentheses (which may hold anything). */
static int read_ppid(int pid, pid_t *ppid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t r = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (r <= 0)
		return -1;
	buf[r] = 0;
	char *rp = strrchr(buf, ')');
	/* ") S 1234 ..." */
	if (!rp || (size_t)(rp - buf) + 4 >= (size_t)r)
		return -1;
	char *end = rp + 4;
	while (*end >= '0' && *end <= '9')
		end++;
	char num[16];
	size_t len = (size_t)(end - (rp + 4));
	if (len == 0 || len >= sizeof num)
		return -1;
	memcpy(num, rp + 4, len);
	num[len] = 0;
	int v;
	if (atoi_strict(num, &v) != 0)
		return -1;
	*ppid = v;
	return 0;
}

/* kill_descendants kills every process below this one and reaps what
 * becomes its child, until none is left: without a PID namespace it is
 * how the helper, a child subreaper, makes sure nothing the program
 * started outlives it (the Go helper's killDescendants). Orphans of the
 * program are reparented to the helper, so each round finds what a
 * process forked before it was killed. */
static void kill_descendants(void)
{
	pid_t self = getpid();
	struct proc *ps = NULL;
	size_t cap = 0;
	for (;;) {
		size_t n = 0;
		DIR *d = opendir("/proc");
		if (d) {
			struct dirent *e;
			while ((e = readdir(d)) != NULL) {
				int pid;
				pid_t ppid;
				if (atoi_strict(e->d_name, &pid) != 0 || read_ppid(pid, &ppid) != 0)
					continue;
				if (n == cap) {
					size_t ncap = cap ? 2 * cap : 1024;
					struct proc *np = realloc(ps, ncap * sizeof *np);
					if (!np)
						break; /* the children found so far are killed; the next round finds the rest */
					ps = np;
					cap = ncap;
				}
				ps[n].pid = pid;
				ps[n].ppid = ppid;
				ps[n].below = ppid == self;
				n++;
			}
			closedir(d);
		}
		if (n > 0) {
			/* Mark every process whose parent is marked, until nothing changes. */
			qsort(ps, n, sizeof *ps, by_pid);
			for (int changed = 1; changed;) {
				changed = 0;
				for (size_t i = 0; i < n; i++) {
					if (ps[i].below)
						continue;
					struct proc key = {.pid = ps[i].ppid};
					struct proc *up = bsearch(&key, ps, n, sizeof *ps, by_pid);
					if (up && up->below) {
						ps[i].below = 1;
						changed = 1;
					}
				}
			}
			for (size_t i = 0; i < n; i++)
				if (ps[i].below)
					kill(ps[i].pid, SIGKILL);
		}
		int st;
		pid_t p;
		do
			p = waitpid(-1, &st, 0);
		while (p < 0 && errno == EINTR);
		if (p <= 0)
			break; /* no child left */
	}
	free(ps);
}

/* refuse writes why the program did not run and returns 126. */
static int refuse(void)
{
	say("talon sandbox: ", errbuf, "; the program did not run\n");
	return 126;
}

/* run forks the program, restricted, and supervises it as the Go
 * helper's run and supervise do. The child restricts itself, rlimits
 * included, and execs the program; the helper waits for it as its init
 * (or subreaper), reaping every child, passing the forwarded signals on,
 * and killing it when talon's process ends. */
static int run(const struct spec *s, char **rest)
{
	char **env = environment(s->tmp);
	if (!env) {
		fail("set TMPDIR", errno);
		return refuse();
	}
	sigset_t set, old;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
		sigaddset(&set, forwarded[i]);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &old) != 0) {
		fail("block signals", errno);
		return refuse();
	}
	int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		fail("signalfd", errno);
		return refuse();
	}
	pid_t helper = getpid();
	pid_t target = fork();
	if (target < 0) {
		fail("fork", errno);
		return refuse();
	}
	if (target == 0) {
		if (sigprocmask(SIG_SETMASK, &old, NULL) != 0) {
			fail("restore the signal mask", errno);
			_exit(refuse());
		}
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
			fail("set the parent-death signal", errno);
			_exit(refuse());
		}
		if (getppid() != helper)
			_exit(128 + SIGKILL); /* the helper is gone already */
		if (restrict_self(s) != 0)
			_exit(refuse());
		/* Only standard input, output and error reach the program. */
		if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0) {
			fail("close the other descriptors", errno);
			_exit(refuse());
		}
		_exit(exec_program(rest, env));
	}
	int killed = 0, status = 0, done = 0;
	struct pollfd pfd[2] = {{.fd = sfd, .events = POLLIN}, {.fd = -1, .events = POLLIN}};
	if (s->death > 0) {
		struct stat st;
		if (fstat(s->death, &st) == 0 && S_ISFIFO(st.st_mode))
			pfd[1].fd = s->death;
	}
	while (!done) {
		int st;
		pid_t p;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
			if (p != target)
				continue; /* an orphan, reaped */
			status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
			done = 1;
			break;
		}
		if (done || (p < 0 && errno == ECHILD))
			break;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			/* Nothing can be watched: end the program rather than
			 * leave it unsupervised, and wait for it. */
			killed = 1;
			kill(target, SIGKILL);
			pfd[0].fd = pfd[1].fd = -1;
			while ((p = waitpid(target, &st, 0)) < 0 && errno == EINTR)
				;
			break;
		}
		if (pfd[0].revents) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
				if (si.ssi_signo != SIGCHLD)
					kill(target, (int)si.ssi_signo);
		}
		if (pfd[1].fd >= 0 && pfd[1].revents) {
			char b;
			if (read(pfd[1].fd, &b, 1) <= 0) {
				killed = 1;
				kill(target, SIGKILL);
				pfd[1].fd = -1;
			}
		}
	}
	if (!s->ns)
		kill_descendants();
	return killed ? 128 + SIGKILL : status;
}

int main(int argc, char **argv)
{
#if defined(TALON_SANDBOX_DUMP_FILTER) && defined(AUDIT_ARCH_THIS)
	/* A test build writes the socket filter (argv[1] "udp" or not) and
	 * exits. */
	if (argc == 2) {
		struct bpf_insn f[32];
		int n = build_filter(strcmp(argv[1], "udp") == 0, f);
		return write(1, f, (size_t)n * sizeof f[0]) == (ssize_t)((size_t)n * sizeof f[0]) ? 0 : 1;
	}
#endif
	if (argc < 3 || strcmp(argv[1], "__sandbox-exec") != 0 || strcmp(argv[2], "exec") != 0) {
		say("talon sandbox: bad arguments: want __sandbox-exec exec FLAGS... -- BINARY ARGV...\n", "", "");
		return 126;
	}
	int nargs = argc - 3;
	struct spec s;
	memset(&s, 0, sizeof s);
	/* Every list has room for every argument. */
	char **lists = calloc((size_t)5 * ((size_t)nargs + 1), sizeof(char *));
	if (!lists) {
		fail("read the arguments", ENOMEM);
		return refuse();
	}
	s.read.v = lists;
	s.write.v = lists + (nargs + 1);
	s.deny.v = lists + 2 * (nargs + 1);
	s.devices.v = lists + 3 * (nargs + 1);
	s.protect.v = lists + 4 * (nargs + 1);
	s.ports = calloc((size_t)nargs + 1, sizeof *s.ports);
	if (!s.ports) {
		fail("read the arguments", ENOMEM);
		return refuse();
	}
	int at = parse(nargs, argv + 3, &s);
	if (at < 0 || s.proto > PROTOCOL || nargs - at < 2) {
		say("talon sandbox: bad arguments: want FLAGS... -- BINARY ARGV...\n", "", "");
		return 126;
	}
	char **rest = argv + 3 + at;
	if (s.child) {
		char **env = environment(s.tmp);
		if (!env) {
			fail("set TMPDIR", errno);
			return refuse();
		}
		if (restrict_self(&s) != 0)
			return refuse();
		return exec_program(rest, env);
	}
	if (s.death > 0 && fcntl(s.death, F_SETFD, FD_CLOEXEC) != 0 && errno != EBADF) {
		fail("mark the death descriptor close-on-exec", errno);
		return refuse();
	}
	if (s.ns && mount_namespace(&s) != 0) {
		say("talon sandbox: namespaces: ", errbuf, "; the program did not run\n");
		return 126;
	}
	if (s.probe)
		return 0;
	/* Nothing inside may trace the helper or read its memory. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		fail("make the helper undumpable", errno);
		return refuse();
	}
	if (!s.ns && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
		fail("become the program's subreaper", errno);
		return refuse();
	}
	return run(&s, rest);
}
