import type * as Brevo from '@getbrevo/brevo';

/**
 * The official SDK, loaded with the first connection rather than with the module: it costs about
 * 20 MB and 0.14 s to load, which every `verify-hub` command that lists the platform modules would
 * otherwise pay, Brevo user or not. Node caches the module, so later calls cost a lookup.
 */
export const brevoSdk = (): typeof Brevo => require('@getbrevo/brevo') as typeof Brevo;
