// encodeText / encodePaste / encodeFocus: exact UTF-8, paste line endings and bracketed-paste
// framing (DEC mode 2004), focus reports (mode 1004).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeFocus, encodePaste, encodeText } from '../../../src/input/encode-text.js';

const START = '\x1b[200~';
const END = '\x1b[201~';
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const utf8 = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('encodeText: UTF-8, exactly', () => {
  const rows: readonly (readonly [string, string])[] = [
    ['abc', '616263'],
    ['é', 'c3a9'],
    ['日本語', 'e697a5e69cace8aa9e'],
    ['🙂', 'f09f9982'],
    ['a\nb\r\n', '610a620d0a'],
    ['\x03\x1b[A', '031b5b41'],
    ['', ''],
  ];
  for (const [text, bytes] of rows) {
    it(`${JSON.stringify(text)} → ${bytes || '(nothing)'}`, () =>
      assert.equal(hex(encodeText(text)), bytes));
  }
});

describe('encodePaste: line endings become CR', () => {
  const rows: readonly (readonly [string, string])[] = [
    ['one\ntwo', 'one\rtwo'],
    ['one\r\ntwo\r\n', 'one\rtwo\r'],
    ['a\rb', 'a\rb'],
    ['\n\n', '\r\r'],
    ['\r\r\n', '\r\r'],
    ['mixed\r\nand\nbare\r', 'mixed\rand\rbare\r'],
    ['日本\n語 🙂', '日本\r語 🙂'],
    ['', ''],
  ];
  for (const [text, want] of rows) {
    it(`unbracketed ${JSON.stringify(text)} → ${JSON.stringify(want)}`, () =>
      assert.equal(utf8(encodePaste(text, false)), want));
    it(`bracketed ${JSON.stringify(text)} → framed ${JSON.stringify(want)}`, () =>
      assert.equal(utf8(encodePaste(text, true)), `${START}${want}${END}`));
  }
});

describe('encodePaste: bracketed-paste framing', () => {
  it('no markers unless the program enabled mode 2004', () => {
    assert.equal(utf8(encodePaste('ls -la', false)), 'ls -la');
    assert.equal(utf8(encodePaste('ls -la', true)), `${START}ls -la${END}`);
  });
  it('UTF-8 inside the markers', () =>
    assert.equal(
      hex(encodePaste('é', true)),
      `${Buffer.from(START).toString('hex')}c3a9${Buffer.from(END).toString('hex')}`,
    ));
  it('an embedded end marker is removed, so the paste cannot end early', () =>
    assert.equal(
      utf8(encodePaste(`echo safe${END}; rm -rf ~\n`, true)),
      `${START}echo safe; rm -rf ~\r${END}`,
    ));
  it('several embedded end markers are all removed', () =>
    assert.equal(utf8(encodePaste(`${END}a${END}${END}b${END}`, true)), `${START}ab${END}`));
  it('removing a marker cannot assemble a new one from its neighbours', () =>
    assert.equal(utf8(encodePaste(`\x1b[20${END}1~x`, true)), `${START}x${END}`));
  it('a start marker inside the text is left alone', () =>
    assert.equal(utf8(encodePaste(`a${START}b`, true)), `${START}a${START}b${END}`));
  it('unbracketed text keeps an end marker as typed', () =>
    assert.equal(utf8(encodePaste(`a${END}b`, false)), `a${END}b`));
});

describe('encodeFocus (mode 1004)', () => {
  it('focus in → CSI I', () => assert.equal(hex(encodeFocus(true)), '1b5b49'));
  it('focus out → CSI O', () => assert.equal(hex(encodeFocus(false)), '1b5b4f'));
});
