import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { offlineProvider } from '../../server/ai/offline';
import { buildApp } from '../../server/app';
import { ConfigError, loadConfig } from '../../server/config';
import { teamOwner } from '../helpers/teams';
import { bearer, ENGINES, newAccount, post, register, useTestApp } from '../helpers/testApp';

/** Issue #19: what an attack on the running server found, each answered with a clear 4xx. */

// Seventy sign-ins at once hash seventy passwords: seconds on two busy cores.
jest.setTimeout(60_000);

const errorShape = (field?: string) => ({ error: { code: expect.any(String), message: expect.any(String), ...(field ? { field } : {}) } });

describe.each(ENGINES)('hostile input on %s', (engine) => {
  const ctx = useTestApp(engine);

  it('ends the session on a logout sent with Content-Type: application/json and no body', async () => {
    const { access_token } = await register(ctx.app);
    const logout = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { ...bearer(access_token), 'content-type': 'application/json' },
    });
    expect(logout.statusCode).toBe(204);
    const me = await ctx.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(access_token) });
    expect(me.statusCode).toBe(401);

    // Whatever the type says, an empty body on a call that takes none is no body.
    const other = await register(ctx.app);
    const plain = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { ...bearer(other.access_token), 'content-type': 'text/plain', 'content-length': '0' },
    });
    expect(plain.statusCode).toBe(204);
  });

  it('ends the session on a logout with an empty chunked body and no or a non-JSON Content-Type, and refuses a chunked text body', async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = ctx.app.server.address() as net.AddressInfo;
    /** One raw request (Node's clients choose the framing themselves); answers the status line's code. */
    const send = (token: string, headers: string, body: string) =>
      new Promise<number>((resolve, reject) => {
        const socket = net.connect({ port, host: '127.0.0.1' });
        let got = '';
        socket.on('data', (chunk: Buffer) => {
          got += chunk.toString();
          const status = /^HTTP\/1\.1 (\d{3})/.exec(got);
          if (status) {
            socket.destroy();
            resolve(Number(status[1]));
          }
        });
        socket.on('error', reject);
        socket.write(`POST /api/v1/auth/logout HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n${headers}Transfer-Encoding: chunked\r\n\r\n${body}`);
      });
    const alive = async (token: string) => (await ctx.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) })).statusCode === 200;
    for (const type of ['', 'Content-Type: text/plain\r\n', 'Content-Type: application/x-www-form-urlencoded\r\n', 'Content-Type: application/json\r\n']) {
      const { access_token } = await register(ctx.app);
      expect(await send(access_token, type, '0\r\n\r\n')).toBe(204);
      expect(await alive(access_token)).toBe(false);
    }
    const { access_token } = await register(ctx.app);
    expect(await send(access_token, 'Content-Type: text/plain\r\n', '3\r\nbye\r\n0\r\n\r\n')).toBe(415);
    expect(await alive(access_token)).toBe(true);
  });

  it('still refuses an empty or non-JSON body on a call that needs one', async () => {
    const empty = await ctx.app.inject({ method: 'POST', url: '/api/v1/auth/login/email', headers: { 'content-type': 'application/json' } });
    expect([empty.statusCode, empty.json()]).toEqual([400, { error: { code: 'invalid_json', message: expect.any(String) } }]);
    const text = await ctx.app.inject({ method: 'POST', url: '/api/v1/auth/login/email', headers: { 'content-type': 'text/plain' }, payload: 'hi' });
    expect([text.statusCode, text.json().error.code]).toEqual([415, 'unsupported_media_type']);
    const { access_token } = await register(ctx.app);
    const logoutWithText = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { ...bearer(access_token), 'content-type': 'text/plain' },
      payload: 'bye',
    });
    expect([logoutWithText.statusCode, logoutWithText.json().error.code]).toEqual([415, 'unsupported_media_type']);
    const proto = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login/email',
      headers: { 'content-type': 'application/json' },
      payload: '{"__proto__": {"admin": true}, "email": "a@b.co", "password": "x"}',
    });
    expect([proto.statusCode, proto.json()]).toEqual([400, errorShape()]);
  });

  it('answers a malformed address in the product shape', async () => {
    const answers = await Promise.all(['/api/v1/%zz', '/api/v1/health%', '/%E0%A4%A'].map((url) => ctx.app.inject({ method: 'GET', url })));
    for (const res of answers) expect([res.statusCode, res.json()]).toEqual([400, { error: { code: 'invalid_request', message: expect.any(String) } }]);
  });

  it('refuses NUL and other control characters in every text field with a 400 naming it', async () => {
    const { account, refresh_token, access_token } = await register(ctx.app);
    const cases: Array<[string, string, Record<string, unknown>, string, Record<string, string>?]> = [
      ['register', '/api/v1/auth/register', { ...newAccount(), email: 'nul\u0000@example.com' }, 'email'],
      ['register', '/api/v1/auth/register', { ...newAccount(), full_name: 'Ann\u0000' }, 'full_name'],
      ['register', '/api/v1/auth/register', { ...newAccount(), username: 'ann\u0000x' }, 'username'],
      ['register', '/api/v1/auth/register', { ...newAccount(), password: 'Tr0ub4dor&3\u0000xyz' }, 'password'],
      ['login', '/api/v1/auth/login/email', { email: `${account.email}\u0000`, password: account.password }, 'email'],
      ['login', '/api/v1/auth/login/email', { email: account.email, password: '\u0007' }, 'password'],
      ['reset request', '/api/v1/auth/password-reset-request', { email: `\u0000${account.email}` }, 'email'],
      ['reset', '/api/v1/auth/password-reset', { token: 'abc\u0000', new_password: 'Tr0ub4dor&3-new' }, 'token'],
      ['refresh', '/api/v1/auth/refresh', { refresh_token: `${refresh_token}\u0000` }, 'refresh_token'],
      ['query', '/api/v1/query', { task: 'ask', prompt: 'Sum of B\u0000?' }, 'prompt', bearer(access_token)],
      ['checkout', '/api/v1/subscription/checkout', { plan: 'team\u0000' }, 'plan', bearer(access_token)],
    ];
    const answers = await Promise.all(cases.map(([, url, body, , headers]) => post(ctx.app, url, body, headers)));
    answers.forEach((res, i) => {
      const [what, , , field] = cases[i]!;
      expect({ what, status: res.statusCode, body: res.json() }).toEqual({ what, status: 400, body: errorShape(field) });
    });
    expect(answers[0]!.json().error.message).toBe('The field "email" must not contain control characters.');
    // A prompt keeps its tabs and line breaks.
    const multiline = await post(ctx.app, '/api/v1/query', { task: 'ask', prompt: 'Line one\n\tLine two\r\n' }, bearer(access_token));
    expect(multiline.statusCode).toBe(200);
  });

  it('refuses bidi overrides, invisible and C1 control characters and separators in full_name, on register and on profile change', async () => {
    const { access_token } = await register(ctx.app);
    const bad = ['Ann\u202Egro', 'An\u200Bn', 'Ann\u0085', 'Ann\u2028Lee', '\uFEFFAnn', 'Ann\u2066x\u2069', 'Ann\u009B'];
    for (const fullName of bad) {
      const created = await post(ctx.app, '/api/v1/auth/register', newAccount({ full_name: fullName }));
      expect({ fullName, status: created.statusCode, body: created.json() }).toEqual({ fullName, status: 400, body: errorShape('full_name') });
      const changed = await ctx.app.inject({ method: 'PUT', url: '/api/v1/users/me', headers: bearer(access_token), payload: { full_name: fullName } });
      expect({ fullName, status: changed.statusCode, body: changed.json() }).toEqual({ fullName, status: 400, body: errorShape('full_name') });
    }
    // Joiners stay: Persian names and emoji sequences need them.
    const joined = await ctx.app.inject({ method: 'PUT', url: '/api/v1/users/me', headers: bearer(access_token), payload: { full_name: 'می\u200Cخواهم 👩\u200D💻' } });
    expect([joined.statusCode, joined.json().full_name]).toEqual([200, 'می\u200Cخواهم 👩\u200D💻']);
  });

  it('refuses an email with bidi, zero-width or full-width characters on every call that takes one, 400 naming the field, whether or not an account has it', async () => {
    const owner = await teamOwner(ctx);
    const known = await register(ctx.app);
    const [local, domain] = known.account.email.split('@');
    const tricky = [`${local}\u202E@${domain}`, `${local}\u200B@${domain}`, `\uFF41dmin@${domain}`, `${local}@${domain}\uFF0Ecom`, `${local}\u2066@${domain}`, `${local}\u00AD@${domain}`];
    const refusal = { error: { code: 'invalid_input', message: 'Email must not contain invisible, text-direction, full-width or other look-alike characters.', field: 'email' } };
    for (const email of tricky) {
      const answers = [
        await post(ctx.app, '/api/v1/auth/register', newAccount({ email })),
        await post(ctx.app, '/api/v1/auth/login/email', { email, password: known.account.password }),
        await post(ctx.app, '/api/v1/auth/password-reset-request', { email }),
        await post(ctx.app, '/api/v1/teams/me/invitations', { email, role: 'member' }, bearer(owner.access_token)),
      ];
      expect({ email, answers: answers.map((res) => [res.statusCode, res.json()]) }).toEqual({ email, answers: answers.map(() => [400, refusal]) });
    }
    // An address of no account is refused alike: the refusal tells nothing about accounts.
    const nobody = await post(ctx.app, '/api/v1/auth/login/email', { email: `nobody\u202E@${domain}`, password: 'x' });
    expect([nobody.statusCode, nobody.json()]).toEqual([400, refusal]);
    // Letters of other scripts are not look-alikes of this kind.
    expect((await post(ctx.app, '/api/v1/auth/register', newAccount({ email: `jos\u00e9.${local}@${domain}` }))).statusCode).toBe(201);
  });

  it('refuses a lone surrogate in full_name (it would come back as replacement characters)', async () => {
    const account = newAccount();
    const json = JSON.stringify({ ...account, full_name: 'ANAME' }).replace('ANAME', 'Ann \\ud800 Lee');
    const res = await ctx.app.inject({ method: 'POST', url: '/api/v1/auth/register', headers: { 'content-type': 'application/json' }, payload: json });
    expect([res.statusCode, res.json()]).toEqual([400, errorShape('full_name')]);
  });

  it('stores full_name in NFC and counts its 100 characters in code points', async () => {
    // 100 "é" typed as e + combining acute: 200 code points before NFC, 100 after.
    const decomposed = 'e\u0301'.repeat(100);
    const res = await post(ctx.app, '/api/v1/auth/register', newAccount({ full_name: decomposed }));
    expect(res.statusCode).toBe(201);
    expect(res.json().user.full_name).toBe('\u00e9'.repeat(100));
    const { access_token } = res.json();
    const me = await ctx.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(access_token) });
    expect(me.json().full_name).toBe('\u00e9'.repeat(100));
    // 100 emoji are 200 UTF-16 units but 100 characters.
    const emoji = await ctx.app.inject({ method: 'PUT', url: '/api/v1/users/me', headers: bearer(access_token), payload: { full_name: '😀'.repeat(100) } });
    expect([emoji.statusCode, emoji.json().full_name]).toEqual([200, '😀'.repeat(100)]);
    const over = await ctx.app.inject({ method: 'PUT', url: '/api/v1/users/me', headers: bearer(access_token), payload: { full_name: '😀'.repeat(101) } });
    expect([over.statusCode, over.json()]).toEqual([400, errorShape('full_name')]);
  });

  it('answers a query with 130,000 empty rows, or rows and columns past the bounds, with a 4xx', async () => {
    const { access_token } = await register(ctx.app);
    const bodies = [
      { task: 'analyze', prompt: 'Describe', data: Array.from({ length: 130_000 }, () => []) },
      { task: 'analyze', prompt: 'Describe', data: [Array(10_001).fill(null)] },
      { task: 'analyze', prompt: 'Describe', data: [...Array.from({ length: 9_999 }, () => []), [1, 2]] },
    ];
    const answers = await Promise.all(bodies.map((body) => post(ctx.app, '/api/v1/query', body, bearer(access_token))));
    for (const res of answers) expect([res.statusCode, res.json()]).toEqual([413, errorShape('data')]);
  });
});

describe('offline provider on a table of many rows', () => {
  it('describes 200,000 empty rows without overflowing the stack', async () => {
    const provider = offlineProvider();
    const request = { task: 'analyze' as const, prompt: 'Describe', data: Array.from({ length: 200_000 }, () => []) };
    const answer = await provider.answer(request, provider.maxCompletionTokens(request));
    expect(answer.answer).toMatch(/nothing to analyse/);
    const formula = { task: 'formula' as const, prompt: 'Sum', data: Array.from({ length: 200_000 }, () => [1]) };
    expect((await provider.answer(formula, 1000)).answer).toContain('200000 rows × 1 column');
  });
});

describe('connection bounds', () => {
  it('default to bounded values and refuse what Node would refuse or no number', () => {
    expect(loadConfig({}).connections).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 10_000, maxConnectionsPerAddress: 256 });
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' })).toThrow('HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS');
    for (const [name, value] of [['REQUEST_TIMEOUT_MS', '0'], ['MAX_CONNECTIONS', 'many'], ['KEEP_ALIVE_TIMEOUT_MS', '-1']] as const) {
      expect(() => loadConfig({ [name]: value })).toThrow(`${name}: must be a whole number`);
    }
  });
});

describe('TRUST_PROXY', () => {
  it('reads true as one proxy, a count of hops, or proxy addresses and CIDRs, and refuses anything else', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1, loopback' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'loopback']);
    for (const bad of ['everyone', '10.0.0.0/33', '300.1.1.1', '11']) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(ConfigError);
    }
  });

  describe.each(['true', '127.0.0.1'])('set to %s behind an appending proxy', (trust) => {
    const ctx = useTestApp('sqlite', { env: { TRUST_PROXY: trust } });

    it('limits sign-ins by the address the proxy saw, whatever the client wrote into X-Forwarded-For', async () => {
      // The client writes a new address each time; the proxy (127.0.0.1, inject's peer) appends the real one.
      // Seven rounds of ten at once: what is tested is whose address counts, not the race.
      const attempts = [];
      for (let round = 0; round < 7; round++) {
        attempts.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, (_, j) =>
              post(ctx.app, '/api/v1/auth/login/email', { email: `nobody${round * 10 + j}@example.com`, password: 'wrong-password' }, {
                'x-forwarded-for': `198.51.100.${round * 10 + j}, 203.0.113.7`,
              }),
            ),
          )),
        );
      }
      const statuses = attempts.map((res) => res.statusCode);
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
      expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
      // Another client behind the same proxy is not locked out by the first one.
      const other = await post(ctx.app, '/api/v1/auth/login/email', { email: 'someone@example.com', password: 'wrong-password' }, {
        'x-forwarded-for': '203.0.113.8',
      });
      expect(other.statusCode).toBe(401);
    });
  });
});

describe('files of the SQLite database and the outbox', () => {
  it('are readable by the server user only: folder 0700, files 0600', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-modes-'));
    const dataDir = path.join(root, 'data');
    const app = await buildApp({ config: loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, WEB_DIR: path.join(root, 'no-web') }) });
    try {
      const { account } = await register(app);
      expect((await post(app, '/api/v1/auth/password-reset-request', { email: account.email })).statusCode).toBe(202);
      const outbox = path.join(dataDir, 'outbox');
      // Two mails: the verification link of registering, and the reset link.
      for (let i = 0; i < 100 && !(fs.existsSync(outbox) && fs.readdirSync(outbox).length > 1); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);
      const mails = fs.readdirSync(outbox).map((name) => path.join(outbox, name));
      expect(mails.length).toBe(2);
      const files = ['sheetmind.db', 'sheetmind.db-wal', 'sheetmind.db-shm'].map((name) => path.join(dataDir, name));
      expect([dataDir, outbox, ...files, ...mails].map((file) => [path.basename(file), mode(file)])).toEqual([
        ['data', '700'],
        ['outbox', '700'],
        ...files.map((file) => [path.basename(file), '600']),
        ...mails.map((file) => [path.basename(file), '600']),
      ]);
    } finally {
      await app.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('narrows the files an older version left readable to all', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-modes-'));
    const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: root, WEB_DIR: path.join(root, 'no-web') });
    fs.writeFileSync(path.join(root, 'sheetmind.db'), '');
    fs.chmodSync(path.join(root, 'sheetmind.db'), 0o644);
    const app = await buildApp({ config });
    try {
      expect((fs.statSync(path.join(root, 'sheetmind.db')).mode & 0o777).toString(8)).toBe('600');
    } finally {
      await app.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
