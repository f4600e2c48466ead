// Programs and byte streams the benchmark runs, shared by the agent-tty and the baseline runs.

/** `seq 1 N` through /bin/sh, as both sides run it. */
export const SEQ_COUNT = 2_000_000;
export const seqCommand = `seq 1 ${SEQ_COUNT}`;

/**
 * A full-screen styled repaint: `frames` frames of a cols x rows screen where every cell has its
 * own foreground and background colour (truecolor), positioned with CUP so the bytes are the same
 * through a pipe or a terminal.
 */
export function styledFrames(cols, rows, frames) {
  const parts = [];
  for (let f = 0; f < frames; f++) {
    parts.push('\x1b[H');
    for (let r = 0; r < rows; r++) {
      let line = `\x1b[${r + 1};1H`;
      for (let c = 0; c < cols; c++) {
        const v = (r * cols + c + f * 7) & 0xffff;
        line += `\x1b[38;2;${v & 255};${(v >> 8) & 255};${f & 255};48;2;${(c * 3) & 255};${r & 255};${(v >> 4) & 255}m${String.fromCharCode(65 + ((c + f) % 26))}`;
      }
      parts.push(line);
    }
  }
  parts.push('\x1b[0m');
  return parts.join('');
}

/** One frame, then a long sleep: a screen to snapshot. */
export function styledScreenCommand(cols, rows) {
  const script = `${styledFrames.toString()};process.stdout.write(styledFrames(${cols},${rows},1));setTimeout(()=>{},600000)`;
  return `${process.execPath} -e '${script.replace(/'/g, "'\\''")}'`;
}
