import type { Config } from '@verify-hub/core';
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
  };
}
