import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { InputError } from '@verify-hub/core';

/**
 * Outbound requests a user's input can aim (completion hooks) go to the public internet only: every
 * address is classified with ipaddr.js after DNS resolution and refused unless it is plain unicast
 * (loopback, private, link-local, multicast, unspecified, reserved, carrier-grade NAT, IPv4-mapped
 * IPv6 and the other special ranges are not), at registration (`check`) and again when connecting
 * (`post`, through the socket's own lookup, so a name that resolves elsewhere later, DNS rebinding,
 * is caught on the address actually dialled). Numeric host forms (`2130706433`, `0x7f.1`) are
 * normalised by the URL parser before they are judged. An operator may allow internal hosts by
 * name, address or CIDR range (HUB_OUTBOUND_ALLOW).
 */

/** A URL aimed at an address outside the public internet. `field` names the input that gave it. */
export class OutboundAddressError extends InputError {
  override readonly code: string = 'ADDRESS_NOT_ALLOWED';
}

export type LookupAll = (hostname: string) => Promise<LookupAddress[]>;

/** `localhost` and `*.localhost` are loopback whatever a resolver says (RFC 6761). */
const LOOPBACK_NAME = /(^|\.)localhost\.?$/i;

const systemLookup: LookupAll = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** The resolver, except for loopback names, which never leave the host. */
function resolverOf(lookup: LookupAll): LookupAll {
  return (hostname) => (LOOPBACK_NAME.test(hostname) ? Promise.resolve([{ address: '127.0.0.1', family: 4 }]) : lookup(hostname));
}

/** An entry of HUB_OUTBOUND_ALLOW: a host name (any address it resolves to), an address, or a CIDR range. */
type AllowEntry = { host: string } | { range: [ipaddr.IPv4 | ipaddr.IPv6, number] };

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/** Parses HUB_OUTBOUND_ALLOW (comma-separated); throws naming the entry that is none of the three. */
export function parseOutboundAllow(value: string | undefined): AllowEntry[] {
  if (!value?.trim()) return [];
  return value.split(',').map((raw) => {
    const entry = raw.trim();
    if (entry.includes('/')) {
      try {
        return { range: ipaddr.parseCIDR(entry) };
      } catch {
        throw new Error(`"${entry}" is not a CIDR range`);
      }
    }
    if (ipaddr.isValid(entry)) return { range: [ipaddr.parse(entry), ipaddr.parse(entry).kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number] };
    if (HOST_NAME.test(entry)) return { host: entry.toLowerCase().replace(/\.$/, '') };
    throw new Error(`"${entry}" is not a host name, an IP address or a CIDR range`);
  });
}

/** Why an address is not on the public internet (ipaddr.js's range name), or undefined when it is. */
export function nonPublicRange(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  const range = parsed.range();
  return range === 'unicast' ? undefined : range;
}

export interface OutboundGuardOptions {
  /** HUB_OUTBOUND_ALLOW, parsed or as written. */
  allow?: string | AllowEntry[];
  /** The resolver (default: the system's, as sockets use it); tests give their own. */
  lookup?: LookupAll;
}

export interface OutboundAnswer {
  status: number;
}

export class OutboundGuard {
  private readonly allow: AllowEntry[];
  private readonly resolve: LookupAll;

  constructor(options: OutboundGuardOptions = {}) {
    this.allow = typeof options.allow === 'string' || options.allow === undefined ? parseOutboundAllow(options.allow) : options.allow;
    this.resolve = resolverOf(options.lookup ?? systemLookup);
  }

  /**
   * Refuses a URL aimed outside the public internet (400 naming `field`). A name that does not
   * resolve now is let through: it is judged again, on the address dialled, at every delivery.
   */
  async check(url: string, field: string): Promise<void> {
    const host = hostOf(url, field);
    if (this.hostAllowed(host)) return;
    if (isIP(host)) return this.judge(host, host, field);
    let addresses: LookupAddress[];
    try {
      addresses = await this.resolve(host);
    } catch {
      return;
    }
    for (const { address } of addresses) this.judge(host, address, field);
  }

  /**
   * POSTs `body` to `url` with no redirect followed (a 3xx is the answer), refusing before any byte
   * is sent when the address dialled is not public. Rejects with OutboundAddressError for a refused
   * address, or the socket's error.
   */
  post(url: string, options: { headers: Record<string, string>; body: string; timeoutMs: number; field?: string }): Promise<OutboundAnswer> {
    const field = options.field ?? 'url';
    return new Promise((resolve, reject) => {
      let target: URL;
      try {
        const host = hostOf(url, field);
        if (isIP(host) && !this.hostAllowed(host)) this.judge(host, host, field);
        target = new URL(url);
      } catch (error) {
        return reject(error);
      }
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const request: RequestOptions = { method: 'POST', headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) }, lookup: this.socketLookup(field), timeout: options.timeoutMs };
      const req = send(target, request, (res: IncomingMessage) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end(options.body);
    });
  }

  /** The socket's lookup: resolves as the system would, then refuses any address that is not public. */
  private socketLookup(field: string): LookupFunction {
    return (hostname, options, callback) => {
      this.resolve(hostname).then(
        (addresses) => {
          try {
            if (!this.hostAllowed(hostname)) for (const { address } of addresses) this.judge(hostname, address, field);
          } catch (error) {
            return callback(error as NodeJS.ErrnoException, '', 4);
          }
          const usable = addresses.filter((a) => !options.family || a.family === options.family);
          if (!usable.length) return callback(Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' }), '', 4);
          if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
          callback(null, usable[0]!.address, usable[0]!.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, '', 4),
      );
    };
  }

  private judge(host: string, address: string, field: string): void {
    if (this.addressAllowed(address)) return;
    const range = nonPublicRange(address);
    if (range) throw new OutboundAddressError(field, `${host} is ${host === address ? '' : `resolved to ${address}, `}a ${range} address, not on the public internet: the hub sends nowhere else unless HUB_OUTBOUND_ALLOW lists it`);
  }

  private hostAllowed(host: string): boolean {
    const name = host.toLowerCase().replace(/\.$/, '');
    return this.allow.some((entry) => 'host' in entry && entry.host === name) || (isIP(host) > 0 && this.addressAllowed(host));
  }

  private addressAllowed(address: string): boolean {
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.parse(address);
    } catch {
      return false;
    }
    return this.allow.some((entry) => 'range' in entry && entry.range[0].kind() === parsed.kind() && parsed.match(entry.range));
  }
}

/** The URL's host as the URL parser normalised it (brackets of an IPv6 literal removed). */
function hostOf(url: string, field: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundAddressError(field, 'is not a URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new OutboundAddressError(field, 'must be an http(s) URL');
  return parsed.hostname.replace(/^\[(.*)\]$/, '$1');
}
