/**
 * Reads an HTTP request's body whole, within a bound (spec/http.md, Bounds): a declared or
 * streamed length above it stops the read at once, so no more than the bound is ever held.
 */
import type { IncomingMessage } from 'node:http';

export type BodyRead =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly reason: 'too-large' | 'aborted' };

export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return Promise.resolve({ ok: false, reason: 'too-large' });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const done = (result: BodyRead) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        chunks.length = 0;
        req.pause();
        done({ ok: false, reason: 'too-large' });
      } else chunks.push(chunk);
    };
    const onEnd = () => done({ ok: true, text: Buffer.concat(chunks).toString('utf8') });
    const onAbort = () => done({ ok: false, reason: 'aborted' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onAbort);
  });
}
