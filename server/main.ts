import fs from 'node:fs';
import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';
import { startHealthPort, type HealthPort } from './healthPort';
import { apiSecurityHeaders } from './plugins/security';

/** Reads the configuration, starts the server, and shuts down gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  // A local .env (see .env.example) fills in what the environment does not set.
  if (fs.existsSync('.env')) process.loadEnvFile('.env');
  const config = loadConfig();
  let app;
  try {
    app = await buildApp({ config });
  } catch (error) {
    if (config.databaseUrl) {
      throw new ConfigError('DATABASE_URL', `cannot open the database (${describe(error)})`);
    }
    throw new ConfigError('DATA_DIR', `cannot open the database in ${config.dataDir} (${describe(error)})`);
  }
  let closing = false;
  let healthPort: HealthPort | undefined;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    // The liveness check stops first: a load balancer sends no more work while the rest drains.
    Promise.all([healthPort?.close(), app.close()]).then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  if (config.healthPort !== null) {
    const { connections } = config;
    try {
      healthPort = await startHealthPort(app.health, {
        host: config.host,
        port: config.healthPort,
        headers: apiSecurityHeaders(config.trustProxy !== false),
        keepAliveTimeoutMs: connections.keepAliveTimeoutMs,
        headersTimeoutMs: connections.headersTimeoutMs,
        requestTimeoutMs: connections.requestTimeoutMs,
        onError: (message) => app.log.error({ event: 'health_port.failed' }, `the health port's thread failed: ${message}`),
      });
    } catch (error) {
      await app.close();
      throw new ConfigError('HEALTH_PORT', `cannot listen on ${config.host}:${config.healthPort} (${describe(error)})`);
    }
    app.log.info({ port: healthPort.port }, `health check listening on port ${healthPort.port} (GET /api/v1/health)`);
  }
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await Promise.all([healthPort?.close(), app.close()]);
    throw new ConfigError('PORT', `cannot listen on ${config.host}:${config.port} (${describe(error)})`);
  }
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
    return `${error.code}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

main().catch((error: unknown) => {
  // One line, naming the variable at fault, and no stack: this is an operator's message.
  console.error(error instanceof ConfigError ? `Configuration error: ${error.message}` : `Failed to start: ${describe(error)}`);
  process.exit(1);
});
