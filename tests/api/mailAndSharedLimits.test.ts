import crypto from 'node:crypto';
import { SMTPServer } from 'smtp-server';
import Redis from 'ioredis';
import { buildApp } from '../../server/app';
import { LOGIN_LIMITS } from '../../server/routes/auth';
import { freePort } from '../helpers/server';
import { post, register, useTestApp } from '../helpers/testApp';

describe('mail over SMTP', () => {
  const received: string[] = [];
  let smtp: SMTPServer;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        let text = '';
        stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
        stream.on('end', () => {
          received.push(text);
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

  const ctx = useTestApp('sqlite', { realMailer: true });

  it('delivers the reset link through a real SMTP server, and the link works', async () => {
    // The port is only known after the SMTP server starts: point a second app at it.
    const app = await buildApp({
      config: { ...ctx.config, logLevel: 'silent', smtpUrl: `smtp://127.0.0.1:${port}` },
      database: ctx.app.database,
    });
    try {
      const { account } = await register(app);
      expect((await post(app, '/api/v1/auth/password-reset-request', { email: account.email })).statusCode).toBe(202);
      const resetMail = (m: string) => m.includes(account.email) && m.includes('Subject: Reset');
      for (let i = 0; i < 100 && !received.some(resetMail); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const mail = received.find(resetMail);
      expect(mail).toMatch(/Subject: Reset your SheetMind password/);
      const link = /(http:\/\/\S+reset-password\?token=\S+)/.exec(mail!.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[1];
      const token = new URL(link!).searchParams.get('token')!;
      const reset = await post(app, '/api/v1/auth/password-reset', { token, new_password: 'Via-smtp-secret-9' });
      expect(reset.statusCode).toBe(204);
      expect((await post(app, '/api/v1/auth/login/email', { email: account.email, password: 'Via-smtp-secret-9' })).statusCode).toBe(200);
      for (let i = 0; i < 100 && !received.some((m) => m.includes('password was changed')); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(received.filter((m) => m.includes(account.email)).map((m) => /Subject: (.*)/.exec(m)?.[1])).toEqual([
        'Verify your email address for SheetMind',
        'Reset your SheetMind password',
        'Your SheetMind password was changed',
      ]);
    } finally {
      await app.close();
    }
  });
});

describe('rate limits shared through Redis', () => {
  const prefix = `sheetmind-test-${crypto.randomBytes(4).toString('hex')}`;
  const ctx = useTestApp('sqlite', { env: { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: `${prefix}:` } });

  afterAll(async () => {
    const redis = new Redis('redis://127.0.0.1:6379');
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('counts a burst of guesses spread over two instances against one limit', async () => {
    const second = await buildApp({ config: { ...ctx.config, logLevel: 'silent' }, database: ctx.app.database });
    try {
      const { account } = await register(ctx.app, { email: `${prefix}@example.com` });
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          post(i % 2 === 0 ? ctx.app : second, '/api/v1/auth/login/email', { email: account.email, password: `Wrong-password-${i}` }),
        ),
      );
      const failed = answers.filter((answer) => answer.statusCode === 401).length;
      expect(failed).toBeGreaterThan(0);
      expect(failed).toBeLessThanOrEqual(LOGIN_LIMITS.account.max);
      expect(answers.filter((answer) => answer.statusCode === 429)).toHaveLength(60 - failed);
      for (const app of [ctx.app, second]) {
        const blocked = await post(app, '/api/v1/auth/login/email', { email: account.email, password: account.password });
        expect(blocked.statusCode).toBe(429);
        expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      }
    } finally {
      await second.close();
    }
  });
});
