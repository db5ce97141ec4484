// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// What the C library has that Swift's Glibc module leaves out: extended attributes (whether a
// file carries an access control list) and pidfd_open (pinning a process found by its pid).
#include <sys/xattr.h>
#include <sys/pidfd.h>

// memfd_create (decrypted sentences held in memory, never on disk), which needs _GNU_SOURCE.
int memfd_create(const char *name, unsigned int flags);
#define CLINUX_MFD_CLOEXEC 1U

// prctl(PR_SET_NAME): a thread's name in top -H and /proc, without Foundation's Thread.
#include <sys/prctl.h>
static inline int clinux_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

// The processors a thread may run on, and confining it to some: the sched_getaffinity and
// sched_setaffinity system calls (glibc's wrappers and their CPU_SET macros are _GNU_SOURCE's,
// which Swift's import of the C library leaves out). What a container's or a unit's CPU set
// leaves, not the processors online.
#include <sys/syscall.h>
#include <unistd.h>

// Confines the calling thread to the `count` processors of `ids` (sched_setaffinity on the
// thread itself); 0, or -1 with errno.
static inline int clinux_pin_current_thread(const int *ids, int count) {
    unsigned long mask[64] = {0};
    for (int index = 0; index < count; index++) {
        int cpu = ids[index];
        if (cpu < 0 || cpu >= (int)(8 * sizeof(mask))) continue;
        mask[cpu / (8 * sizeof(unsigned long))] |= 1UL << (cpu % (8 * sizeof(unsigned long)));
    }
    return (int)syscall(SYS_sched_setaffinity, 0, sizeof(mask), mask);
}

// The numbers of the first `capacity` processors the calling thread may run on, lowest first,
// into `ids`; how many were written (0 when the affinity cannot be read).
static inline int clinux_usable_processor_ids(int *ids, int capacity) {
    unsigned long mask[64] = {0};
    long bytes = syscall(SYS_sched_getaffinity, 0, sizeof(mask), mask);
    if (bytes <= 0) return 0;
    int count = 0;
    int bits = (int)(bytes / (long)sizeof(unsigned long)) * (int)(8 * sizeof(unsigned long));
    for (int cpu = 0; cpu < bits && count < capacity; cpu++) {
        if (mask[cpu / (8 * sizeof(unsigned long))] >> (cpu % (8 * sizeof(unsigned long))) & 1UL) {
            ids[count++] = cpu;
        }
    }
    return count;
}

// The calling thread's nice value (setpriority on the thread itself: Linux keeps one per
// thread, and glibc's PRIO_PROCESS with 0 means the calling thread alone); 0, or -1 with errno.
// Lowering it needs CAP_SYS_NICE or a RLIMIT_NICE that allows it.
#include <sys/resource.h>
static inline int clinux_set_current_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}

// Gives the calling thread the nice value of the process's main thread (what `nice -n` or a
// unit's `Nice=` set for the program), where it has another; 0, or -1 with errno (EACCES or
// EPERM where that lowers it and the thread may not).
#include <errno.h>
static inline int clinux_adopt_process_nice(void) {
    errno = 0;
    int process = getpriority(PRIO_PROCESS, (id_t)getpid());
    if (process == -1 && errno != 0) return -1;
    errno = 0;
    int own = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
    if (own == -1 && errno != 0) return -1;
    return own == process ? 0 : setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), process);
}

// accept4, which needs _GNU_SOURCE: a connection's descriptor made non-blocking and closed on
// exec in the one call, so that no other thread's fork and exec inherits it.
#include <sys/socket.h>
static inline int clinux_accept_nonblocking(int socket) {
    return accept4(socket, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

// socket(2) and socketpair(2) closed on exec (and non-blocking when asked) in the one call. The
// flags are named here only: once this module includes <sys/socket.h>, which module Swift credits
// with SOCK_CLOEXEC depends on the order a compiler process loads its modules in, so a Swift file
// that imports Glibc alone finds it in one build and not in the next.
static inline int clinux_socket(int domain, int type, int nonblocking) {
    return socket(domain, type | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
}
static inline int clinux_socketpair(int domain, int type, int pair[2]) {
    return socketpair(domain, type | SOCK_CLOEXEC, 0, pair);
}

// The owner of one TCP socket, asked of the kernel's sock_diag (inet_diag, what `ss` uses): one
// exact lookup by the socket's two ends, whatever number of sockets is open, where reading
// /proc/net/tcp costs what the table holds (a user can grow it with sockets of their own).
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

// One question to the kernel's sock_diag: sends `request` (a netlink message of `length` bytes)
// and reads the one reply into `reply` (of `capacity` bytes). The reply's first header when it is
// the answer; NULL with `*result` 0 when the kernel knows no such socket, or -errno when it could
// not be asked.
static inline const struct nlmsghdr *clinux_sock_diag_ask(const void *request, size_t length, void *reply,
                                                          size_t capacity, int *result) {
    *result = 0;
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0) {
        *result = -errno;
        return 0;
    }
    struct sockaddr_nl kernel;
    memset(&kernel, 0, sizeof kernel);
    kernel.nl_family = AF_NETLINK;
    if (sendto(fd, request, length, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
        *result = -errno;
        close(fd);
        return 0;
    }
    ssize_t got = recv(fd, reply, capacity, 0);
    int failure = errno;
    close(fd);
    const struct nlmsghdr *header = (const struct nlmsghdr *)reply;
    if (got < 0) {
        *result = -failure;
    } else if (got < (ssize_t)sizeof(struct nlmsghdr) || !NLMSG_OK(header, (unsigned int)got)) {
        *result = -EIO;
    } else if (header->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr *error = (const struct nlmsgerr *)NLMSG_DATA(header);
        if (error->error != -ENOENT) *result = error->error < 0 ? error->error : -EIO;
    } else if (header->nlmsg_type != SOCK_DIAG_BY_FAMILY) {
        *result = -EIO;
    } else {
        return header;
    }
    return 0;
}

// The uid and inode of the TCP socket of `family` (AF_INET or AF_INET6) whose local end is
// `src`:`sport` and remote end `dst`:`dport` (addresses of 4 or 16 bytes in network order, ports
// in host order): 1 when found, 0 when no such socket is open, -errno when the kernel could not
// be asked.
static inline int clinux_tcp_socket_owner(int family, const unsigned char *src, unsigned short sport,
                                          const unsigned char *dst, unsigned short dport, unsigned int *uid,
                                          unsigned long long *inode) {
    struct {
        struct nlmsghdr header;
        struct inet_diag_req_v2 request;
    } message;
    memset(&message, 0, sizeof message);
    message.header.nlmsg_len = sizeof message;
    message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    message.header.nlmsg_flags = NLM_F_REQUEST;
    message.request.sdiag_family = (unsigned char)family;
    message.request.sdiag_protocol = IPPROTO_TCP;
    message.request.idiag_states = ~0U;
    message.request.id.idiag_sport = htons(sport);
    message.request.id.idiag_dport = htons(dport);
    size_t length = family == AF_INET ? 4 : 16;
    memcpy(message.request.id.idiag_src, src, length);
    memcpy(message.request.id.idiag_dst, dst, length);
    message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    union {
        struct nlmsghdr header;
        char bytes[8192];
    } reply;
    int result;
    const struct nlmsghdr *answer = clinux_sock_diag_ask(&message, sizeof message, &reply, sizeof reply, &result);
    if (!answer) return result;
    const struct inet_diag_msg *found = (const struct inet_diag_msg *)NLMSG_DATA(answer);
    *uid = found->idiag_uid;
    *inode = found->idiag_inode;
    return 1;
}

// A Unix socket as the kernel's sock_diag tells it (unix_diag, what `ss -x` uses), by its inode:
// the inode of the socket at its other end (0 when it has none) and its address, the path or the
// abstract name with its leading zero, `*length` bytes of it copied to `name` (0 when unnamed; a
// socket accepted from a listening one carries the listener's address). 1 when found, 0 when no
// such socket is open in this network namespace, -errno when the kernel could not be asked.
#include <linux/rtnetlink.h>
#include <linux/unix_diag.h>
static inline int clinux_unix_socket(unsigned int inode, unsigned int *peer, unsigned char *name, size_t capacity,
                                     size_t *length) {
    *peer = 0;
    *length = 0;
    struct {
        struct nlmsghdr header;
        struct unix_diag_req request;
    } message;
    memset(&message, 0, sizeof message);
    message.header.nlmsg_len = sizeof message;
    message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    message.header.nlmsg_flags = NLM_F_REQUEST;
    message.request.sdiag_family = AF_UNIX;
    message.request.udiag_states = ~0U;
    message.request.udiag_ino = inode;
    message.request.udiag_show = UDIAG_SHOW_PEER | UDIAG_SHOW_NAME;
    message.request.udiag_cookie[0] = INET_DIAG_NOCOOKIE;
    message.request.udiag_cookie[1] = INET_DIAG_NOCOOKIE;
    union {
        struct nlmsghdr header;
        char bytes[8192];
    } reply;
    int result;
    const struct nlmsghdr *answer = clinux_sock_diag_ask(&message, sizeof message, &reply, sizeof reply, &result);
    if (!answer) return result;
    const struct unix_diag_msg *found = (const struct unix_diag_msg *)NLMSG_DATA(answer);
    if (found->udiag_ino != inode) return -EIO;
    int remaining = (int)answer->nlmsg_len - (int)NLMSG_LENGTH(sizeof *found);
    for (const struct rtattr *attribute = (const struct rtattr *)(found + 1); RTA_OK(attribute, remaining);
         attribute = RTA_NEXT(attribute, remaining)) {
        size_t size = RTA_PAYLOAD(attribute);
        if (attribute->rta_type == UNIX_DIAG_PEER && size >= sizeof(unsigned int)) {
            memcpy(peer, RTA_DATA(attribute), sizeof(unsigned int));
        } else if (attribute->rta_type == UNIX_DIAG_NAME) {
            if (size > capacity) return -ENAMETOOLONG;
            memcpy(name, RTA_DATA(attribute), size);
            *length = size;
        }
    }
    return 1;
}
