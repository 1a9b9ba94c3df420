import http from 'node:http';
import { chatMessages, type Task } from '../../../server/ai/provider';

/**
 * The slow-model bench's floor (`slowModel.ts`): a bare relay of the model's stream, as a process
 * of its own on 127.0.0.1, with none of the gateway's work (no session check, no quota, no
 * database, no pacing). `POST /api/v1/query` sends the prompt to the model at `argv[2]` with the
 * messages the app sends (`chatMessages`), streamed, and hands each delta on as an `event: delta`,
 * then `event: done`. Run on the same machine, at the same load, in the same run as the gateway, it
 * shows what the machine itself adds to a streamed answer: the gateway's overhead is read against it.
 */
const modelUrl = process.argv[2]!;
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const { task, prompt } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { task: Task; prompt: string };
    const body = JSON.stringify({ model: 'bench-model', max_tokens: 300, stream: true, stream_options: { include_usage: true }, messages: chatMessages({ task, prompt }) });
    const call = http.request(
      `${modelUrl}/chat/completions`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), accept: 'text/event-stream' } },
      (answer) => {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        answer.setEncoding('utf8');
        let pending = '';
        let text = '';
        answer.on('data', (piece: string) => {
          const lines = (pending + piece).split('\n');
          pending = lines.pop()!;
          let out = '';
          for (const line of lines) {
            if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
            const delta = (JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta?.content;
            if (!delta) continue;
            text += delta;
            out += `event: delta\ndata: ${JSON.stringify({ text: delta })}\n\n`;
          }
          if (out) res.write(out);
        });
        answer.on('end', () => res.end(`event: done\ndata: ${JSON.stringify({ answer: text })}\n\n`));
        answer.on('error', () => res.destroy());
      },
    );
    call.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) call.destroy();
    });
    call.end(body);
  });
});

server.listen(0, '127.0.0.1', () => {
  process.send!({ baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
