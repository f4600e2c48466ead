/**
 * A normal (non-root) user for the tests that only mean something as one: password prompts of
 * set-user-ID programs (sudo, su, passwd), which root never sees and whose /proc entries a
 * normal user cannot read. Run as a normal user, the tests use that user; run as root, they use
 * AGENT_TTY_TEST_USER (created by .ci/run, with a sudo rule that asks for its password,
 * AGENT_TTY_TEST_PASSWORD) through runuser, and skip with the reason when there is none.
 */
import { execFileSync } from 'node:child_process';
import { SERVER } from './paths.js';
import { which } from './programs.js';

export interface TestUser {
  /** The user's name; undefined when the tests already run as a normal user. */
  readonly name: string | undefined;
  /** Its password, when known (the CI user's). */
  readonly password: string | undefined;
  /** The command line that starts a program as the user (empty: as ourselves). */
  readonly prefix: readonly string[];
}

function findTestUser(): TestUser | string {
  if (process.platform !== 'linux') return 'the password-prompt tests need Linux';
  if (process.getuid?.() !== 0) {
    return { name: undefined, password: process.env.AGENT_TTY_TEST_PASSWORD, prefix: [] };
  }
  const name = process.env.AGENT_TTY_TEST_USER;
  if (!name) return 'running as root without AGENT_TTY_TEST_USER (.ci/run creates one)';
  if (!which('runuser')) return 'runuser is not installed';
  const prefix = ['runuser', '-u', name, '--'];
  try {
    // The user must be able to run the built server from where it is.
    execFileSync(prefix[0] as string, [...prefix.slice(1), 'test', '-r', SERVER], {
      stdio: 'ignore',
    });
  } catch {
    return `user ${name} cannot read ${SERVER}`;
  }
  return { name, password: process.env.AGENT_TTY_TEST_PASSWORD, prefix };
}

const found = findTestUser();

/** The normal user, or undefined when there is none (see needsTestUser). */
export const testUser: TestUser | undefined = typeof found === 'string' ? undefined : found;

/** A node:test `skip` value: false when a normal user is available, else the reason. */
export const needsTestUser: string | false = typeof found === 'string' ? found : false;
