import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@verify-hub/core';
import { domainListsInfo, engineOptionsFromConfig, isDisposableDomain, isFreeProviderDomain, isRoleAccount, LocalEngine, roleListInfo } from '@verify-hub/engine';
import { cli } from '../cli/run-cli';

describe('lists from maintained packages, and the operator’s own', () => {
  it('disposable: the community blocklist and the older list together; real providers and privacy relays are not disposable', () => {
    const community = (require('disposable-email-domains-js') as { disposableEmailBlocklist(): string[] }).disposableEmailBlocklist();
    expect(community.length).toBeGreaterThan(1000);
    expect(community.every((d) => isDisposableDomain(d))).toBe(true);
    for (const d of ['mailinator.com', 'guerrillamail.com', 'yopmail.com', '10minutemail.com', 'sharklasers.com', 'mail.tm']) expect(isDisposableDomain(d)).toBe(true);
    for (const d of ['gmail.com', 'outlook.com', 'gmx.de', 'web.de', 'yandex.ru', 'naver.com', 'duck.com', 'simplelogin.com', 'mozmail.com']) expect(isDisposableDomain(d)).toBe(false);
  });

  it('free providers include large national providers', () => {
    for (const d of ['gmail.com', 'gmx.de', 't-online.de', 'wp.pl', 'o2.pl', 'seznam.cz', 'orange.fr', 'libero.it', 'naver.com', 'daum.net', 'qq.com', 'abv.bg', 'btinternet.com', 'proton.me']) {
      expect({ d, free: isFreeProviderDomain(d) }).toEqual({ d, free: true });
    }
    expect(isFreeProviderDomain('acme-mail.com')).toBe(false);
  });

  it('role accounts: nearly 1,000 names from the package; names that can be people are not roles', () => {
    expect(roleListInfo().size).toBeGreaterThan(950); // the package's 1,018, less people's names and initials
    for (const r of ['info', 'sales', 'support', 'noreply', 'postmaster', 'billing', 'careers', 'it', 'webmaster', 'Info+news']) expect({ r, role: isRoleAccount(r) }).toEqual({ r, role: true });
    for (const p of ['dev', 'hr', 'pm', 'md', 'sydney', 'john', 'ana.silva', 'dev.patel']) expect({ p, role: isRoleAccount(p) }).toEqual({ p, role: false });
  });

  it('operator lists: deny makes a domain (and its subdomains) disposable, allow overrides a list', async () => {
    const engine = new LocalEngine({ denyDomains: ['bad-signups.com'], allowDomains: ['mailinator.com'], smtp: false, dnsServers: ['127.0.0.1:9'], dnsTimeoutMs: 200 });
    expect(await engine.verify('x@bad-signups.com')).toMatchObject({ risk: 'risky', reason: 'disposable', checks: { disposable: true } });
    expect(await engine.verify('x@eu.bad-signups.com')).toMatchObject({ reason: 'disposable' });
    expect((await engine.verify('x@mailinator.com')).checks.disposable).toBe(false);
  });

  it('ENGINE_ALLOW_DOMAINS / ENGINE_DENY_DOMAINS: a comma list or file:/path; a bad entry is an error naming the variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vh-lists-'));
    try {
      writeFileSync(join(dir, 'deny.txt'), '# our blocklist\nbad-signups.com\n\nspam-farm.net # since June\n');
      const options = engineOptionsFromConfig(loadConfig({ ENGINE_ALLOW_DOMAINS: 'mailinator.com, @partner.org', ENGINE_DENY_DOMAINS: `file:${join(dir, 'deny.txt')}` }));
      expect(options).toMatchObject({ allowDomains: ['mailinator.com', '@partner.org'], denyDomains: ['bad-signups.com', 'spam-farm.net'] });
      expect(() => engineOptionsFromConfig(loadConfig({ ENGINE_DENY_DOMAINS: 'good.com,not a domain' }))).toThrow('ENGINE_DENY_DOMAINS: "not a domain" is not a domain');
      expect(() => engineOptionsFromConfig(loadConfig({ ENGINE_DENY_DOMAINS: `file:${join(dir, 'missing.txt')}` }))).toThrow('ENGINE_DENY_DOMAINS: the file cannot be read');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('verify-hub engine lists prints each list with its source, version and size', async () => {
    const saved = { ...process.env };
    process.env.ENGINE_DENY_DOMAINS = 'bad-signups.com,spam-farm.net';
    try {
      const r = await cli('engine', 'lists');
      expect(r.code).toBe(0);
      const version = (name: string) => (require(`${name}/package.json`) as { version: string }).version;
      expect(r.out).toMatch(new RegExp(`disposable\\s+disposable-email-domains-js\\s+${version('disposable-email-domains-js').replace(/\./g, '\\.')}\\s+\\d{4,}`));
      expect(r.out).toMatch(new RegExp(`role account\\s+role-based-email-addresses.*${version('role-based-email-addresses').replace(/\./g, '\\.')}\\s+\\d{3,}`));
      expect(r.out).toMatch(/free provider\s+@activeprospect\/freemail.*\s+\d{4,}/);
      expect(r.out).toMatch(/operator deny\s+ENGINE_DENY_DOMAINS\s+-\s+2/);
      const json = JSON.parse((await cli('engine', 'lists', '--json')).out) as { list: string; size: number }[];
      expect(json.map((l) => l.list)).toEqual(expect.arrayContaining(['disposable', 'free provider', 'role account', 'operator allow', 'operator deny']));
      expect(domainListsInfo().every((l) => l.size > 0)).toBe(true);
    } finally {
      process.env = saved;
    }
  });
});
