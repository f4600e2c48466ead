/**
 * The running server: a session registry and the MCP server on stdio, plus everything that ends
 * it. stdin EOF, SIGINT, SIGTERM, SIGHUP, a broken stdout and a closed transport each close
 * every session and resolve with the exit code; main.ts then exits. Nothing outlives it: if
 * closing takes too long, or the process exits another way, every session's processes are
 * killed synchronously.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import { spawnPty } from './pty/spawn.js';
import { killSessionsSync, terminateSession } from './pty/terminate.js';
import { createServer } from './server.js';
import { SessionRegistry } from './session/registry.js';

/** Shutdown closes sessions gracefully for this long, then kills what is left. */
const SHUTDOWN_GRACE_MS = 700;

export async function serve(config: Config, logger: Logger): Promise<number> {
  const registry = new SessionRegistry(
    { maxSessions: config.maxSessions, scrollbackLines: config.scrollbackLines },
    {
      spawn: spawnPty,
      terminate: terminateSession,
      terminateOptions: {
        hangupGraceMs: config.hangupGraceMs,
        termGraceMs: config.termGraceMs,
        killGraceMs: 1000,
      },
      logger,
    },
  );
  const server = createServer({
    registry,
    config,
    logger,
    launchDefaults: { env: process.env, cwd: process.cwd() },
  });
  const transport = new StdioServerTransport();

  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let shuttingDown = false;
  const shutdown = (reason: string, code = 0) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info(`shutting down: ${reason}`);
    const timer = setTimeout(() => {
      logger.warn('sessions did not close in time; killing their processes');
      killSessionsSync(registry.pids());
      finish(code);
    }, SHUTDOWN_GRACE_MS);
    void registry
      .closeAll()
      .catch((err: unknown) => logger.error(`closing sessions failed: ${String(err)}`))
      .then(() => server.close().catch(() => undefined))
      .then(() => {
        clearTimeout(timer);
        finish(code);
      });
  };

  process.on('exit', () => killSessionsSync(registry.pids()));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => shutdown(`received ${signal}`));
  }
  process.stdin.on('end', () => shutdown('stdin closed'));
  process.stdin.on('close', () => shutdown('stdin closed'));
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    shutdown(`stdout failed (${err.code ?? err.message})`);
  });
  transport.onclose = () => shutdown('transport closed');
  transport.onerror = (err) => logger.warn(`transport error: ${err.message}`);

  await server.connect(transport);
  logger.info(`ready (pid ${process.pid})`);
  return finished;
}
