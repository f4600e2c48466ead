// Result size per channel for typical steps at 120x40: a result carries the screen both as a text
// block (content[0].text) and as structuredContent; Claude Code and Codex give the model the JSON,
// other clients the text. Only those two and sessionId are read, so any reshaping of the fields
// leaves this working.

const SIZE = { cols: 120, rows: 40 };
const BASH = 'bash --norc --noprofile';
const BASH_PROMPT = '[$#] $';
const PYTHON_PROMPT = '>>> $';
const enter = (text) => [
  { type: 'text', text },
  { type: 'key', key: 'Enter' },
];

/** Each step: a figure name, the program, its prompt, the step's actions, whether it is an error. */
function steps(python) {
  const repl = `${python} -q`;
  return [
    ['python3 print("hello " * 3)', repl, PYTHON_PROMPT, enter('print("hello " * 3)'), false],
    [
      'bash ls --color=always /usr/lib',
      BASH,
      BASH_PROMPT,
      enter('ls --color=always /usr/lib'),
      false,
    ],
    [
      'bash ls --color=always /usr/bin (scrolls)',
      BASH,
      BASH_PROMPT,
      enter('ls --color=always /usr/bin'),
      false,
    ],
    ['python3 1/0, a traceback', repl, PYTHON_PROMPT, enter('1/0'), false],
    [
      'tool error INVALID_KEY (key "Ctrl+X")',
      repl,
      PYTHON_PROMPT,
      [{ type: 'key', key: 'Ctrl+X' }],
      true,
    ],
  ];
}

/** Starts `command`, waits for its prompt, then runs the step: its result, tool error or not. */
async function runStep(client, command, prompt, actions) {
  const started = await client.call('terminal_start', { command, login: false, ...SIZE });
  const { sessionId } = started.structuredContent;
  try {
    await client.call('terminal_input', {
      sessionId,
      actions: [{ type: 'wait', pattern: prompt }],
    });
    return await client.request('terminal_input', { sessionId, actions });
  } finally {
    await client.call('terminal_close', { sessionId });
  }
}

/** One row per step: text bytes, JSON bytes and JSON / text; rows go through `report`. */
export async function reportResultChannels(report, fmt, client, python) {
  console.log('\n  result size per channel, 120x40 (ratio: JSON / text)');
  for (const [figure, command, prompt, actions, isError] of steps(python)) {
    const result = await runStep(client, command, prompt, actions);
    if (Boolean(result.isError) !== isError)
      throw new Error(`${figure}: unexpected result: ${result.content[0]?.text}`);
    const text = Buffer.byteLength(result.content[0]?.text ?? '');
    const json = Buffer.byteLength(JSON.stringify(result.structuredContent ?? null));
    report(
      figure,
      String(text),
      'B text',
      `${json} B JSON (structuredContent)`,
      fmt(json / text, 2),
      '',
    );
  }
}
