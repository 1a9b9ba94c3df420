import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The SDK's form-encoded body (`line_items[0][price]=…`). */
  form: URLSearchParams;
}

/**
 * A local stand-in for api.stripe.com, enough for the calls the server makes: Checkout Sessions,
 * billing-portal sessions and reading a subscription. Point the app at it with STRIPE_API_BASE.
 */
export class FakeStripe {
  readonly requests: RecordedRequest[] = [];
  /** Subscriptions `GET /v1/subscriptions/:id` answers with, by id. */
  readonly subscriptions = new Map<string, object>();
  /** While set, every call answers 500 as Stripe does when it is down (and says not to retry). */
  down = false;
  /** While set, every call is accepted and never answered (until `release`). */
  hang = false;
  /** While set, every call is refused with a 400 `invalid_request_error`, as for a price Stripe does not know. */
  refuse = false;
  private held: http.ServerResponse[] = [];
  private server = http.createServer((request, response) => this.answer(request, response));
  private count = 0;

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.release();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Stops hanging, and cuts the calls held so far. */
  release(): void {
    this.hang = false;
    for (const response of this.held.splice(0)) response.destroy();
  }

  /** The calls made to one path, oldest first. */
  callsTo(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  private answer(request: http.IncomingMessage, response: http.ServerResponse) {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const path = (request.url ?? '/').split('?')[0]!;
      this.requests.push({ method: request.method ?? 'GET', path, headers: request.headers, form: new URLSearchParams(body) });
      const send = (status: number, json: object) => {
        response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${this.count}`, 'stripe-should-retry': 'false' });
        response.end(JSON.stringify(json));
      };
      this.count += 1;
      if (this.hang) return void this.held.push(response);
      if (this.refuse) return send(400, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such price (fake).' } });
      if (this.down) return send(500, { error: { type: 'api_error', message: 'Stripe is down (fake).' } });
      if (request.method === 'POST' && path === '/v1/checkout/sessions') {
        const id = `cs_test_fake${this.count}`;
        return send(200, { id, object: 'checkout.session', url: `https://checkout.stripe.test/c/pay/${id}` });
      }
      if (request.method === 'POST' && path === '/v1/billing_portal/sessions') {
        const id = `bps_fake${this.count}`;
        return send(200, { id, object: 'billing_portal.session', url: `https://billing.stripe.test/p/session/${id}` });
      }
      const subscription = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
      if (request.method === 'GET' && subscription) {
        const found = this.subscriptions.get(decodeURIComponent(subscription[1]!));
        if (found) return send(200, found);
      }
      return send(404, { error: { type: 'invalid_request_error', message: `No such resource: ${path}` } });
    });
  }
}
