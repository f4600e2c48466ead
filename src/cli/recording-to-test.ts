/**
 * Turns an asciicast recording into a test script skeleton for `agent-tty test`: the recorded
 * command and size, each burst of input as text and key steps, a wait for what the screen showed
 * (the cursor's line; expected on its row when another row already shows it) before each burst
 * of input that follows output, resizes, an expectation of the final screen, and of the exit
 * when the recording marks one. The output is replayed through the same emulator to know what
 * the screen showed when.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { extractRowText } from '../screen/lines.js';
import { createTerminal, type Terminal } from '../screen/xterm.js';

/** Input events closer together than this are one burst. */
const BURST_MS = 300;

type Event = [number, string, string];

const KEYS: Record<string, { key: string; modifiers?: string[] }> = {
  '\r': { key: 'Enter' },
  '\t': { key: 'Tab' },
  '\x7f': { key: 'Backspace' },
  '\x1b': { key: 'Escape' },
  '\x1b[A': { key: 'Up' },
  '\x1b[B': { key: 'Down' },
  '\x1b[C': { key: 'Right' },
  '\x1b[D': { key: 'Left' },
  '\x1bOA': { key: 'Up' },
  '\x1bOB': { key: 'Down' },
  '\x1bOC': { key: 'Right' },
  '\x1bOD': { key: 'Left' },
};

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Splits typed input into text runs, named keys and Ctrl+letter keys, raw bytes otherwise. */
function inputSteps(data: string): Record<string, unknown>[] {
  const steps: Record<string, unknown>[] = [];
  let text = '';
  const flush = () => {
    if (text) steps.push({ type: 'text', text });
    text = '';
  };
  for (let i = 0; i < data.length; ) {
    const three = data.slice(i, i + 3);
    const special = KEYS[three] ? three : KEYS[data[i] as string] ? (data[i] as string) : undefined;
    if (special) {
      flush();
      steps.push({ type: 'key', ...KEYS[special] });
      i += special.length;
      continue;
    }
    const code = data.charCodeAt(i);
    if (code >= 1 && code <= 26) {
      flush();
      steps.push({ type: 'key', key: String.fromCharCode(96 + code), modifiers: ['Ctrl'] });
    } else if (code < 0x20) {
      flush();
      steps.push({ type: 'raw', bytes: [code] });
    } else {
      text += data[i];
    }
    i++;
  }
  flush();
  return steps;
}

function cursorLine(term: Terminal): string {
  return extractRowText(term, term.buffer.active.cursorY).text.trim();
}

/** How many rows of the screen show `text` (trimmed), the cursor's own included. */
function rowsShowing(term: Terminal, text: string): number {
  let count = 0;
  for (let y = 0; y < term.rows; y++) {
    if (extractRowText(term, y).text.includes(text)) count++;
  }
  return count;
}

/** The exit an asciicast marker records (`exit 3`, `exit signal SIGTERM`), if it is one. */
export function exitOfMarker(label: string): { code: number } | { signal: string } | undefined {
  const code = /^exit (\d+)$/.exec(label);
  if (code) return { code: Number(code[1]) };
  const signal = /^exit signal (SIG[A-Z0-9]+)$/.exec(label);
  return signal ? { signal: signal[1] as string } : undefined;
}

function lastLine(term: Terminal): string {
  for (let y = term.rows - 1; y >= 0; y--) {
    const text = extractRowText(term, y).text.trim();
    if (text) return text;
  }
  return '';
}

function write(term: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

export async function recordingToTest(file: string): Promise<Record<string, unknown>> {
  const [headerLine, ...lines] = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const header = JSON.parse(headerLine ?? '{}') as {
    width: number;
    height: number;
    command?: string;
  };
  const events = lines.map((l) => JSON.parse(l) as Event);
  const term = createTerminal({ cols: header.width, rows: header.height, scrollback: 2000 });
  const steps: Record<string, unknown>[] = [];
  let lastInputAt = Number.NEGATIVE_INFINITY;
  let outputSinceInput = true;
  let exit: { code: number } | { signal: string } | undefined;
  for (const [time, kind, data] of events) {
    if (kind === 'o') {
      await write(term, data);
      outputSinceInput = true;
    } else if (kind === 'r') {
      const [cols, rows] = data.split('x').map(Number);
      term.resize(cols as number, rows as number);
      steps.push({ type: 'resize', cols, rows });
    } else if (kind === 'm') {
      exit = exitOfMarker(data) ?? exit;
    } else if (kind === 'i') {
      // Before input that answers the program (it wrote since the last input, or a pause
      // passed), wait for what the screen showed then: the cursor's line, usually a prompt.
      const prompt = cursorLine(term);
      if ((outputSinceInput || time - lastInputAt > BURST_MS / 1000) && prompt) {
        // Text another row already shows (python's `>>>` a step ago) would match at once: then
        // expect it on the cursor's row.
        steps.push(
          rowsShowing(term, prompt) > 1
            ? {
                type: 'expect',
                text: prompt,
                row: term.buffer.active.cursorY + 1,
                timeoutMs: 10_000,
              }
            : { type: 'wait', pattern: escapeRegExp(prompt), timeoutMs: 10_000 },
        );
      }
      steps.push(...inputSteps(data));
      lastInputAt = time;
      outputSinceInput = false;
    }
  }
  const final = lastLine(term);
  if (final) steps.push({ type: 'expect', text: final });
  if (exit) steps.push({ type: 'expectExit', ...exit });
  term.dispose();
  return {
    name: `replay of ${basename(file)}`,
    ...(header.command ? { command: header.command } : {}),
    cols: header.width,
    rows: header.height,
    steps,
  };
}
