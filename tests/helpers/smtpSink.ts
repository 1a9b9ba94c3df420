import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A local SMTP server (smtp-server) that keeps what it receives, parsed (mailparser), and can be
 * taken down, made to refuse mail with 451 (try again later), or made to hold a mail without ever
 * answering, as a real mail server might.
 */
export class SmtpSink {
  readonly received: ParsedMail[] = [];
  /** `refuse`: every mail gets 451; `hold`: the mail's data is read and never answered. */
  mode: 'accept' | 'refuse' | 'hold' = 'accept';
  /** Mails being held (mode `hold`). */
  held = 0;
  private server: SMTPServer | null = null;

  constructor(readonly port: number) {}

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, _session, callback) => {
        if (this.mode === 'hold') {
          this.held += 1;
          stream.resume();
          return;
        }
        simpleParser(stream).then(
          (mail) => {
            if (this.mode === 'refuse') return callback(Object.assign(new Error('Try again later (test sink)'), { responseCode: 451 }));
            this.received.push(mail);
            callback();
          },
          (error: Error) => callback(error),
        );
      },
    });
    // A client that dies mid-mail (a killed instance) resets its connection: that is no failure of the sink.
    server.on('error', (error: Error & { code?: string }) => {
      if (error.code !== 'ECONNRESET') throw error;
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  /** Down: connections are refused until `start` again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The mails received for `to`. */
  to(to: string): ParsedMail[] {
    return this.received.filter((mail) => [mail.to].flat().some((address) => address?.value.some((entry) => entry.address === to)));
  }
}
