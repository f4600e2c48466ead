// Programs the hostile loads run in a terminal, as python3 sources written to .bench/ at run time.

/**
 * `lines` lines of `cells` base characters each carrying `marks` combining acute accents (U+0301),
 * then ESC ] 0 ; and `oscBytes` of 'x' with no terminator, then exit. The terminal turns each
 * newline into CR LF.
 */
export const combiningThenOsc = ({ lines, cells, marks, oscBytes }) => `
import sys
line = (("a" + "\\u0301" * ${marks}) * ${cells} + "\\n").encode()
out = sys.stdout.buffer
for _ in range(${lines}):
    out.write(line)
out.write(b"\\x1b]0;" + b"x" * ${oscBytes})
out.flush()
`;

/**
 * Raw mode; writes ESC [ 6 n (cursor position queries) as fast as the terminal takes them for
 * `floodMs`, never reading; then reads whatever replies arrive until `quietMs` pass without one
 * (at most `readCapMs`), and writes a JSON line of counts and times to `resultPath`.
 */
export const queryFlood = ({ floodMs, quietMs, readCapMs, resultPath }) => `
import json, os, select, time, tty
tty.setraw(0)
os.set_blocking(1, False)
query = b"\\x1b[6n"
chunk = query * 1024
sent = 0
end = time.monotonic() + ${floodMs} / 1000
while time.monotonic() < end:
    try:
        sent += os.write(1, chunk)
    except BlockingIOError:
        select.select([], [1], [], 0.02)
stopped = time.monotonic()
replies = 0
reply_bytes = 0
last = None
while time.monotonic() - stopped < ${readCapMs} / 1000:
    ready, _, _ = select.select([0], [], [], ${quietMs} / 1000)
    if not ready:
        break
    try:
        data = os.read(0, 65536)
    except BlockingIOError:
        continue
    if not data:
        break
    reply_bytes += len(data)
    replies += data.count(b"R")
    last = time.monotonic()
capped = time.monotonic() - stopped >= ${readCapMs} / 1000
with open(${JSON.stringify(resultPath)}, "w") as f:
    json.dump({
        "queries": sent // len(query),
        "replies": replies,
        "replyBytes": reply_bytes,
        "lastReplyAfterMs": None if last is None else (last - stopped) * 1000,
        "capped": capped,
    }, f)
time.sleep(600)
`;

/** Fills a cols-wide terminal with `lines` numbered lines of text, then sleeps. */
export const fillLines = ({ lines, cols }) => `
import sys, time
body = "abcdefghij" * ${Math.ceil(cols / 10)}
for i in range(${lines}):
    sys.stdout.write(("%06d " % i + body)[:${cols}] + "\\r\\n")
sys.stdout.flush()
time.sleep(600)
`;
