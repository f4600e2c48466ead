/**
 * The `agent-tty test` command line: run scripts (exit 0 when all pass, 1 otherwise), optionally
 * writing JUnit XML (a new report file is 0600), or print a script skeleton made from a recording.
 */
import type { Config } from '../shared/config.js';
import { writeUserFile } from '../shared/private-files.js';
import { recordingToTest } from './recording-to-test.js';
import { junitReport, runTestFile, textReport } from './test-runner.js';

const TEST_USAGE = [
  'Usage: agent-tty test [--junit FILE] SCRIPT.json...',
  '       agent-tty test --from-recording RECORDING.cast > SCRIPT.json',
  '',
  'Runs test scripts in real terminals with no model in the loop (see spec/testing.md).',
].join('\n');

/** Returns the process exit code. */
export async function runTestCommand(argv: readonly string[], config: Config): Promise<number> {
  const files: string[] = [];
  let junit: string | undefined;
  let recording: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--junit') junit = argv[++i];
    else if (arg === '--from-recording') recording = argv[++i];
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${TEST_USAGE}\n`);
      return 0;
    } else if (arg.startsWith('-')) {
      process.stderr.write(`agent-tty test: unknown option ${arg}\n${TEST_USAGE}\n`);
      return 2;
    } else files.push(arg);
  }
  if (recording !== undefined) {
    process.stdout.write(`${JSON.stringify(await recordingToTest(recording), null, 2)}\n`);
    return 0;
  }
  if (files.length === 0 || (junit !== undefined && junit === '')) {
    process.stderr.write(`${TEST_USAGE}\n`);
    return 2;
  }
  const results = [];
  for (const file of files) results.push(await runTestFile(file, config));
  process.stdout.write(`${textReport(results)}\n`);
  if (junit) writeUserFile(junit, junitReport(results));
  return results.every((r) => r.passed) ? 0 : 1;
}
