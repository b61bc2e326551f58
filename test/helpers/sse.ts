/** Reads SSE frames of GET /api/events until `count` events arrived (or the stream ended). */
export async function readEvents(res: Response, count: number): Promise<Array<{ id: number; type: string; key: string; entity: string }>> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const out: Array<{ id: number; type: string; key: string; entity: string }> = [];
  let buffer = '';
  while (out.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: (\d+)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (id && data) {
        const e = JSON.parse(data) as { type: string; key: string; entity: string };
        out.push({ id: Number(id), type: e.type, key: e.key, entity: e.entity });
      }
    }
  }
  await reader.cancel();
  return out;
}
