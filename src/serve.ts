/**
 * The running server: a session registry and the MCP server on stdio, or on HTTP (serve-http.ts),
 * plus everything that ends it. SIGTERM and the other signals signals.ts lists, and on stdio
 * stdin EOF, a broken stdout and a closed transport, each close every session and resolve with
 * the exit code; main.ts then exits. Nothing outlives it: if closing takes too long, or the
 * process exits another way, every session's processes are killed synchronously. The attach
 * socket (attach/attach-server.ts) is told first and removed on every way out.
 */
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttachServer } from './attach/attach-server.js';
import { socketDir } from './attach/socket-dir.js';
import { closeSharedMatchPool } from './match/match-pool.js';
import { ptyUnavailableError } from './pty/pty-unavailable.js';
import { killSessionsSync, SYNC_SWEEP_MS } from './pty/terminate.js';
import type { HttpSetup } from './serve-http.js';
import { createServer, type ServerDeps } from './server.js';
import { type SessionFactory, SessionRegistry } from './session/registry.js';
import type { Config } from './shared/config.js';
import type { Logger } from './shared/log.js';
import { shutdownSignals } from './signals.js';
import { StdioTransport } from './transport/stdio-transport.js';

/** Where the MCP server meets its clients: stdio, or HTTP (serve-http.ts). */
export interface Front {
  /** The name the client gave at initialize (the latest one's, over HTTP), for attach listings. */
  clientName(): string;
  /** Stops taking requests and ends the connection(s). */
  close(): Promise<void>;
}

/** After start-up, when to load the emulator and PTY code if no terminal has needed it yet. */
const WARM_UP_DELAY_MS = 500;
/** Shutdown closes sessions gracefully for this long, then kills what is left. */
const SHUTDOWN_GRACE_MS = 700;

export async function serve(
  config: Config,
  logger: Logger,
  http?: HttpSetup,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  // The emulator and PTY code load with the first terminal_start (or shortly after start-up),
  // so the handshake is answered without them.
  let runtime: Promise<SessionFactory> | undefined;
  const loadRuntime = () => {
    // A runtime that cannot load (node-pty's native module missing or built for another Node)
    // fails every start with SPAWN_FAILED naming the fix; the server itself stays up.
    runtime ??= import('./session/session-factory.js').then(
      (m) => m.createSessionFactory(config, logger),
      (err: unknown) => {
        throw ptyUnavailableError(err);
      },
    );
    return runtime;
  };
  const registry = new SessionRegistry(
    {
      maxSessions: config.maxSessions,
      scrollbackLines: config.scrollbackLines,
      transcriptBytes: config.transcriptBytes,
      recordDir: config.recordDir,
      defaultRecordDir: join(homedir(), '.agent-tty', 'recordings'),
      idleTimeoutMs: config.idleTimeoutMs,
    },
    async (spec) => (await loadRuntime())(spec),
  );
  let attach: AttachServer | undefined;
  const deps: ServerDeps = {
    registry,
    config,
    logger,
    launchDefaults: { env, cwd: process.cwd() },
    attachCommand: (sessionId) => attach?.command(sessionId),
  };
  let front: Front | undefined;

  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const killRemaining = () => {
    const survivors = killSessionsSync(registry.terminals());
    if (survivors.length > 0) {
      logger.error(
        `${survivors.length} process(es) still running after ${SYNC_SWEEP_MS} ms of killing: ${survivors.join(', ')}`,
      );
    }
    // Closing has not finished (or the process is exiting): the sessions' private directories,
    // which hold the commands typed in their shells, go now, after their processes.
    registry.removePrivateFiles();
  };
  let shuttingDown = false;
  const shutdown = (reason: string, code = 0) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info(`shutting down: ${reason}`);
    // A pattern still running in a worker would compete with closing for the CPU.
    closeSharedMatchPool();
    const timer = setTimeout(() => {
      logger.warn('sessions did not close in time; killing their processes');
      killRemaining();
      finish(code);
    }, SHUTDOWN_GRACE_MS);
    void (attach?.close() ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => registry.closeAll())
      .catch((err: unknown) => logger.error(`closing sessions failed: ${String(err)}`))
      .then(() => front?.close().catch(() => undefined))
      .then(() => {
        clearTimeout(timer);
        finish(code);
      });
  };

  process.on('exit', () => {
    attach?.removeSocketSync();
    killRemaining();
  });
  for (const signal of shutdownSignals()) {
    process.on(signal, () => shutdown(`received ${signal}`));
  }
  if (http) {
    const { startHttpFront } = await import('./serve-http.js');
    try {
      front = await startHttpFront(http, deps);
    } catch (err) {
      logger.error(`cannot serve HTTP: ${(err as Error).message}`);
      shutdown('the HTTP listener failed', 1);
      return finished;
    }
  } else {
    front = await startStdioFront(deps, shutdown);
  }
  logger.info(`ready (pid ${process.pid})`);
  if (config.attach) {
    void import('./attach/attach-server.js')
      .then(({ AttachServer }) =>
        AttachServer.listen({
          registry,
          logger,
          dir: socketDir(process.env),
          clientName: () => front?.clientName() ?? '',
        }),
      )
      .then((listening) => {
        if (shuttingDown) void listening.close();
        else attach = listening;
      })
      .catch((err: unknown) =>
        logger.warn(`agent-tty attach is off for this server: ${(err as Error).message}`),
      );
  }
  // Check node-pty now (a native module): a broken install is logged at once, and every
  // terminal_start then says what failed and how to fix it. Then warm the rest when the client is
  // likely done with its handshake.
  setImmediate(() => {
    import('./pty/spawn.js')
      .then((pty) => pty.checkNativePty())
      .catch((err: unknown) => logger.error(ptyUnavailableError(err).message));
  });
  setTimeout(() => void loadRuntime().catch(() => undefined), WARM_UP_DELAY_MS).unref();
  // Private directories left by a server that was killed outright (it could not remove them).
  setTimeout(() => {
    void Promise.all([import('./session/private-dirs.js'), import('./session/transcript-files.js')])
      .then(([m, t]) => {
        const removed = m.removeOrphanedPrivateDirs();
        // Transcripts may live elsewhere (--transcript-dir, or /var/tmp where /tmp is in memory).
        const transcripts = config.transcriptDir || t.defaultTranscriptDir();
        if (transcripts !== tmpdir()) removed.push(...m.removeOrphanedPrivateDirs(transcripts));
        if (removed.length > 0) {
          logger.info(`removed ${removed.length} private directories of servers that are gone`);
        }
      })
      .catch(() => undefined);
  }, WARM_UP_DELAY_MS).unref();
  return finished;
}

/** The MCP server on stdin and stdout; stdin's end, a broken stdout or a closed transport shut down. */
async function startStdioFront(
  deps: ServerDeps,
  shutdown: (reason: string) => void,
): Promise<Front> {
  const server = createServer(deps);
  const transport = new StdioTransport(process.stdin, process.stdout);
  process.stdin.on('end', () => shutdown('stdin closed'));
  process.stdin.on('close', () => shutdown('stdin closed'));
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    shutdown(`stdout failed (${err.code ?? err.message})`);
  });
  transport.onclose = () => shutdown('transport closed');
  transport.onerror = (err) => deps.logger.warn(`transport error: ${err.message}`);
  await server.connect(transport);
  return {
    clientName: () => server.getClientVersion()?.name ?? '',
    close: () => server.close(),
  };
}
