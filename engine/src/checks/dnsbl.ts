import { isIPv4 } from 'node:net';
import type { DnsClient } from '../dns-client';

export interface BlacklistResult {
  listed: boolean;
  /** Zones that list at least one of the addresses. */
  listedCount: number;
  /** Zones that gave a usable answer. */
  totalChecks: number;
  zones: string[];
}

/**
 * Looks the MX addresses up in each DNSBL zone (`<reversed IPv4>.<zone>` A record). A 127.0.0.x answer
 * means listed; 127.255.255.x is Spamhaus's "your resolver may not query us" and other answers outside
 * 127.0.0.0/8 are errors: those zones are left out of `totalChecks` rather than counted as clean.
 */
export async function checkBlacklists(dns: DnsClient, addresses: string[], zones: string[]): Promise<BlacklistResult> {
  const ips = addresses.filter((ip) => isIPv4(ip)).slice(0, 2);
  if (ips.length === 0 || zones.length === 0) return { listed: false, listedCount: 0, totalChecks: 0, zones: [] };
  const perZone = await Promise.all(
    zones.map(async (zone) => {
      const answers = await Promise.all(ips.map((ip) => dns.a(`${ip.split('.').reverse().join('.')}.${zone}`)));
      let usable = false;
      let listed = false;
      for (const a of answers) {
        if (a.kind === 'nxdomain' || a.kind === 'nodata') usable = true;
        if (a.kind === 'ok') {
          const hits = a.records.filter((r) => r.startsWith('127.') && !r.startsWith('127.255.255.'));
          if (hits.length > 0) {
            usable = true;
            listed = true;
          }
        }
      }
      return { zone, usable, listed };
    }),
  );
  const listedZones = perZone.filter((z) => z.listed).map((z) => z.zone);
  return { listed: listedZones.length > 0, listedCount: listedZones.length, totalChecks: perZone.filter((z) => z.usable).length, zones: listedZones };
}
