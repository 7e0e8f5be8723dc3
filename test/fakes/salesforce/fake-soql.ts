import { parseQuery, type Query, type WhereClause } from '@jetstreamapp/soql-parser-js';

/**
 * The SOQL the fake Salesforce answers, parsed with a SOQL parser and evaluated on its records:
 * selected fields (or COUNT()), WHERE with AND / OR / NOT and parentheses, = != < > <= >= LIKE IN,
 * string, number, boolean, null and DateTime literals, ORDER BY Id, LIMIT.
 */
export type FakeRecord = Record<string, unknown> & { Id: string };

interface Condition {
  field: string;
  operator: string;
  literalType?: string | string[];
  value?: string | string[];
}
type Token = '(' | ')' | 'AND' | 'OR' | 'NOT' | Condition;

export interface ParsedSoql {
  object: string;
  fields: string[];
  count: boolean;
  matches(record: FakeRecord): boolean;
  orderById: boolean;
  limit?: number;
  query: Query;
}

function tokens(node: WhereClause | undefined | null, out: Token[] = []): Token[] {
  if (!node) return out;
  const left = (node as { left?: Condition & { openParen?: number; closeParen?: number } | null }).left;
  if (left) {
    for (let i = 0; i < (left.openParen ?? 0); i++) out.push('(');
    out.push(left);
    for (let i = 0; i < (left.closeParen ?? 0); i++) out.push(')');
  }
  const operator = (node as { operator?: string }).operator;
  if (operator === 'AND' || operator === 'OR' || operator === 'NOT') out.push(operator);
  tokens((node as { right?: WhereClause }).right, out);
  return out;
}

const literal = (type: string | undefined, raw: string): unknown => {
  switch (type) {
    case 'STRING':
      return raw.replace(/^'|'$/g, '').replace(/\\'/g, "'");
    case 'NULL':
      return null;
    case 'BOOLEAN':
      return raw.toUpperCase() === 'TRUE';
    case 'INTEGER':
    case 'DECIMAL':
      return Number(raw);
    case 'DATETIME':
    case 'DATE':
      return Date.parse(raw);
    default:
      return raw;
  }
};

/** A record's value, comparable with a literal: DateTimes as epoch ms, booleans as booleans. */
function valueOf(record: FakeRecord, field: string, like: unknown): unknown {
  const value = record[field];
  if (value === undefined || value === null || value === '') return null;
  if (typeof like === 'number' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) return Date.parse(value);
  return value;
}

function compare(record: FakeRecord, c: Condition): boolean {
  if (c.operator === 'IN' || c.operator === 'NOT IN') {
    const values = (Array.isArray(c.value) ? c.value : [c.value ?? '']).map((v, i) => literal(Array.isArray(c.literalType) ? c.literalType[i] : c.literalType, v));
    const found = values.includes(valueOf(record, c.field, values[0]));
    return c.operator === 'IN' ? found : !found;
  }
  const expected = literal(Array.isArray(c.literalType) ? c.literalType[0] : c.literalType, String(c.value));
  const actual = valueOf(record, c.field, expected);
  switch (c.operator) {
    case '=':
      return actual === expected;
    case '!=':
      return actual !== expected;
    case 'LIKE': {
      const pattern = new RegExp(`^${String(expected).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.')}$`, 'i');
      return actual !== null && pattern.test(String(actual));
    }
    default: {
      if (actual === null || expected === null) return false;
      const [a, b] = [actual as number | string, expected as number | string];
      return c.operator === '>' ? a > b : c.operator === '>=' ? a >= b : c.operator === '<' ? a < b : a <= b;
    }
  }
}

/** Recursive descent over the tokens: OR of ANDs of (NOT) factors. */
function evaluate(list: Token[], record: FakeRecord): boolean {
  let at = 0;
  const expr = (): boolean => {
    let value = term();
    while (list[at] === 'OR') {
      at++;
      const right = term();
      value = value || right;
    }
    return value;
  };
  const term = (): boolean => {
    let value = factor();
    while (list[at] === 'AND') {
      at++;
      const right = factor();
      value = value && right;
    }
    return value;
  };
  const factor = (): boolean => {
    const token = list[at++];
    if (token === 'NOT') return !factor();
    if (token === '(') {
      const value = expr();
      at++; // ')'
      return value;
    }
    if (token === undefined || typeof token === 'string') throw new Error(`fake SOQL: unexpected ${String(token)}`);
    return compare(record, token);
  };
  return list.length === 0 ? true : expr();
}

export function parseSoql(text: string): ParsedSoql {
  const query = parseQuery(text);
  const fields = (query.fields ?? []).flatMap((f) => ((f as { type: string }).type === 'Field' ? [(f as { field: string }).field] : []));
  const count = (query.fields ?? []).some((f) => (f as { functionName?: string }).functionName === 'COUNT');
  const list = tokens(query.where);
  return {
    object: String(query.sObject),
    fields,
    count,
    matches: (record) => evaluate(list, record),
    orderById: (query.orderBy as { field?: string }[] | undefined)?.some((o) => o.field === 'Id') ?? false,
    ...(query.limit !== undefined ? { limit: query.limit } : {}),
    query,
  };
}
