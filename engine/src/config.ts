import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '@verify-hub/core';
import type { LocalEngineOptions } from './options';

/** The LocalEngine settings named in the configuration (ENGINE_* in core's ConfigSchema). */
export function engineOptionsFromConfig(config: Config): LocalEngineOptions {
  return {
    dnsServers: config.ENGINE_DNS_SERVERS?.split(',').map((s) => s.trim()).filter(Boolean),
    smtp: config.ENGINE_SMTP !== 'off',
    smtpPort: config.ENGINE_SMTP_PORT,
    mailFrom: config.ENGINE_MAIL_FROM,
    heloName: config.ENGINE_HELO_NAME,
    allowPrivateMx: config.ENGINE_ALLOW_PRIVATE_MX === 'on',
    acceptAllVerdict: config.ENGINE_ACCEPT_ALL_VERDICT,
    smtpProxy: config.ENGINE_SMTP_PROXY,
    allowDomains: domainList('ENGINE_ALLOW_DOMAINS', config.ENGINE_ALLOW_DOMAINS),
    denyDomains: domainList('ENGINE_DENY_DOMAINS', config.ENGINE_DENY_DOMAINS),
  };
}

/** `a.com,b.org`, or `file:/path` with one domain a line (`#` starts a comment). */
function domainList(name: string, value: string | undefined): string[] | undefined {
  if (!value) return undefined;
  let text = value;
  if (value.startsWith('file:')) {
    try {
      text = readFileSync(value.slice('file:'.length), 'utf8');
    } catch {
      throw new ConfigError(name, 'the file cannot be read');
    }
  }
  const domains = text.split(/[\n,]/).map((line) => line.replace(/#.*$/, '').trim().toLowerCase()).filter(Boolean);
  const bad = domains.find((d) => !/^@?[a-z0-9-]+(\.[a-z0-9-]+)+\.?$/.test(d));
  if (bad !== undefined) throw new ConfigError(name, `"${bad.slice(0, 100)}" is not a domain`);
  return domains;
}
