import { maskCardNumbersInFreeText } from '../src/engine/security/card-data';
import { arg } from './args';

/**
 * Card-number masking runs on every request body, before credentials are known for the open
 * routes, on the one thread that also answers the lanes. Hostile bodies (digits of any script
 * between separators: every run of them is a card-length candidate) are timed beside ordinary
 * prose of the same size, in the same run.
 *
 *   npm run bench:masking -- [--kb 256] [--runs 5]
 *
 * Target: a hostile body costs no more than a few times the prose baseline per character, so the
 * largest body an open route takes (256 KB) stays far under a second.
 */
const kb = arg('kb', 256);
const runs = arg('runs', 5);
const size = kb * 1024;
const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
const bodies: Array<[string, string]> = [
  ['prose with dates and references (baseline)', fill('Deliver to dock 4, rear entrance; PO 77812 ref 2026-11-27 14:05:33. ')],
  ['cards among text', fill('card 4895 2810 0000 0006 exp 12 30; ')],
  ['ASCII digits and spaces', fill('1 ')],
  ['digits and dashes', fill('12-')],
  ['mathematical digits and spaces', fill('\u{1D7D9} ')],
  ['Arabic-Indic digits and dots', fill('\u0661.')],
];

const timeOf = (text: string) => {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    maskCardNumbersInFreeText({ notes: text });
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
};

console.log(`\nbench/masking: one ${kb} KB JSON string per body, median of ${runs} runs\n`);
console.log('| body | ms | µs a character | x the baseline |');
console.log('|---|---:|---:|---:|');
const base = timeOf(bodies[0]![1]);
for (const [name, text] of bodies) {
  const ms = name.includes('baseline') ? base : timeOf(text);
  console.log(`| ${name} | ${ms.toFixed(1)} | ${((1000 * ms) / text.length).toFixed(3)} | ${(ms / base).toFixed(1)} |`);
}
