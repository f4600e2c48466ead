/**
 * Every query a program might send its terminal, with the exact bytes agent-tty must send back:
 * the documented reply for the probes spec/guarantees.md lists ("Terminal emulation"), nothing for
 * everything else. Run in this order by test/fixtures/replies.py on a 80x24 terminal: the cursor
 * and kitty rows depend on earlier rows.
 */

const CSI = '\x1b[';
const OSC = '\x1b]';
const DCS = '\x1bP';
const ST = '\x1b\\';

/** [name, probe, expected reply ('' for none)] */
export type ProbeRow = readonly [string, string, string];

export function documentedProbes(version: string): ProbeRow[] {
  const xtversion = `${DCS}>|agent-tty(${version})${ST}`;
  const white = 'rgb:ffff/ffff/ffff';
  return [
    ['DA1', `${CSI}c`, `${CSI}?1;2c`],
    ['DA1 with 0', `${CSI}0c`, `${CSI}?1;2c`],
    ['DA2', `${CSI}>c`, `${CSI}>0;276;0c`],
    ['DA2 with 0', `${CSI}>0c`, `${CSI}>0;276;0c`],
    ['DSR status', `${CSI}5n`, `${CSI}0n`],
    ['cursor position', `${CSI}5;10H${CSI}6n`, `${CSI}5;10R`],
    ['DEC cursor position', `${CSI}?6n`, `${CSI}?5;10R`],
    ['DECRQM bracketed paste', `${CSI}?2004$p`, `${CSI}?2004;2$y`],
    ['DECRQM synchronized output', `${CSI}?2026$p`, `${CSI}?2026;2$y`],
    ['DECRQM cursor keys', `${CSI}?1$p`, `${CSI}?1;2$y`],
    ['DECRQM unknown mode (0: not recognized)', `${CSI}?9999$p`, `${CSI}?9999;0$y`],
    ['DECRQM ANSI insert mode', `${CSI}4$p`, `${CSI}4;2$y`],
    ['DECRQM ANSI newline mode', `${CSI}20$p`, `${CSI}20;2$y`],
    ['DECRQSS SGR', `${DCS}$qm${ST}`, `${DCS}1$r0m${ST}`],
    ['DECRQSS scroll region', `${DCS}$qr${ST}`, `${DCS}1$r1;24r${ST}`],
    ['DECRQSS protection', `${DCS}$q"q${ST}`, `${DCS}1$r0"q${ST}`],
    ['DECRQSS cursor style', `${DCS}$q q${ST}`, `${DCS}1$r2 q${ST}`],
    ['DECRQSS conformance level', `${DCS}$q"p${ST}`, `${DCS}1$r61;1"p${ST}`],
    ['DECRQSS unsupported (0: invalid)', `${DCS}$qx${ST}`, `${DCS}0$r${ST}`],
    ['XTVERSION', `${CSI}>q`, xtversion],
    ['XTVERSION with 0', `${CSI}>0q`, xtversion],
    ['OSC 10 foreground', `${OSC}10;?${ST}`, `${OSC}10;${white}${ST}`],
    ['OSC 11 background, BEL', `${OSC}11;?\x07`, `${OSC}11;rgb:0000/0000/0000${ST}`],
    ['OSC 12 cursor', `${OSC}12;?${ST}`, `${OSC}12;${white}${ST}`],
    [
      'OSC 10 asking twice',
      `${OSC}10;?;?${ST}`,
      `${OSC}10;${white}${ST}${OSC}11;rgb:0000/0000/0000${ST}`,
    ],
    ['OSC 4 palette', `${OSC}4;1;?${ST}`, `${OSC}4;1;rgb:cccc/0000/0000${ST}`],
    [
      'OSC 4 two entries',
      `${OSC}4;1;?;2;?${ST}`,
      `${OSC}4;1;rgb:cccc/0000/0000${ST}${OSC}4;2;rgb:4e4e/9a9a/0606${ST}`,
    ],
    ['kitty keyboard', `${CSI}?u`, `${CSI}?0u`],
    ['kitty keyboard after a push', `${CSI}>1u${CSI}?u${CSI}<u`, `${CSI}?1u`],
  ];
}

/** Queries outside the documented list: none may be answered. */
export const UNANSWERED_PROBES: ProbeRow[] = [
  ['DA3', `${CSI}=c`, ''],
  ['DSR printer', `${CSI}?15n`, ''],
  ['DSR user-defined keys', `${CSI}?25n`, ''],
  ['DSR keyboard', `${CSI}?26n`, ''],
  ['DSR locator', `${CSI}?53n`, ''],
  ['DSR colour scheme', `${CSI}?996n`, ''],
  ['XTGETTCAP TN', `${DCS}+q544e${ST}`, ''],
  ['XTGETXRES', `${DCS}+Q616c6c6f77${ST}`, ''],
  ['OSC 4 out of range', `${OSC}4;300;?${ST}`, ''],
  ['OSC 5 special colour', `${OSC}5;0;?${ST}`, ''],
  ['OSC 13 pointer colour', `${OSC}13;?${ST}`, ''],
  ['OSC 17 highlight', `${OSC}17;?${ST}`, ''],
  ['OSC 19 highlight text', `${OSC}19;?${ST}`, ''],
  ['OSC 50 font', `${OSC}50;?${ST}`, ''],
  ['OSC 52 clipboard read', `${OSC}52;c;?${ST}`, ''],
  ['OSC 52 clipboard write', `${OSC}52;c;SGVsbG8=${ST}`, ''],
  ['OSC 0 title', `${OSC}0;title${ST}`, ''],
  ['OSC 21 title report (kitty)', `${OSC}21${ST}`, ''],
  ['OSC 7 directory', `${OSC}7;file://host/tmp${ST}`, ''],
  ['OSC 1337 cell size', `${OSC}1337;ReportCellSize${ST}`, ''],
  ['OSC 9 notification', `${OSC}9;notify${ST}`, ''],
  ['OSC 777 notification', `${OSC}777;notify;a;b${ST}`, ''],
  ['XTWINOPS window state', `${CSI}11t`, ''],
  ['XTWINOPS window position', `${CSI}13t`, ''],
  ['XTWINOPS window size in pixels', `${CSI}14t`, ''],
  ['XTWINOPS text area in pixels', `${CSI}14;2t`, ''],
  ['XTWINOPS screen in pixels', `${CSI}15t`, ''],
  ['XTWINOPS cell size', `${CSI}16t`, ''],
  ['XTWINOPS text area in characters', `${CSI}18t`, ''],
  ['XTWINOPS screen in characters', `${CSI}19t`, ''],
  ['XTWINOPS icon label', `${CSI}20t`, ''],
  ['XTWINOPS window title', `${CSI}21t`, ''],
  ['XTWINOPS push title', `${CSI}22;0t`, ''],
  ['DECREQTPARM', `${CSI}x`, ''],
  ['DECREQTPARM 1', `${CSI}1x`, ''],
  ['DECRQCRA checksum', `${CSI}1;1;1;1;1;1*y`, ''],
  ['DECRQPSR cursor', `${CSI}1$w`, ''],
  ['DECRQPSR tab stops', `${CSI}2$w`, ''],
  ['DECRQTSR', `${CSI}1$u`, ''],
  ['DECRQUPSS', `${CSI}&u`, ''],
  ['DECRQDE', `${CSI}"v`, ''],
  ['XTQMODKEYS', `${CSI}?4m`, ''],
  ['XTSMGRAPHICS colours', `${CSI}?1;1;0S`, ''],
  ['XTSMGRAPHICS sixel size', `${CSI}?2;1;0S`, ''],
  ['XTREPORTCOLORS', `${CSI}#R`, ''],
  ['XTCHECKSUM', `${CSI}#y`, ''],
  ['ENQ answerback', '\x05', ''],
  ['DECID', '\x1bZ', ''],
  ['kitty graphics query', `\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA${ST}`, ''],
  ['focus reporting on', `${CSI}?1004h`, ''],
  ['mouse tracking on', `${CSI}?1003h${CSI}?1006h`, ''],
  ['soft reset', `${CSI}!p`, ''],
];

/** Answered, though spec/guarantees.md does not list them (reported as a spec gap). */
