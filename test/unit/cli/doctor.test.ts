/** agent-tty doctor's verdicts: versions read from real shells' output, one line per check. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatReport,
  markedShellName,
  nodeCheck,
  parseShellVersion,
  shellCheck,
} from '../../../src/cli/doctor.js';
import { ptyUnavailableError } from '../../../src/pty/pty-unavailable.js';

describe('doctor: Node.js', () => {
  it('needs 20 or newer', () => {
    assert.equal(nodeCheck('v20.0.0').ok, true);
    assert.equal(nodeCheck('v24.11.1').ok, true);
    const old = nodeCheck('v18.20.4');
    assert.equal(old.ok, false);
    assert.match(old.detail, /v18\.20\.4.*20 or newer/);
    assert.match(old.fix ?? '', /Node\.js 20/);
  });
});

describe('doctor: shell', () => {
  it('reads the versions bash, zsh and fish print', () => {
    assert.deepEqual(
      parseShellVersion('GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)\nCopyright'),
      [5, 2, 15],
    );
    assert.deepEqual(
      parseShellVersion('GNU bash, version 3.2.57(1)-release (arm64-apple-darwin23)'),
      [3, 2, 57],
    );
    assert.deepEqual(parseShellVersion('zsh 5.9 (x86_64-debian-linux-gnu)'), [5, 9]);
    assert.deepEqual(parseShellVersion('fish, version 3.6.0'), [3, 6, 0]);
    assert.equal(parseShellVersion('tcsh: unknown option'), undefined);
  });

  it('knows the shells with command marks by name', () => {
    assert.equal(markedShellName('/usr/local/bin/zsh'), 'zsh');
    assert.equal(markedShellName('fish'), 'fish');
    assert.equal(markedShellName('/bin/dash'), undefined);
    assert.equal(markedShellName('/opt/bash-5/bin/bashful'), undefined);
  });

  it('passes bash 4.4 and newer, zsh and fish', () => {
    const bash = (v: string) =>
      shellCheck({
        shell: '/bin/bash',
        found: '/bin/bash',
        versionOutput: `GNU bash, version ${v}(1)-release`,
      });
    assert.equal(bash('4.4.0').ok, true);
    assert.equal(bash('5.2.15').ok, true);
    const old = bash('4.3.48');
    assert.equal(old.ok, false);
    assert.match(old.detail, /bash 4\.3\.48: command marks need bash 4\.4/);
    assert.equal(bash('3.2.57').ok, false);
    const zsh = shellCheck({ shell: 'zsh', found: '/usr/bin/zsh', versionOutput: 'zsh 5.9 (x)' });
    assert.equal(zsh.ok, true);
    assert.match(zsh.detail, /zsh 5\.9/);
  });

  it('names the problem and the fix otherwise', () => {
    const unset = shellCheck({ shell: undefined, found: undefined, versionOutput: undefined });
    assert.equal(unset.ok, false);
    assert.match(unset.detail, /SHELL is not set/);
    assert.match(unset.fix ?? '', /set SHELL/);
    const missing = shellCheck({ shell: '/nope/zsh', found: undefined, versionOutput: undefined });
    assert.match(missing.detail, /\/nope\/zsh, which is not an executable file/);
    const dash = shellCheck({ shell: '/bin/dash', found: '/bin/dash', versionOutput: '' });
    assert.match(dash.detail, /no command marks/);
    const unread = shellCheck({ shell: '/bin/zsh', found: '/bin/zsh', versionOutput: undefined });
    assert.equal(unread.ok, false);
  });
});

describe('doctor: report', () => {
  it('prints one line per check and exits 0 when all pass', () => {
    const report = formatReport([
      { name: 'node', ok: true, detail: 'Node.js v22.1.0' },
      { name: 'node-pty', ok: true, detail: 'loads' },
    ]);
    assert.equal(report.exitCode, 0);
    assert.deepEqual(report.text.split('\n'), [
      'ok      node     Node.js v22.1.0',
      'ok      node-pty loads',
      'all 2 checks passed',
    ]);
  });

  it('exits 1 with the fix on the problem line', () => {
    const report = formatReport([
      { name: 'node', ok: true, detail: 'Node.js v22.1.0' },
      { name: 'shell', ok: false, detail: 'SHELL is not set', fix: 'set SHELL' },
    ]);
    assert.equal(report.exitCode, 1);
    assert.deepEqual(report.text.split('\n'), [
      'ok      node  Node.js v22.1.0',
      'problem shell SHELL is not set; fix: set SHELL',
      '1 of 2 checks found a problem',
    ]);
  });
});

describe('a PTY that cannot load', () => {
  it('is SPAWN_FAILED naming node-pty, the reinstall, the rebuild and doctor', () => {
    const err = ptyUnavailableError(
      new Error('Failed to load native module: pty.node, checked: build/Release\nstack'),
    );
    assert.equal(err.code, 'SPAWN_FAILED');
    assert.match(err.message, /^node-pty, the native module .* could not be loaded \(Failed/);
    assert.doesNotMatch(err.message, /stack/);
    assert.match(err.message, /npm install -g --allow-scripts=node-pty agent-tty/);
    assert.match(err.message, /npm rebuild node-pty/);
    assert.match(err.message, /agent-tty doctor/);
    assert.equal(err.details.nativeModule, 'node-pty');
    assert.equal(ptyUnavailableError(err), err, 'not wrapped twice');
    const other = ptyUnavailableError(new Error("Cannot find module '/x/dist/chunks/a.js'"));
    assert.match(other.message, /^agent-tty's terminal code could not be loaded/);
    assert.equal(other.details.nativeModule, undefined);
  });
});
