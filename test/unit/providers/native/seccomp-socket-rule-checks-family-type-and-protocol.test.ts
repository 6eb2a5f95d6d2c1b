/**
 * socket() may make only what real programs use, judged on all three
 * arguments (second red team, #10): unix stream/datagram/seqpacket with
 * protocol 0; inet and inet6 TCP and UDP (protocol 0 or named), with or
 * without SOCK_NONBLOCK/SOCK_CLOEXEC; route netlink, raw or datagram.
 * SOCK_PACKET or SOCK_RAW through AF_INET, MPTCP, UDP-Lite, SCTP, ICMP
 * ping sockets and any other type or protocol are refused with the errno a
 * kernel without them gives, and an unknown family with EAFNOSUPPORT.
 * socketpair() works only for AF_UNIX (EOPNOTSUPP otherwise, before the
 * kernel builds a socket of the other family).
 */
import { describe, expect, it } from 'vitest';
import {
  buildSeccompFilter,
  EAFNOSUPPORT,
  EOPNOTSUPP,
  EPROTONOSUPPORT,
  ESOCKTNOSUPPORT,
  evaluateSeccompFilter,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
} from '../../../../src/providers/native/seccomp-program.js';
import { ARCH_TABLES, syscallNumber, type SeccompArch } from '../../../../src/providers/native/syscall-tables.js';

const err = (code: number) => (SECCOMP_RET_ERRNO | code) >>> 0;
const AF = { UNIX: 1, INET: 2, INET6: 10, NETLINK: 16, PACKET: 17, VSOCK: 40, ALG: 38, KEY: 15, BLUETOOTH: 31, CAN: 29, XDP: 44, TIPC: 30, RDS: 21 };
const SOCK = { STREAM: 1, DGRAM: 2, RAW: 3, RDM: 4, SEQPACKET: 5, DCCP: 6, PACKET: 10 };
const FLAGS = [0, 0x800 /* SOCK_NONBLOCK */, 0x80000 /* SOCK_CLOEXEC */, 0x80800];
const PROTO = { TCP: 6, UDP: 17, ICMP: 1, ICMPV6: 58, SCTP: 132, UDPLITE: 136, MPTCP: 262, DCCP: 33 };

describe.each(['x86_64', 'aarch64'] as SeccompArch[])('on %s', (arch) => {
  const filter = buildSeccompFilter(arch);
  const decide = (name: string, family: number, type: number, protocol: number) =>
    evaluateSeccompFilter(filter, { arch: ARCH_TABLES[arch].auditArch, nr: syscallNumber(arch, name), args: [family, type, protocol] });

  it('allows TCP and UDP over inet and inet6, by protocol 0 or by name, with or without the type flags', () => {
    for (const family of [AF.INET, AF.INET6]) {
      for (const flags of FLAGS) {
        for (const protocol of [0, PROTO.TCP]) expect(decide('socket', family, SOCK.STREAM | flags, protocol)).toBe(SECCOMP_RET_ALLOW);
        for (const protocol of [0, PROTO.UDP]) expect(decide('socket', family, SOCK.DGRAM | flags, protocol)).toBe(SECCOMP_RET_ALLOW);
      }
    }
  });

  it('refuses packet and raw sockets through inet, and every inet protocol but TCP and UDP', () => {
    for (const family of [AF.INET, AF.INET6]) {
      // AF_INET + SOCK_PACKET is how the red team reached packet_create.
      for (const type of [SOCK.PACKET, SOCK.RAW, SOCK.SEQPACKET, SOCK.RDM, SOCK.DCCP, 0, 0x100 | SOCK.STREAM, 0xffffffff]) {
        expect(decide('socket', family, type, 0x0300), `type ${type}`).toBe(err(ESOCKTNOSUPPORT));
        expect(decide('socket', family, type | 0x80800, 0), `type ${type}`).toBe(err(ESOCKTNOSUPPORT));
      }
      for (const protocol of [PROTO.MPTCP, PROTO.SCTP, PROTO.UDP, 0x10000 | PROTO.TCP])
        expect(decide('socket', family, SOCK.STREAM, protocol), `stream ${protocol}`).toBe(err(EPROTONOSUPPORT));
      for (const protocol of [PROTO.UDPLITE, PROTO.ICMP, PROTO.ICMPV6, PROTO.TCP, PROTO.DCCP])
        expect(decide('socket', family, SOCK.DGRAM | 0x800, protocol), `dgram ${protocol}`).toBe(err(EPROTONOSUPPORT));
    }
  });

  it('allows unix stream, datagram and seqpacket sockets and pairs with protocol 0 only', () => {
    for (const name of ['socket', 'socketpair']) {
      for (const flags of FLAGS)
        for (const type of [SOCK.STREAM, SOCK.DGRAM, SOCK.SEQPACKET]) expect(decide(name, AF.UNIX, type | flags, 0)).toBe(SECCOMP_RET_ALLOW);
      for (const type of [SOCK.RAW, SOCK.RDM, SOCK.PACKET, 0x100 | SOCK.STREAM]) expect(decide(name, AF.UNIX, type, 0)).toBe(err(ESOCKTNOSUPPORT));
      for (const protocol of [1, 6, 0xffffffff]) expect(decide(name, AF.UNIX, SOCK.STREAM, protocol)).toBe(err(EPROTONOSUPPORT));
    }
  });

  it('allows route netlink raw or datagram and refuses other netlink protocols and types', () => {
    for (const flags of FLAGS) for (const type of [SOCK.RAW, SOCK.DGRAM]) expect(decide('socket', AF.NETLINK, type | flags, 0)).toBe(SECCOMP_RET_ALLOW);
    for (const protocol of [4, 9, 12, 15, 16]) expect(decide('socket', AF.NETLINK, SOCK.RAW, protocol)).toBe(err(EPROTONOSUPPORT));
    for (const type of [SOCK.STREAM, SOCK.SEQPACKET, SOCK.PACKET]) expect(decide('socket', AF.NETLINK, type, 0)).toBe(err(ESOCKTNOSUPPORT));
  });

  it('refuses every other family, whatever the type and protocol', () => {
    for (const family of [AF.VSOCK, AF.PACKET, AF.ALG, AF.KEY, AF.BLUETOOTH, AF.CAN, AF.XDP, AF.TIPC, AF.RDS, 0, 46, 0xffffffff]) {
      for (const [type, protocol] of [
        [SOCK.STREAM, 0],
        [SOCK.RAW, 0x0300],
        [SOCK.DGRAM, 0],
      ])
        expect(decide('socket', family, type!, protocol!), `family ${family}`).toBe(err(EAFNOSUPPORT));
    }
  });

  it('refuses socketpair for every family but unix, before the kernel makes a socket', () => {
    for (const family of [AF.INET, AF.INET6, AF.NETLINK, AF.VSOCK, AF.PACKET, 0]) expect(decide('socketpair', family, SOCK.STREAM, 0)).toBe(err(EOPNOTSUPP));
    expect(decide('socketpair', AF.INET, SOCK.STREAM, PROTO.MPTCP)).toBe(err(EOPNOTSUPP));
  });
});
