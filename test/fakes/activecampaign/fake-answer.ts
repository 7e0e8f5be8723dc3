/** What a route of the fake answers: a status, a JSON body, headers. */
export interface FakeAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown, status = 200): FakeAnswer => ({ status, body });

/** ActiveCampaign's refusal shape: `{"errors":[{"title": ..., "detail": ..., "code": ...}]}` (422 and most 400s). */
export const refused = (status: number, title: string, code = 'invalid'): FakeAnswer => ({ status, body: { errors: [{ title, detail: '', code }] } });

export const notFound = (what: string): FakeAnswer => ({ status: 404, body: { message: `No Result found for ${what}` } });
