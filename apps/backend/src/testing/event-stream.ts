/** Reads a Server-Sent Events response event by event, parsing each `data:` payload as JSON. */
export async function openEventStream(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  if (!response.ok || !response.body) throw new Error(`event stream answered ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  // biome-ignore lint/suspicious/noExplicitAny: events are asserted on by the tests, whatever their shape
  const ready: any[] = [];
  const rawChunks: string[] = [];
  let buffer = "";

  // biome-ignore lint/suspicious/noExplicitAny: as above
  async function next(timeoutMs = 5000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    while (ready.length === 0) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error("no event arrived in time");
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("no event arrived in time")), remaining),
        ),
      ]);
      if (chunk.done) throw new Error("the event stream ended");
      rawChunks.push(chunk.value);
      buffer += chunk.value;
      let boundary = buffer.indexOf("\n\n");
      while (boundary !== -1) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const data = block
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        if (data) ready.push(JSON.parse(data));
        boundary = buffer.indexOf("\n\n");
      }
    }
    return ready.shift();
  }

  return {
    response,
    next,
    rawChunks,
    close: () => controller.abort(),
  };
}
