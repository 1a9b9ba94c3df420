import { invitationToken, teamOwner } from '../helpers/teams';
import { ENGINES, bearer, post, register, useTestApp } from '../helpers/testApp';

/** Issue 33, finding 12: no secret a link carries reaches the request log, in its path or its query. */
describe.each(ENGINES)('secrets in logged URLs on %s', (engine) => {
  const ctx = useTestApp(engine);

  it('logs invitation and device sign-in links without their tokens and codes (reset links: accounts.test.ts)', async () => {
    const owner = await teamOwner(ctx);
    const invited = await register(ctx.app);
    expect((await post(ctx.app, '/api/v1/teams/me/invitations', { email: invited.account.email, role: 'member' }, bearer(owner.access_token))).statusCode).toBe(201);
    const token = await invitationToken(ctx, invited.account.email);
    expect((await ctx.app.inject({ method: 'GET', url: `/invite/${token}` })).statusCode).toBeLessThan(500);
    expect((await ctx.app.inject({ method: 'GET', url: `/api/v1/invitations/${token}` })).statusCode).toBe(200);
    expect((await post(ctx.app, `/api/v1/invitations/${token}/accept`, {}, bearer(invited.access_token))).statusCode).toBe(200);

    const device = (await post(ctx.app, '/api/v1/oauth/device_authorization', { client_id: 'sheetmind-addon' })).json();
    await ctx.app.inject({ method: 'GET', url: new URL(device.verification_uri_complete).pathname + new URL(device.verification_uri_complete).search });
    await post(ctx.app, '/api/v1/oauth/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code, client_id: 'sheetmind-addon' });

    const logs = ctx.logs();
    expect(logs).toContain('"url":"/api/v1/invitations/[redacted]/accept"');
    expect(logs).toContain('"url":"/invite/[redacted]"');
    for (const secret of [token, device.device_code, device.user_code, device.user_code.replace('-', '')]) expect(logs).not.toContain(secret);
  });
});
