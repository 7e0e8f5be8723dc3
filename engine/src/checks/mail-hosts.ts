import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { DnsClient } from '../dns-client';

export interface MailHost {
  name: string;
  priority: number;
  addresses: string[];
}

export type MailHostsResult =
  | { kind: 'hosts'; hosts: MailHost[]; implicit: boolean }
  /** RFC 7505: a single MX of "." says the domain accepts no mail. */
  | { kind: 'null_mx' }
  /** The domain exists but names no mail host it can be reached at (no MX, no A/AAAA; or MX hosts that do not resolve). */
  | { kind: 'no_mail_host'; mxDeclared: boolean }
  | { kind: 'nxdomain' }
  | { kind: 'error'; code: string };

const MAX_HOSTS = 3;

/** Finds where mail for the domain goes: MX records by preference, else the domain itself (RFC 5321 §5.1 implicit MX). */
export async function findMailHosts(dns: DnsClient, domain: string): Promise<MailHostsResult> {
  const mx = await dns.mx(domain);
  if (mx.kind === 'nxdomain') return { kind: 'nxdomain' };
  if (mx.kind === 'error') return { kind: 'error', code: mx.code };
  if (mx.kind === 'ok') {
    const records = [...mx.records].sort((a, b) => a.priority - b.priority);
    if (records.length === 1 && (records[0]!.exchange === '' || records[0]!.exchange === '.')) return { kind: 'null_mx' };
    const usable = records.filter((r) => r.exchange !== '' && r.exchange !== '.').slice(0, MAX_HOSTS);
    const hosts = await Promise.all(usable.map(async (r) => ({ name: r.exchange.replace(/\.$/, ''), priority: r.priority, addresses: await addressesOf(dns, r.exchange) })));
    const reachable = hosts.filter((h) => h.addresses.length > 0);
    return reachable.length > 0 ? { kind: 'hosts', hosts: reachable, implicit: false } : { kind: 'no_mail_host', mxDeclared: true };
  }
  const addresses = await addressesOf(dns, domain);
  return addresses.length > 0 ? { kind: 'hosts', hosts: [{ name: domain, priority: 0, addresses }], implicit: true } : { kind: 'no_mail_host', mxDeclared: false };
}

async function addressesOf(dns: DnsClient, host: string): Promise<string[]> {
  if (isIPv4(host) || isIPv6(host)) return [host];
  const [v4, v6] = await Promise.all([dns.a(host), dns.aaaa(host)]);
  return [...(v4.kind === 'ok' ? v4.records : []), ...(v6.kind === 'ok' ? v6.records : [])];
}

const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) NON_PUBLIC.addSubnet(net, prefix, 'ipv6');

/** Private, loopback, link-local, multicast or reserved: not an address a public mail server can have. */
export function isNonPublicAddress(ip: string): boolean {
  if (isIPv4(ip)) return NON_PUBLIC.check(ip, 'ipv4');
  if (isIPv6(ip)) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    return mapped ? NON_PUBLIC.check(mapped[1]!, 'ipv4') : NON_PUBLIC.check(ip, 'ipv6');
  }
  return true;
}
