/**
 * MCP resources: the session list (agent-tty://sessions, JSON) and each session's live screen
 * (agent-tty://sessions/{id}/screen, the readable text of a snapshot). Clients may subscribe:
 * a screen's update notification is sent when it changes, at most every UPDATE_MS, and the list's
 * when sessions come and go.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { formatSnapshot } from './render/format.js';
import type { SessionRegistry } from './session/registry.js';

const SESSIONS_URI = 'agent-tty://sessions';
const SCREEN_URI = /^agent-tty:\/\/sessions\/([^/]+)\/screen$/;
/** Shortest interval between two update notifications of one resource. */
const UPDATE_MS = 250;

const screenUri = (sessionId: string) => `agent-tty://sessions/${sessionId}/screen`;

export function registerResources(server: Server, registry: SessionRegistry): () => void {
  const subscriptions = new Map<string, () => void>();

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [
      {
        uri: SESSIONS_URI,
        name: 'sessions',
        title: 'Terminal sessions',
        description: 'Every retained terminal session with its status (the terminal_list result).',
        mimeType: 'application/json',
      },
      ...registry.list().map((s) => ({
        uri: screenUri(s.sessionId),
        name: `${s.sessionId} screen`,
        title: `Screen of ${s.sessionId}`,
        description: `Live screen of ${s.command ?? 'an interactive shell'} (${s.status}).`,
        mimeType: 'text/plain',
      })),
    ],
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: 'agent-tty://sessions/{sessionId}/screen',
        name: 'screen',
        title: 'Terminal screen',
        description: 'The live screen of a terminal session, as readable text.',
        mimeType: 'text/plain',
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    if (uri === SESSIONS_URI) {
      const sessions = registry.list();
      return {
        contents: [
          { uri, mimeType: 'application/json', text: JSON.stringify({ sessions }, null, 2) },
        ],
      };
    }
    const session = sessionOf(uri);
    const snapshot = session.snapshot('none');
    return {
      contents: [{ uri, mimeType: 'text/plain', text: formatSnapshot(session.id, snapshot) }],
    };
  });

  const sessionOf = (uri: string) => {
    const id = SCREEN_URI.exec(uri)?.[1];
    const session = id === undefined ? undefined : registry.find(id);
    if (!session) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `no such resource ${uri}; resources/list shows the sessions' screens`,
      );
    }
    return session;
  };

  const notifier = (uri: string) => {
    let last = 0;
    let timer: NodeJS.Timeout | undefined;
    const send = () => {
      timer = undefined;
      last = performance.now();
      server.sendResourceUpdated({ uri }).catch(() => undefined);
    };
    return {
      changed() {
        if (timer) return;
        timer = setTimeout(send, Math.max(0, last + UPDATE_MS - performance.now()));
        timer.unref();
      },
      stop() {
        clearTimeout(timer);
      },
    };
  };

  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    if (subscriptions.has(uri)) return {};
    const notify = notifier(uri);
    const off =
      uri === SESSIONS_URI
        ? registry.onChange(() => notify.changed())
        : sessionOf(uri).subscribe(() => notify.changed());
    subscriptions.set(uri, () => {
      off();
      notify.stop();
    });
    return {};
  });

  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.get(request.params.uri)?.();
    subscriptions.delete(request.params.uri);
    return {};
  });

  const offList = registry.onChange(() => {
    server.sendResourceListChanged().catch(() => undefined);
  });
  return () => {
    offList();
    for (const stop of subscriptions.values()) stop();
    subscriptions.clear();
  };
}
