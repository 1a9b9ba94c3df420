import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';

interface MediaType {
  schema?: object;
}
interface Operation {
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType>; headers?: Record<string, { schema?: object; description?: string }> }>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: object;
}

/**
 * What a validating proxy in front of the server checks: the answer to an operation of the
 * OpenAPI document has a status the operation lists, the headers it lists for that status, and a
 * body its schema for that status accepts (none where it lists no content). Requests that match no operation (an unknown path or
 * method) are the not-found handler's and are left alone.
 */
export function documentedAnswers(doc: OpenApiDocument): (res: LightMyRequestResponse) => string | null {
  // strict: false, since the schemas carry OpenAPI's own words (`nullable`, response descriptions).
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // The schemas point into the document (`#/components/schemas/…`): each is compiled against it.
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  const validators = new Map<string, ValidateFunction>();
  const pointer = (...parts: string[]) => parts.map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

  const operations = Object.entries(doc.paths).map(([path, methods]) => ({
    path,
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    methods,
  }));

  return (res) => {
    const { method, url } = res.raw.req;
    const path = (url ?? '').split('?')[0]!;
    // Fastify answers HEAD for every GET route; its status is the GET's.
    const verb = method === 'HEAD' ? 'get' : (method ?? '').toLowerCase();
    const entry = operations.find((op) => op.pattern.test(path) && op.methods[verb]);
    if (!entry) return null;
    const where = `${method} ${path} answered ${res.statusCode}`;
    const response = entry.methods[verb]!.responses?.[String(res.statusCode)];
    if (!response) return `${where}, a status the document does not list for ${verb.toUpperCase()} ${entry.path}: ${res.body.slice(0, 200)}`;
    // A header the document promises for this status (Retry-After on 429, WWW-Authenticate on 401) is sent.
    const missing = Object.keys(response.headers ?? {}).find((name) => res.headers[name.toLowerCase()] === undefined);
    if (missing) return `${where} without the ${missing} header the document lists`;
    if (method === 'HEAD') return null;
    const media = Object.keys(response.content ?? {});
    if (media.length === 0) return res.body === '' ? null : `${where} with a body where the document has none: ${res.body.slice(0, 200)}`;
    const type = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (!media.includes(type)) return `${where} as "${type}", not ${media.join(' or ')}`;
    if (type !== 'application/json') return null;
    const key = pointer(entry.path, verb, 'responses', String(res.statusCode), 'content', type, 'schema');
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi.json#/paths/${key}` });
      validators.set(key, validate);
    }
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      return `${where} with a body that is not JSON: ${res.body.slice(0, 200)}`;
    }
    if (validate(body)) return null;
    return `${where} with a body the document's schema refuses (${ajv.errorsText(validate.errors)}): ${res.body.slice(0, 200)}`;
  };
}
