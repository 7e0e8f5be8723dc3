import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { VerifyHubError, noLimit, type CallLimiter } from '@verify-hub/core';
import { pipedriveClient, type PipedriveAuth, type PipedriveClient } from './client';
import { dailyQuotaError } from './errors';

/** The most persons one `GET /api/v2/persons` answers (a larger `limit` is refused with 400). */
export const PERSONS_PAGE_MAX = 500;
/** The most ids one `GET /api/v2/persons?ids=` takes. */
export const IDS_PER_CALL = 100;

const Email = z.object({ value: z.string().nullish(), primary: z.boolean().nullish(), label: z.string().nullish() });
export const PersonSchema = z.looseObject({
  id: z.number().int(),
  name: z.string().nullish(),
  emails: z.array(Email).nullish(),
  custom_fields: z.record(z.string(), z.unknown()).nullish(),
  update_time: z.string().nullish(),
});
export type Person = z.infer<typeof PersonSchema>;

const PersonsPage = z.looseObject({
  data: z.array(PersonSchema).nullish(),
  additional_data: z.looseObject({ next_cursor: z.string().nullish() }).nullish(),
});

const FieldOption = z.object({ id: z.number().int(), label: z.string() });
export const PersonFieldSchema = z.looseObject({
  field_name: z.string(),
  field_code: z.string(),
  field_type: z.string(),
  is_custom_field: z.boolean().optional(),
  options: z.array(FieldOption).nullish(),
});
export type PersonField = z.infer<typeof PersonFieldSchema>;
const FieldsPage = z.looseObject({ data: z.array(PersonFieldSchema).nullish(), additional_data: z.looseObject({ next_cursor: z.string().nullish() }).nullish() });
const OneField = z.looseObject({ data: PersonFieldSchema });

const Me = z.looseObject({
  data: z.looseObject({ id: z.number().int(), company_id: z.number().int(), company_domain: z.string().nullish(), company_name: z.string().nullish() }),
});
const Webhook = z.looseObject({ data: z.looseObject({ id: z.number().int() }) });
const WebhookItem = z.looseObject({ id: z.number().int(), subscription_url: z.string(), event_object: z.string().nullish() });
const Webhooks = z.looseObject({ data: z.array(WebhookItem).nullish() });

export interface Me {
  userId: number;
  companyId: number;
  companyDomain: string;
  companyName?: string;
  /** The token's 2-second allowance, as the answer's `x-ratelimit-limit` said. */
  burstLimit?: number;
}

/** Only our person fields may be written: the body holds `custom_fields` and nothing else (never `marketing_status`). */
export interface PersonPatch {
  custom_fields: Record<string, string | number | null>;
}

function parsed<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new VerifyHubError(`Pipedrive answered ${what} in an unexpected shape (${issue.path.join('.') || 'body'}: ${issue.message})`);
}

/**
 * Pipedrive's API on the official SDK (`pipedrive/v2`, v1 where no v2 exists), for one connection.
 * Every call goes through the host's limiter (shared by every worker, paced to the burst window), waits
 * out a burst window the last answer said is spent, and is refused before it goes when the day's
 * allowance is spent. Answers are checked with zod; failures are core's kinds (errors.ts). Nothing here retries.
 */
export class PipedriveApi {
  readonly client: PipedriveClient;

  constructor(
    apiDomain: string,
    auth: PipedriveAuth,
    private readonly limiter: CallLimiter = noLimit,
  ) {
    this.client = pipedriveClient(apiDomain, auth);
  }

  private async call<T>(what: string, send: () => Promise<unknown>, schema: z.ZodType<T>): Promise<T> {
    return this.limiter.schedule(async () => {
      const window = this.client.window;
      if (window.dailyExhausted()) throw dailyQuotaError(what, window);
      const wait = window.waitMs();
      if (wait > 0) await sleep(wait);
      return parsed(schema, await send(), what);
    });
  }

  async me(): Promise<Me> {
    const me = await this.call('GET /v1/users/me', () => this.client.users.getCurrentUser(), Me);
    return { userId: me.data.id, companyId: me.data.company_id, companyDomain: me.data.company_domain ?? String(me.data.company_id), ...(me.data.company_name ? { companyName: me.data.company_name } : {}), ...(this.client.window.limit ? { burstLimit: this.client.window.limit } : {}) };
  }

  /** One page of persons (cursor paging), of a saved filter and/or changed since a time, with only our fields' values. */
  async persons(options: { cursor?: string; filterId?: number; updatedSince?: string; customFields?: string[]; limit?: number }): Promise<{ persons: Person[]; next?: string }> {
    const page = await this.call(
      'GET /v2/persons',
      () =>
        this.client.persons.getPersons({
          limit: options.limit ?? PERSONS_PAGE_MAX,
          ...(options.cursor ? { cursor: options.cursor } : {}),
          ...(options.filterId ? { filter_id: options.filterId } : {}),
          ...(options.updatedSince ? { updated_since: options.updatedSince } : {}),
          ...(options.customFields?.length ? { custom_fields: options.customFields.join(',') } : {}),
        }),
      PersonsPage,
    );
    const next = page.additional_data?.next_cursor;
    return { persons: page.data ?? [], ...(next ? { next } : {}) };
  }

  /** The persons of `ids` that still exist, up to IDS_PER_CALL a call. */
  async personsByIds(ids: number[], customFields?: string[]): Promise<Person[]> {
    const found: Person[] = [];
    for (let at = 0; at < ids.length; at += IDS_PER_CALL) {
      const slice = ids.slice(at, at + IDS_PER_CALL);
      const page = await this.call(
        'GET /v2/persons?ids',
        () => this.client.persons.getPersons({ ids: slice.join(','), limit: slice.length, ...(customFields?.length ? { custom_fields: customFields.join(',') } : {}) }),
        PersonsPage,
      );
      found.push(...(page.data ?? []));
    }
    return found;
  }

  /** One person's fields: PATCH /api/v2/persons/{id} (Pipedrive has no bulk update). */
  async updatePerson(id: number, patch: PersonPatch): Promise<void> {
    // Built here from our fields alone, whatever the caller passed: never a consent or marketing status.
    const body = { custom_fields: patch.custom_fields };
    await this.call('PATCH /v2/persons/:id', () => this.client.persons.updatePerson({ id, UpdatePersonRequest: body }), z.unknown());
  }

  async personFields(): Promise<PersonField[]> {
    const fields: PersonField[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.call('GET /v2/personFields', () => this.client.personFields.getPersonFields({ limit: PERSONS_PAGE_MAX, ...(cursor ? { cursor } : {}) }), FieldsPage);
      fields.push(...(page.data ?? []));
      cursor = page.additional_data?.next_cursor ?? undefined;
    } while (cursor);
    return fields;
  }

  async addPersonField(name: string, type: 'enum' | 'double' | 'text' | 'date', options?: string[]): Promise<PersonField> {
    const created = await this.call(
      'POST /v2/personFields',
      () => this.client.personFields.addPersonField({ AddPersonFieldRequest: { field_name: name, field_type: type, ...(options ? { options: options.map((label) => ({ label })) } : {}) } }),
      OneField,
    );
    return created.data;
  }

  async addPersonFieldOptions(fieldCode: string, labels: string[]): Promise<void> {
    await this.call('POST /v2/personFields/:code/options', () => this.client.personFields.addPersonFieldOptions({ field_code: fieldCode, AddDealFieldOptionsRequestInner: labels.map((label) => ({ label })) }), z.unknown());
  }

  /** A webhooks v2 subscription (POST /v1/webhooks), its deliveries sent with HTTP basic auth. */
  async addWebhook(input: { url: string; action: 'create' | 'change'; userId: number; authUser: string; authPassword: string; name: string }): Promise<number> {
    const created = await this.call(
      'POST /v1/webhooks',
      () =>
        this.client.webhooks.addWebhook({
          AddWebhookRequest: { subscription_url: input.url, event_action: input.action, event_object: 'person', name: input.name, user_id: input.userId, http_auth_user: input.authUser, http_auth_password: input.authPassword, version: '2.0' },
        }),
      Webhook,
    );
    return created.data.id;
  }

  /** The company's webhooks the token's user may see (GET /v1/webhooks). */
  async webhooks(): Promise<z.infer<typeof WebhookItem>[]> {
    return (await this.call('GET /v1/webhooks', () => this.client.webhooks.getWebhooks(), Webhooks)).data ?? [];
  }

  async deleteWebhook(id: number): Promise<void> {
    await this.call('DELETE /v1/webhooks/:id', () => this.client.webhooks.deleteWebhook({ id }), z.unknown());
  }
}
