/**
 * A signature as a small SVG: a few pen strokes that vary with a seed, so two signatures differ.
 * Real devices send a vector or bitmap of the customer's pen path; this has the same shape.
 */
export function signatureSvg(seed: string): string {
  let h = 2166136261;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619) >>> 0;
  const rand = () => {
    h = Math.imul(h ^ (h >>> 15), 2246822507) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 3266489909) >>> 0;
    return (h >>> 0) / 4294967296;
  };
  const points: string[] = [];
  let x = 12;
  while (x < 280) {
    const y = 30 + Math.round(rand() * 45);
    const cx = x + 8 + Math.round(rand() * 12);
    const cy = 15 + Math.round(rand() * 70);
    x += 16 + Math.round(rand() * 18);
    points.push(`Q${cx} ${cy} ${x} ${y}`);
  }
  const path = `M12 55 ${points.join(' ')}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 100" width="300" height="100"><path d="${path}" fill="none" stroke="#000" stroke-width="2" stroke-linecap="round"/><line x1="10" y1="88" x2="290" y2="88" stroke="#888"/></svg>`;
}

export function signatureImage(seed: string): { media_type: 'image/svg+xml'; data: string } {
  return { media_type: 'image/svg+xml', data: Buffer.from(signatureSvg(seed), 'utf8').toString('base64') };
}
