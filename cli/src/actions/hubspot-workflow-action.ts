// `verify-hub hubspot actions` work: the "Verify email address" workflow action's definition on the public app.
import { ConfigError, loadConfig, type Config } from '@verify-hub/core';
import { actionDefinitionsApi, verifyActionDefinition } from '@verify-hub/connector-hubspot';

export interface ActionsOptions {
  appId?: string;
  actionUrl?: string;
}

function definitions(config: Config, opts: ActionsOptions) {
  const appId = opts.appId ?? config.HUBSPOT_APP_ID;
  if (!appId || !/^\d+$/.test(appId)) throw new ConfigError(opts.appId ? '--app-id' : 'HUBSPOT_APP_ID', 'is required: the numeric id of the public app');
  if (!config.HUBSPOT_DEVELOPER_API_KEY) throw new ConfigError('HUBSPOT_DEVELOPER_API_KEY', 'is required: the developer account API key (definitions API)');
  return { appId: Number(appId), api: actionDefinitionsApi({ basePath: config.HUBSPOT_API_BASE, developerApiKey: config.HUBSPOT_DEVELOPER_API_KEY }) };
}

/** The hub's action URL: --action-url, else HUB_PUBLIC_URL + /actions/hubspot. */
function actionUrlOf(config: Config, opts: ActionsOptions): string {
  if (opts.actionUrl) return opts.actionUrl;
  if (!config.HUB_PUBLIC_URL) throw new ConfigError('HUB_PUBLIC_URL', 'is required to name the action URL (or pass --action-url)');
  return `${config.HUB_PUBLIC_URL.replace(/\/+$/, '')}/actions/hubspot`;
}

export async function publish(opts: ActionsOptions, print: (line: string) => void = console.log): Promise<void> {
  const config = loadConfig(process.env);
  const { appId, api } = definitions(config, opts);
  const actionUrl = actionUrlOf(config, opts);
  const created = await api.create(appId, verifyActionDefinition(actionUrl));
  print(`published "Verify email address" as action ${created.id} (app ${appId}), calling ${actionUrl}`);
}

export async function list(opts: ActionsOptions, print: (line: string) => void = console.log): Promise<void> {
  const config = loadConfig(process.env);
  const { appId, api } = definitions(config, opts);
  const page = await api.getPage(appId);
  if (!page.results.length) print(`no workflow actions on app ${appId}`);
  for (const d of page.results) print(`${d.id}\t${d.published ? 'published' : 'draft'}\t${d.labels?.en?.actionName ?? ''}\t${d.actionUrl}`);
}

export async function remove(definitionId: string, opts: ActionsOptions, print: (line: string) => void = console.log): Promise<void> {
  const config = loadConfig(process.env);
  if (!/^\d+$/.test(definitionId)) throw new ConfigError('definitionId', 'must be a numeric action id (see `hubspot actions list`)');
  const { appId, api } = definitions(config, opts);
  await api.archive(definitionId, appId);
  print(`deleted action ${definitionId} from app ${appId}`);
}
