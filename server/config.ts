import net from 'node:net';
import path from 'node:path';
import { defaultRuntimeConfig as defaults, type RuntimeConfig } from '../contract/runtimeConfig';

/**
 * Every setting the server reads, parsed and validated once at start. A bad value throws a
 * ConfigError naming the variable, so `main.ts` can stop with a one-line message.
 *
 * Over 300 lines because it is the one list of every variable: its parse, its bound and its
 * message sit together, so a setting is read in one place (docs/configuration.md mirrors it).
 */
import type { InvitationMailLimits } from './domain/invitations';

export interface Config {
  port: number;
  host: string;
  /**
   * A second port, on `host`, that answers `GET /api/v1/health` from a thread of its own
   * (`server/healthPort.ts`): for a load balancer's liveness check, quick whatever the load on the
   * app's event loop. `null`: none.
   */
  healthPort: number | null;
  dataDir: string;
  /** `null` means the embedded SQLite file in `dataDir`. */
  databaseUrl: string | null;
  /** PostgreSQL connections of the pool (`DATABASE_POOL_SIZE`). */
  databasePoolSize: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Where the production SPA build lives; the server serves it with history fallback. */
  webDir: string;
  /** Origins allowed to call the API from a SPA hosted elsewhere (CORS). */
  corsOrigins: string[];
  /**
   * Which proxies in front of the server to believe about the client's address and protocol:
   * `false` none, a number of hops counted from the server, or the proxies' addresses and CIDRs.
   * Never the whole `X-Forwarded-For` header, whose left end the client writes itself.
   */
  trustProxy: false | number | string[];
  /** Bounds on what one connection may hold: slow or idle clients are cut, their number capped. */
  connections: ConnectionLimits;
  /** Public address of the web app, for links in e-mails. */
  publicUrl: string;
  /** Token-signing secret; `null` means one generated once and kept in the database. */
  authSecret: string | null;
  /**
   * The key second factors' secrets are encrypted with (32 bytes, hex); `null` means one generated
   * once into `dataDir/second-factor.key`. Not in the database: a copy of the database alone does
   * not give away the secrets.
   */
  secondFactorKey: string | null;
  /** `smtp://…` or `smtps://…`; `null` writes mail to `dataDir/outbox`. */
  smtpUrl: string | null;
  mailFrom: string;
  /** The durable mail queue's timings (server/mail/queue.ts). */
  mailQueue: MailQueueSettings;
  /** Shares rate-limit counters between instances; `null` keeps them in memory. */
  redisUrl: string | null;
  /** Start of every Redis key, so several deployments (or test runs) can share one Redis. */
  redisPrefix: string;
  /** Brand, mailboxes, links and API base, injected into the page for the SPA. */
  web: RuntimeConfig;
  /** Who takes payments: the built-in offline test mode, or Stripe. */
  billing: BillingConfig;
  /** The AI provider behind `POST /api/v1/query`. */
  ai: AiConfig;
  /** Device sign-in (RFC 8628) of the add-on. */
  device: DeviceConfig;
  /** argon2id's cost; lowered only by the test configuration, which hashes thousands of passwords. */
  passwordHashing: PasswordHashCost;
  /** How many invitation mails an address gets an hour and a team sends a day (`server/domain/invitations.ts`). */
  invitationMails: InvitationMailLimits;
  /** The retention job (`server/domain/retention.ts`, docs/retention.md). */
  retention: RetentionConfig;
}

export interface RetentionConfig {
  /** Whole UTC months of usage kept before the current one; at least 2, so the last 30 days always are. */
  months: number;
  /** How often each instance runs the job; 0: never. */
  intervalMinutes: number;
}

export interface MailQueueSettings {
  /** How often each instance looks for due mail it was not told about. */
  pollMs: number;
  /** How long a sender holds a mail before another may take it. */
  leaseMs: number;
  /** The first retry's wait; each later one doubles, up to an hour, for 24 hours. */
  retryMinMs: number;
}

export interface DeviceConfig {
  /** Known OAuth client ids and the names the approval page shows for them. */
  clients: Record<string, string>;
  /** How long a device code and its user code live. */
  codeTtlS: number;
  /** The polling interval a new device code starts with. */
  intervalS: number;
}

export interface PasswordHashCost {
  memoryKiB: number;
  passes: number;
}

export interface ConnectionLimits {
  /** Time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, headers and body: a body trickled slower is cut with a 408. */
  requestTimeoutMs: number;
  /** How long a kept-alive connection may sit idle between requests. */
  keepAliveTimeoutMs: number;
  /** Open connections one process takes; more are answered 503 and closed at once. */
  maxConnections: number;
  /** Open connections of one client network (an IPv4 address, an IPv6 /64); more are answered 429. 0: no such bound. Trusted proxies are exempt. */
  maxConnectionsPerAddress: number;
}

export interface AiConfig {
  /** `offline` answers from the data itself, with no network; `openai` calls an OpenAI-compatible endpoint. */
  provider: 'offline' | 'openai';
  /** Chat-completions base URL, e.g. `https://api.openai.com/v1` (openai only). */
  baseUrl: string | null;
  apiKey: string | null;
  model: string | null;
  /** Budget of one answer, retries included. */
  timeoutMs: number;
  /** The longest answer asked of the model, in tokens: the part of a query's reservation it may use. */
  maxCompletionTokens: number;
}

export type BillingConfig =
  | { provider: 'test' }
  | {
      provider: 'stripe';
      secretKey: string;
      webhookSecret: string;
      /** Stripe price ids of the paid plans: the only way a plan is derived from a payment. */
      prices: { professional: string; team: string };
      /** Where the SDK sends its calls instead of api.stripe.com (a local fake in tests). */
      apiBase: string | null;
      /** How long one call to Stripe may take, retries included, before it counts as an outage. */
      timeoutMs: number;
    };

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function str(env: Env, name: string, fallback: string): string {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? fallback : value;
}

function wholeNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function email(env: Env, name: string, fallback: string): string {
  const value = str(env, name, fallback);
  if (!EMAIL.test(value)) throw new ConfigError(name, `must be an e-mail address, got "${value}"`);
  return value;
}

function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const value = str(env, name, fallback);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${value}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return value;
}

/** Proxy names proxy-addr understands besides addresses and CIDRs. */
const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

function trustProxy(env: Env): Config['trustProxy'] {
  const raw = str(env, 'TRUST_PROXY', 'false').toLowerCase();
  if (['0', 'false', 'no'].includes(raw)) return false;
  // `true` once meant "believe every hop", which lets a client pick its own address; it now means
  // the one proxy in front of the server, the usual set-up.
  if (['true', 'yes'].includes(raw)) return 1;
  if (/^\d+$/.test(raw)) return wholeNumber(env, 'TRUST_PROXY', 1, 1, 10);
  const entries = raw.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = net.isIP(address ?? '');
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (PROXY_RANGES.includes(entry)) continue;
    if (family === 0 || !bitsOk || extra !== undefined) {
      throw new ConfigError(
        'TRUST_PROXY',
        `must be false, true (one proxy), a number of proxies, or proxy addresses/CIDRs separated by commas, got "${entry}"`,
      );
    }
  }
  return entries;
}

/**
 * Idle kept-alive connections: browsers reach a server directly for 5 s, as Node's own default, so
 * an idle client holds a place briefly; behind a proxy (TRUST_PROXY) longer than a load balancer's
 * usual 60 s, so the server never closes a connection the proxy is about to reuse.
 */
const KEEP_ALIVE_MS = { direct: 5_000, behindProxy: 72_000 };

function connectionLimits(env: Env, behindProxy: boolean): ConnectionLimits {
  const limits = {
    headersTimeoutMs: wholeNumber(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 300_000),
    requestTimeoutMs: wholeNumber(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    keepAliveTimeoutMs: wholeNumber(env, 'KEEP_ALIVE_TIMEOUT_MS', behindProxy ? KEEP_ALIVE_MS.behindProxy : KEEP_ALIVE_MS.direct, 100, 600_000),
    maxConnections: wholeNumber(env, 'MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    // A household or an office behind one address holds a few connections per browser; a tenth of
    // the default cap needs many networks to fill the rest.
    maxConnectionsPerAddress: wholeNumber(env, 'MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000),
  };
  // Node refuses a headers timeout longer than the whole request's.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError('HEADERS_TIMEOUT_MS', `must not exceed REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs})`);
  }
  return limits;
}

function required(env: Env, name: string, prefixes: string[], why: string): string {
  const value = str(env, name, '');
  if (value === '') throw new ConfigError(name, `is required when PAYMENT_PROVIDER=stripe (${why})`);
  if (!prefixes.some((prefix) => value.startsWith(prefix))) {
    throw new ConfigError(name, `must start with ${prefixes.join(' or ')}`);
  }
  return value;
}

function billing(env: Env): BillingConfig {
  const provider = str(env, 'PAYMENT_PROVIDER', 'test');
  if (provider === 'test') return { provider };
  if (provider !== 'stripe') throw new ConfigError('PAYMENT_PROVIDER', `must be test or stripe, got "${provider}"`);
  const prices = {
    professional: required(env, 'STRIPE_PRICE_PROFESSIONAL', ['price_'], 'the price id of the Professional plan'),
    team: required(env, 'STRIPE_PRICE_TEAM', ['price_'], 'the price id of the Team plan'),
  };
  if (prices.professional === prices.team) {
    throw new ConfigError('STRIPE_PRICE_TEAM', 'must differ from STRIPE_PRICE_PROFESSIONAL (the price decides the plan)');
  }
  return {
    provider,
    secretKey: required(env, 'STRIPE_SECRET_KEY', ['sk_', 'rk_'], 'the secret API key'),
    webhookSecret: required(env, 'STRIPE_WEBHOOK_SECRET', ['whsec_'], "the webhook endpoint's signing secret"),
    prices,
    apiBase: env.STRIPE_API_BASE?.trim() ? url(env, 'STRIPE_API_BASE', '', ['http:', 'https:']).replace(/\/+$/, '') : null,
    timeoutMs: wholeNumber(env, 'STRIPE_TIMEOUT_MS', 10_000, 100, 60_000),
  };
}

function aiConfig(env: Env): AiConfig {
  const baseUrl = env.LLM_BASE_URL?.trim() ? url(env, 'LLM_BASE_URL', '', ['http:', 'https:']).replace(/\/+$/, '') : null;
  const provider = str(env, 'AI_PROVIDER', baseUrl ? 'openai' : 'offline');
  if (provider !== 'offline' && provider !== 'openai') {
    throw new ConfigError('AI_PROVIDER', `must be offline or openai, got "${provider}"`);
  }
  const model = env.LLM_MODEL?.trim() || null;
  if (provider === 'openai') {
    if (!baseUrl) throw new ConfigError('LLM_BASE_URL', 'must be set when AI_PROVIDER is openai (e.g. https://api.openai.com/v1)');
    if (!model) throw new ConfigError('LLM_MODEL', 'must be set when AI_PROVIDER is openai (e.g. gpt-4o-mini)');
  }
  return {
    provider,
    baseUrl,
    apiKey: env.LLM_API_KEY?.trim() || null,
    model,
    timeoutMs: wholeNumber(env, 'LLM_TIMEOUT_MS', 30_000, 100, 600_000),
    maxCompletionTokens: wholeNumber(env, 'LLM_MAX_TOKENS', 1024, 16, 32_768),
  };
}

const CLIENT_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

function deviceConfig(env: Env, brandName: string): DeviceConfig {
  const raw = str(env, 'OAUTH_CLIENTS', `sheetmind-addon=${brandName} add-on`);
  const clients: Record<string, string> = {};
  for (const entry of raw.split(',').map((e) => e.trim()).filter(Boolean)) {
    const [id, ...name] = entry.split('=');
    const clientId = id!.trim();
    if (!CLIENT_ID.test(clientId) || name.join('=').trim() === '') {
      throw new ConfigError('OAUTH_CLIENTS', `each entry must be client-id=Name (the id in a-z 0-9 . _ -), got "${entry}"`);
    }
    clients[clientId] = name.join('=').trim();
  }
  return {
    clients,
    codeTtlS: wholeNumber(env, 'DEVICE_CODE_TTL_S', 900, 60, 3600),
    intervalS: wholeNumber(env, 'DEVICE_POLL_INTERVAL_S', 5, 1, 60),
  };
}

/**
 * OWASP's minimum for argon2id (19 MiB, 2 passes) unless PASSWORD_HASH_MEMORY_KIB and
 * PASSWORD_HASH_PASSES say otherwise. Also read by `domain/passwords.ts` when it first hashes, as
 * the hashing module is not handed the config.
 */
export function passwordHashCost(env: Env = process.env): PasswordHashCost {
  return {
    memoryKiB: wholeNumber(env, 'PASSWORD_HASH_MEMORY_KIB', 19_456, 8, 4_194_304),
    passes: wholeNumber(env, 'PASSWORD_HASH_PASSES', 2, 1, 100),
  };
}

/**
 * The address the server listens on, as a browser opens it (decisions.md, "PUBLIC_URL default"):
 * links in mails and checkout returns then land on the origin a person opened, where their tokens
 * are. Every interface (`0.0.0.0`, `::`) reads as localhost; an IPv6 address goes in brackets.
 */
export function listenAddress(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return `http://localhost:${port}`;
  return `http://${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const databaseUrl = env.DATABASE_URL?.trim()
    ? url(env, 'DATABASE_URL', '', ['postgres:', 'postgresql:'])
    : null;
  const logLevel = str(env, 'LOG_LEVEL', env.NODE_ENV === 'test' ? 'silent' : 'info');
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const apiBase = str(env, 'API_BASE', '');
  if (apiBase !== '') url(env, 'API_BASE', '', ['http:', 'https:']);
  const corsOrigins = str(env, 'CORS_ORIGINS', '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of corsOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new ConfigError('CORS_ORIGINS', `each origin must look like https://host[:port], got "${origin}"`);
    }
  }

  const listenPort = wholeNumber(env, 'PORT', 3000, 0, 65535);
  const listenHost = str(env, 'HOST', '0.0.0.0');
  const healthPort = env.HEALTH_PORT?.trim() ? wholeNumber(env, 'HEALTH_PORT', 0, 1, 65535) : null;
  if (healthPort !== null && healthPort === listenPort) {
    throw new ConfigError('HEALTH_PORT', `must differ from PORT (${listenPort}): the app listens there`);
  }
  const authSecret = env.AUTH_SECRET?.trim() || null;
  if (authSecret !== null && authSecret.length < 32) {
    throw new ConfigError('AUTH_SECRET', 'must be at least 32 characters (e.g. `openssl rand -hex 32`)');
  }
  const secondFactorKey = env.SECOND_FACTOR_KEY?.trim() || null;
  if (secondFactorKey !== null && !/^[0-9a-f]{64}$/i.test(secondFactorKey)) {
    throw new ConfigError('SECOND_FACTOR_KEY', 'must be 64 hexadecimal digits (32 bytes, e.g. `openssl rand -hex 32`)');
  }
  const brandName = str(env, 'BRAND_NAME', defaults.brandName);
  const supportEmail = email(env, 'SUPPORT_EMAIL', defaults.supportEmail);

  const proxies = trustProxy(env);
  return {
    port: listenPort,
    host: listenHost,
    healthPort,
    dataDir: path.resolve(cwd, str(env, 'DATA_DIR', 'data')),
    databaseUrl,
    databasePoolSize: wholeNumber(env, 'DATABASE_POOL_SIZE', 20, 1, 1000),
    logLevel: logLevel as Config['logLevel'],
    webDir: path.resolve(cwd, str(env, 'WEB_DIR', 'dist/web')),
    corsOrigins,
    trustProxy: proxies,
    connections: connectionLimits(env, proxies !== false),
    publicUrl: url(env, 'PUBLIC_URL', listenAddress(listenHost, listenPort), ['http:', 'https:']).replace(/\/+$/, ''),
    authSecret,
    secondFactorKey,
    smtpUrl: env.SMTP_URL?.trim() ? url(env, 'SMTP_URL', '', ['smtp:', 'smtps:']) : null,
    mailFrom: str(env, 'MAIL_FROM', `${brandName} <${supportEmail}>`),
    mailQueue: {
      pollMs: wholeNumber(env, 'MAIL_POLL_MS', 5_000, 10, 600_000),
      leaseMs: wholeNumber(env, 'MAIL_LEASE_MS', 120_000, 100, 3_600_000),
      retryMinMs: wholeNumber(env, 'MAIL_RETRY_MIN_MS', 30_000, 10, 3_600_000),
    },
    redisUrl: env.REDIS_URL?.trim() ? url(env, 'REDIS_URL', '', ['redis:', 'rediss:']) : null,
    redisPrefix: str(env, 'REDIS_PREFIX', 'sheetmind:'),
    web: {
      brandName,
      supportEmail,
      generalEmail: email(env, 'GENERAL_EMAIL', defaults.generalEmail),
      marketplaceUrl: url(env, 'MARKETPLACE_URL', defaults.marketplaceUrl, ['https:', 'http:']),
      spreadsheetAppUrl: url(env, 'SPREADSHEET_APP_URL', defaults.spreadsheetAppUrl, ['https:', 'http:']),
      apiBase,
    },
    billing: billing(env),
    ai: aiConfig(env),
    device: deviceConfig(env, brandName),
    passwordHashing: passwordHashCost(env),
    // Invitation mail is bounded like reset mail (decisions.md, "Team money and roles").
    invitationMails: {
      perAddressPerHour: wholeNumber(env, 'INVITATION_MAILS_PER_ADDRESS', 5, 1, 10_000),
      perTeamPerDay: wholeNumber(env, 'INVITATION_MAILS_PER_TEAM', 50, 1, 100_000),
    },
    retention: {
      months: wholeNumber(env, 'RETENTION_MONTHS', 13, 2, 1200),
      intervalMinutes: wholeNumber(env, 'RETENTION_INTERVAL_MINUTES', 60, 0, 10_080),
    },
  };
}
