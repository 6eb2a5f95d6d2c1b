/**
 * What socket() and socketpair() may create: checked on family (arg 0),
 * type (arg 1, without SOCK_NONBLOCK and SOCK_CLOEXEC) and protocol (arg 2),
 * because each of the three picks kernel code. A family check alone let
 * `socket(AF_INET, SOCK_PACKET, ...)` reach packet_create (the kernel turns
 * PF_INET + SOCK_PACKET into PF_PACKET) and let a job make MPTCP
 * (protocol 262) and UDP-Lite (136) sockets: code real programs never use
 * and a job should not be able to reach (second red team, #10).
 *
 * Refusals mimic a kernel that lacks the thing asked for, so programs take
 * their ordinary fallback: an unknown family is EAFNOSUPPORT, a type the
 * family does not offer ESOCKTNOSUPPORT, a protocol EPROTONOSUPPORT (the
 * errnos the kernel itself uses for each), and a socketpair of anything but
 * AF_UNIX EOPNOTSUPP (the kernel's answer too, but only after it has made
 * the socket: here it never does).
 */
import { ALLOW, EAFNOSUPPORT, EOPNOTSUPP, EPROTONOSUPPORT, errno, ESOCKTNOSUPPORT, type ArgCheck, type Decision } from './seccomp-decision.js';

export const AF_UNIX = 1;
export const AF_INET = 2;
export const AF_INET6 = 10;
export const AF_NETLINK = 16;
export const SOCK_STREAM = 1;
export const SOCK_DGRAM = 2;
export const SOCK_RAW = 3;
export const SOCK_SEQPACKET = 5;
export const SOCK_NONBLOCK = 0x800;
export const SOCK_CLOEXEC = 0x80000;
export const IPPROTO_TCP = 6;
export const IPPROTO_UDP = 17;
export const NETLINK_ROUTE = 0;

/** Every bit of the type word but the two flags: a type with any other bit set matches no case. */
const TYPE_MASK = ~(SOCK_NONBLOCK | SOCK_CLOEXEC) >>> 0;

function typeIn(types: ReadonlyArray<readonly [type: number, then: Decision]>): ArgCheck {
  return { arg: 1, mask: TYPE_MASK, cases: types.map(([value, then]) => ({ when: 'equals' as const, value, then })), otherwise: errno(ESOCKTNOSUPPORT) };
}

function protocolIn(protocols: readonly number[], then: Decision): ArgCheck {
  return { arg: 2, cases: protocols.map((value) => ({ when: 'equals' as const, value, then })), otherwise: errno(EPROTONOSUPPORT) };
}

/** AF_UNIX: stream, datagram and seqpacket with protocol 0 (python, node, git, sqlite and libc's own nscd/syslog sockets). */
const UNIX_SOCKET = protocolIn(
  [0],
  typeIn([
    [SOCK_STREAM, ALLOW],
    [SOCK_DGRAM, ALLOW],
    [SOCK_SEQPACKET, ALLOW],
  ]),
);

/**
 * AF_INET/AF_INET6, in the job's own network namespace: TCP and UDP only,
 * by protocol 0 or by name. Not SOCK_RAW or SOCK_PACKET (packet sockets),
 * not MPTCP, UDP-Lite, SCTP or any other protocol, and not ICMP "ping"
 * sockets (SOCK_DGRAM + IPPROTO_ICMP/ICMPV6): the namespace's
 * ping_group_range already refuses those, no tool a job runs needs them,
 * and the ping socket code has had its own kernel bugs (CVE-2017-2671), so
 * the filter keeps the job out of it whatever the sysctl says.
 */
const INET_SOCKET = typeIn([
  [SOCK_STREAM, protocolIn([0, IPPROTO_TCP], ALLOW)],
  [SOCK_DGRAM, protocolIn([0, IPPROTO_UDP], ALLOW)],
]);

/**
 * AF_NETLINK only with NETLINK_ROUTE, raw or datagram (what glibc's
 * getaddrinfo(AI_ADDRCONFIG) and getifaddrs() open; node's
 * os.networkInterfaces() and python's socket.if_nameindex() fail without
 * it), in that same namespace.
 */
const ROUTE_NETLINK_SOCKET = protocolIn(
  [NETLINK_ROUTE],
  typeIn([
    [SOCK_RAW, ALLOW],
    [SOCK_DGRAM, ALLOW],
  ]),
);

/**
 * socket(): the families above. Every other family (AF_VSOCK, which is not
 * namespaced and reaches the hypervisor's agents; AF_PACKET, AF_ALG,
 * AF_KEY, AF_BLUETOOTH, AF_CAN, AF_XDP, ...) is EAFNOSUPPORT.
 */
export const SOCKET_RULE: ArgCheck = {
  arg: 0,
  cases: [
    { when: 'equals', value: AF_UNIX, then: UNIX_SOCKET },
    { when: 'equals', value: AF_INET, then: INET_SOCKET },
    { when: 'equals', value: AF_INET6, then: INET_SOCKET },
    { when: 'equals', value: AF_NETLINK, then: ROUTE_NETLINK_SOCKET },
  ],
  otherwise: errno(EAFNOSUPPORT),
};

/** socketpair(): only AF_UNIX implements it; for any other family the kernel would build a socket first, then refuse. */
export const SOCKETPAIR_RULE: ArgCheck = { arg: 0, cases: [{ when: 'equals', value: AF_UNIX, then: UNIX_SOCKET }], otherwise: errno(EOPNOTSUPP) };
