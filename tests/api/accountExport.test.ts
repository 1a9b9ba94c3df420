import { sql } from 'kysely';
import { join, payFor, signIn, teamOwner } from '../helpers/teams';
import { ENGINES, bearer, post, register, useTestApp } from '../helpers/testApp';

/** A column that holds a person's id: who a row is about, who did it, who invited or pays. */
const USER_COLUMN = /^(user_id|.+_user_id|actor_id|target_id|invited_by)$/;

/** The fields of the document (but its list of tables) whose name says they hold a secret or its hash. */
function secretFields(doc: Record<string, unknown>): string[] {
  const found: string[] = [];
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (value !== null && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) {
        if (/_hash$|secret|^(key|password|access_token|refresh_token)$/.test(name)) found.push(`${path}.${name}`);
        walk(inner, `${path}.${name}`);
      }
    }
  };
  walk({ ...doc, tables: undefined }, '');
  return found;
}

/**
 * The account export (decisions.md, "Professional's promises"): every plan, a JSON file of
 * everything held about the person, no secret in it, at most once an hour.
 */
describe.each(ENGINES)('the account export on %s', (engine) => {
  const ctx = useTestApp(engine);
  const exportOf = (token: string) => ctx.app.inject({ method: 'GET', url: '/api/v1/users/me/export', headers: bearer(token) });

  it('names every table of the live database that holds a user id, and only tables that exist', async () => {
    const { db } = ctx.app.database;
    const columns =
      engine === 'sqlite'
        ? await sql<{ table_name: string; column_name: string }>`select m.name as table_name, p.name as column_name
            from sqlite_master m join pragma_table_info(m.name) p where m.type = 'table' and m.name not like 'sqlite_%' and m.name not like 'kysely_%'`.execute(db)
        : await sql<{ table_name: string; column_name: string }>`select table_name, column_name from information_schema.columns
            where table_schema = current_schema() and table_name not like 'kysely_%'`.execute(db);
    const tables = new Set(columns.rows.map((row) => row.table_name));
    const holding = new Set(['users', ...columns.rows.filter((row) => USER_COLUMN.test(row.column_name)).map((row) => row.table_name)]);
    // Read from the file a user downloads, not from the code.
    const person = await register(ctx.app);
    const named = Object.keys((await exportOf(person.access_token)).json().tables);
    expect([...holding].filter((table) => !named.includes(table))).toEqual([]);
    expect(named.filter((table) => !tables.has(table))).toEqual([]);
  });

  it('gives a Free account its profile, sessions, security status and usage, as an attachment with no secret in it', async () => {
    const person = await register(ctx.app);
    const query = await post(ctx.app, '/api/v1/query', { task: 'analyze', prompt: 'Sum it', data: [['x'], [1]] }, bearer(person.access_token));
    expect(query.statusCode).toBe(200);
    const res = await exportOf(person.access_token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="account-export-${new Date(ctx.clock.now()).toISOString().slice(0, 10)}.json"`);
    const doc = res.json();
    expect(doc).toMatchObject({
      format: 'account-export/1',
      exported_at: new Date(ctx.clock.now()).toISOString(),
      profile: { id: person.user.id, email: person.account.email, username: person.account.username, full_name: person.account.full_name, plan: 'free' },
      security: { two_factor: 'off', two_factor_since: null, recovery_codes_left: 0, passkeys: [], known_devices: [{ first_seen_at: new Date(ctx.clock.now()).toISOString() }] },
      sessions: [{ kind: 'web', revoked_at: null }],
      subscription: null,
      usage: { days: [{ date: new Date(ctx.clock.now()).toISOString().slice(0, 10), queries: 1, tokens: query.json().tokens.total }] },
      team: { membership: null },
    });
    for (const secret of [person.account.password, person.access_token, person.refresh_token]) expect(res.body).not.toContain(secret);
    expect(secretFields(doc)).toEqual([]);
  });

  it('holds a paying team admin’s keys (without the key), subscription, billing events, membership and the audit events about them', async () => {
    const owner = await teamOwner(ctx);
    const person = await register(ctx.app);
    await payFor(ctx, person, 'professional');
    await join(ctx, owner, person, 'admin');
    const created = await post(ctx.app, '/api/v1/api-keys', { name: 'Reporting', scopes: ['usage:read'] }, bearer(person.access_token));
    const key = created.json() as { id: string; key: string; prefix: string; last4: string };
    const saved = await post(ctx.app, '/api/v1/functions', { name: 'TEAM_TOTAL', task: 'analyze', prompt: 'Total {{input}}', description: 'Totals', scope: 'team' }, bearer(person.access_token));
    expect(saved.statusCode).toBe(201);
    await signIn(ctx, person);

    const res = await exportOf(person.access_token);
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.sessions).toHaveLength(2);
    expect(doc.api_keys).toEqual([expect.objectContaining({ id: key.id, name: 'Reporting', prefix: key.prefix, last4: key.last4, scopes: 'usage:read', revoked_at: null })]);
    expect(doc.custom_functions).toEqual([expect.objectContaining({ name: 'TEAM_TOTAL', scope: 'team', prompt: 'Total {{input}}' })]);
    expect(doc.subscription).toMatchObject({ plan: 'professional', status: 'active', provider: 'test' });
    expect(doc.billing_events.length).toBeGreaterThan(0);
    expect(doc.billing_pages).toEqual([expect.objectContaining({ kind: 'checkout', plan: 'professional' })]);
    expect(doc.profile.plan).toBe('team');
    expect(doc.team.membership).toMatchObject({ role: 'admin' });
    expect(doc.team.invitations_received).toEqual([expect.objectContaining({ role: 'admin', status: 'accepted', invited_by: owner.user.id })]);
    expect(doc.team.audit_events).toEqual(expect.arrayContaining([expect.objectContaining({ action: 'member.joined', target_id: person.user.id })]));
    expect(res.body).not.toContain(key.key);
    expect(secretFields(doc)).toEqual([]);

    // Not for a key: an account call (403 insufficient_scope).
    const byKey = await exportOf(key.key);
    expect([byKey.statusCode, byKey.json().error.code]).toEqual([403, 'insufficient_scope']);
  });

  it('answers at most once an hour: 429 with Retry-After until the hour has passed, for that account only', async () => {
    const person = await register(ctx.app);
    const other = await register(ctx.app);
    expect((await exportOf(person.access_token)).statusCode).toBe(200);
    ctx.clock.advance(59 * 60_000);
    await signIn(ctx, person);
    await signIn(ctx, other);
    const again = await exportOf(person.access_token);
    expect([again.statusCode, again.json().error.code, again.headers['retry-after']]).toEqual([429, 'rate_limited', '60']);
    expect((await exportOf(other.access_token)).statusCode).toBe(200);
    ctx.clock.advance(60_000);
    await signIn(ctx, person);
    expect((await exportOf(person.access_token)).statusCode).toBe(200);
  });
});
