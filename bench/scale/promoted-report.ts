import { readFileSync } from 'node:fs';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/**
 * The allocation sites of a sampling heap profile (promoted-sampler.cjs's), largest first: where the
 * bytes that outlived a young-generation GC were allocated. `function file:line` names a site (the
 * line is where its function starts).
 */
export function promotedSites(file: string, top = 15): { total: number; sites: { site: string; bytes: number }[] } {
  const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: ProfileNode };
  const bySite = new Map<string, number>();
  let total = 0;
  const visit = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const place = url.replace(/^.*node_modules\//, '').replace(/^.*?\/(core|connectors\/[^/]+|sync-jobs|webhooks-in|cli|engine)\/dist\//, '$1/');
    const site = `${functionName || '(anonymous)'} ${place}:${lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    node.children.forEach(visit);
  };
  visit(head);
  const sites = [...bySite].map(([site, bytes]) => ({ site, bytes })).sort((a, b) => b.bytes - a.bytes).slice(0, top);
  return { total, sites };
}
