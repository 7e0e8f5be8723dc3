import type { Risk } from '@verify-hub/core';
import type { ReplyStage } from '@verify-hub/engine';
import { DnsPeer } from './dns-peer';
import { standardZone } from './mail-world';
import { replyLine, SmtpPeer } from './smtp-peer';

/** One real reply of engine/test-data/smtp-replies.json (its README and NOTICE say where each comes from). */
export interface CorpusReply {
  id: string;
  reply: string;
  stage: ReplyStage;
  /** The source names the command the reply answered (false: a recipient reply replayed at RCPT TO). */
  stageFromSource: boolean;
  /** What the reply says: exists, missing, missing_temporary, full, disabled, rate_limited, greylisted, policy, temporary, other, ambiguous. */
  label: string;
  expected: Risk;
  source: Record<string, unknown>;
}

export function loadCorpus(): CorpusReply[] {
  return (require('../../../engine/test-data/smtp-replies.json') as { replies: CorpusReply[] }).replies;
}

export interface CorpusWorld {
  dnsServer: string;
  smtpPort: number;
  peers: SmtpPeer[];
  /** The address whose conversation ends in each reply, by corpus id. */
  addressOf: Map<string, string>;
  stop(): Promise<void>;
}

/**
 * Every corpus reply answered by a loopback MX at the stage it was given: RCPT replies by one peer
 * scripted per mailbox (unscripted mailboxes do not exist, so the catch-all probe says "not catch-all");
 * MAIL FROM, EHLO and greeting replies each by a peer of their own on 127.0.1.x, on the same port.
 */
export async function startCorpusWorld(corpus: CorpusReply[]): Promise<CorpusWorld> {
  const dns = standardZone(new DnsPeer());
  dns.set('corpus-mail.com', { MX: [{ exchange: 'mx.corpus-mail.com', priority: 10 }], TXT: ['v=spf1 -all'] }).set('mx.corpus-mail.com', { A: ['127.0.0.1'] });
  const rcptPeer = new SmtpPeer();
  const addressOf = new Map<string, string>();
  const port = await rcptPeer.start();
  const peers = [rcptPeer];
  let n = 0;
  for (const entry of corpus) {
    n++;
    const behaviour = entry.reply.startsWith('2') ? 'accept' : replyLine(entry.reply);
    if (entry.stage === 'rcpt') {
      const address = `r${n}@corpus-mail.com`;
      rcptPeer.script(address, behaviour);
      addressOf.set(entry.id, address);
      continue;
    }
    const domain = `corpus-${n}.com`;
    const ip = `127.0.1.${peers.length}`;
    dns.set(domain, { MX: [{ exchange: `mx.${domain}`, priority: 10 }] }).set(`mx.${domain}`, { A: [ip] });
    const reply = behaviour === 'accept' ? undefined : behaviour;
    const peer = new SmtpPeer(entry.stage === 'mail' ? { rejectSender: reply, host: ip, port } : { rejectConnection: reply, host: ip, port });
    await peer.start();
    peers.push(peer);
    addressOf.set(entry.id, `someone@${domain}`);
  }
  const dnsServer = await dns.start();
  return {
    dnsServer,
    smtpPort: port,
    peers,
    addressOf,
    stop: async () => {
      await Promise.all([dns.stop(), ...peers.map((p) => p.stop())]);
    },
  };
}
