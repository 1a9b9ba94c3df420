import fs from 'node:fs';
import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';

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
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
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
