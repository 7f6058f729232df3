/**
 * A `ws` client of the mempool stream for tests: records every frame and how the socket closed,
 * and waits for a condition on the frames received so far.
 */
import WebSocket from 'ws';

export interface StreamFrame {
  seq: number;
  type: string;
  [key: string]: unknown;
}

export function openStream(url: string) {
  const socket = new WebSocket(url);
  const frames: StreamFrame[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  socket.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString()) as StreamFrame));
  socket.on('error', () => undefined);
  const until = async (what: (f: StreamFrame[]) => boolean, ms = 15_000): Promise<void> => {
    const deadline = Date.now() + ms;
    while (!what(frames)) {
      if (Date.now() > deadline) throw new Error(`timed out; frames: ${frames.map((f) => f.type).join(',')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { socket, frames, closed, until };
}
