import { XMLBuilder, XMLParser } from 'fast-xml-parser';

/**
 * The Metadata API's SOAP side of the fake Salesforce: readMetadata, createMetadata and
 * upsertMetadata for CustomField and PermissionSet, as jsforce's `conn.metadata` sends them
 * (a SessionHeader, the call as the Body's element) and reads them back (`<callResponse><result>`).
 */
export interface FieldPermission {
  field: string;
  readable: boolean;
  editable: boolean;
}
export interface CustomFieldDefinition {
  fullName: string;
  type: string;
  label: string;
  values?: string[];
}
export interface MetadataStore {
  customFields: Map<string, CustomFieldDefinition>;
  permissionSets: Map<string, { id: string; label: string; fieldPermissions: FieldPermission[] }>;
  newId(prefix: string): string;
}

const parser = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, isArray: (name) => ['fullNames', 'metadata', 'fieldPermissions', 'value'].includes(name), parseTagValue: false });
const builder = new XMLBuilder({ ignoreAttributes: false, suppressEmptyNode: true });

const ENVELOPE_OPEN = '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns="http://soap.sforce.com/2006/04/metadata" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>';
const ENVELOPE_CLOSE = '</soapenv:Body></soapenv:Envelope>';

export function soapFault(code: string, message: string): string {
  return `${ENVELOPE_OPEN}<soapenv:Fault><faultcode>sf:${code}</faultcode><faultstring>${code}: ${message}</faultstring></soapenv:Fault>${ENVELOPE_CLOSE}`;
}

/** The session id a SOAP call carries in its header. */
export function soapSession(xml: string): string | undefined {
  const envelope = parser.parse(xml) as { Envelope?: { Header?: { SessionHeader?: { sessionId?: string } } } };
  return envelope.Envelope?.Header?.SessionHeader?.sessionId;
}

type Node = Record<string, unknown>;
const text = (value: unknown) => (value === undefined || value === null ? '' : typeof value === 'object' ? String((value as Node)['#text'] ?? '') : String(value));

/** Answers one Metadata API call; `calls` records its method and component names. */
export function answerMetadata(xml: string, store: MetadataStore, calls: { method: string; names: string[] }[]): string {
  const body = (parser.parse(xml) as { Envelope: { Body: Node } }).Envelope.Body;
  const [method, args] = Object.entries(body).find(([k]) => !k.startsWith('@_')) as [string, Node];
  const result = (records: unknown) => `${ENVELOPE_OPEN}${builder.build({ [`${method}Response`]: { result: records } })}${ENVELOPE_CLOSE}`;
  if (method === 'readMetadata') {
    const type = text(args.type);
    const names = ((args.fullNames as unknown[]) ?? []).map(text);
    calls.push({ method, names });
    const records = names.map((name) => {
      if (type === 'CustomField') {
        const field = store.customFields.get(name);
        return field ? { '@_xsi:type': 'CustomField', fullName: field.fullName, label: field.label, type: field.type } : { '@_xsi:type': 'CustomField' };
      }
      const set = store.permissionSets.get(name);
      return set ? { '@_xsi:type': 'PermissionSet', fullName: name, label: set.label, fieldPermissions: set.fieldPermissions.map((p) => ({ editable: String(p.editable), field: p.field, readable: String(p.readable) })) } : { '@_xsi:type': 'PermissionSet' };
    });
    return `${ENVELOPE_OPEN}${builder.build({ readMetadataResponse: { result: { records } } })}${ENVELOPE_CLOSE}`;
  }
  if (method === 'createMetadata' || method === 'upsertMetadata') {
    const items = (args.metadata as Node[]) ?? [];
    calls.push({ method, names: items.map((m) => text(m.fullName)) });
    if (items.length > 10) return soapFault('INVALID_ARGUMENT', 'a createMetadata call takes at most 10 components');
    const results = items.map((m) => {
      const fullName = text(m.fullName);
      const type = text(m['@_type']);
      if (type === 'CustomField') {
        if (store.customFields.has(fullName)) return method === 'createMetadata' ? { fullName, success: 'false', errors: { message: `There is already a field named ${fullName}`, statusCode: 'DUPLICATE_DEVELOPER_NAME' } } : { fullName, success: 'true', created: 'false' };
        if (!/^(Contact|Lead|Account)\.[A-Za-z0-9_]+__c$/.test(fullName)) return { fullName, success: 'false', errors: { message: 'invalid field name', statusCode: 'FIELD_INTEGRITY_EXCEPTION' } };
        const valueSet = (m.valueSet as Node | undefined)?.valueSetDefinition as Node | undefined;
        const values = ((valueSet?.value as Node[] | undefined) ?? []).map((v) => text(v.fullName));
        store.customFields.set(fullName, { fullName, type: text(m.type), label: text(m.label), ...(values.length ? { values } : {}) });
        return { fullName, success: 'true', ...(method === 'upsertMetadata' ? { created: 'true' } : {}) };
      }
      if (type === 'PermissionSet') {
        const existed = store.permissionSets.get(fullName);
        if (existed && method === 'createMetadata') return { fullName, success: 'false', errors: { message: 'duplicate', statusCode: 'DUPLICATE_DEVELOPER_NAME' } };
        const fieldPermissions = ((m.fieldPermissions as Node[] | undefined) ?? []).map((p) => ({ field: text(p.field), readable: text(p.readable) === 'true', editable: text(p.editable) === 'true' }));
        store.permissionSets.set(fullName, { id: existed?.id ?? store.newId('0PS'), label: text(m.label), fieldPermissions });
        return { fullName, success: 'true', ...(method === 'upsertMetadata' ? { created: String(!existed) } : {}) };
      }
      return { fullName, success: 'false', errors: { message: `the fake has no ${type}`, statusCode: 'INVALID_TYPE' } };
    });
    return result(results);
  }
  return soapFault('INVALID_OPERATION', `the fake does not answer ${method}`);
}
