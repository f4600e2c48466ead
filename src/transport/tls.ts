/**
 * HTTPS for `serve --http` (spec/http.md, TLS): the certificate chain and private key a person
 * gives with --tls-cert and --tls-key, read once at start and checked to belong together, so a
 * wrong file is said at start rather than at each client's handshake. Never logs the key.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';

export interface TlsFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** A certificate or key that cannot be used, said in one line. */
export class TlsError extends Error {
  override readonly name = 'TlsError';
}

function read(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new TlsError(`cannot read ${flag} ${path}: ${code}`);
  }
}

/** Reads both files (PEM) and checks that the key is the certificate's; TlsError when not. */
export function loadTlsFiles(certPath: string, keyPath: string): TlsFiles {
  const files = { cert: read(certPath, '--tls-cert'), key: read(keyPath, '--tls-key') };
  try {
    createSecureContext(files);
  } catch (err) {
    // OpenSSL's reason (e.g. "key values mismatch", "no start line"), never the files' content.
    const reason = (err as { reason?: string }).reason ?? (err as Error).message.split('\n')[0];
    throw new TlsError(
      `cannot serve HTTPS with --tls-cert ${certPath} and --tls-key ${keyPath}: ${reason} (both must be PEM files, the key the certificate's)`,
    );
  }
  return files;
}
