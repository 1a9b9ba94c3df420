import type { Server } from 'node:http';
import net, { type Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config';
import { rawErrorResponse } from '../errors';

const REFUSAL = rawErrorResponse(503, 'too_many_connections', 'The server has too many open connections. Please try again shortly.');
const ADDRESS_REFUSAL = rawErrorResponse(429, 'too_many_connections', 'Too many open connections from your network. Close some and try again.', { 'Retry-After': '1' });

/**
 * The network a client address stands for: an IPv4 address itself (also written IPv4-mapped), an
 * IPv6 address its /64, since one such network is what one customer line gets and holds 2^64
 * addresses to open connections from.
 */
export function networkOf(address: string | undefined): string {
  if (!address) return '';
  const plain = address.split('%')[0]!.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  if (mapped) return mapped[1]!;
  if (net.isIPv4(plain) || !net.isIPv6(plain)) return plain;
  const [head = '', tail] = plain.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(':')}::/64`;
}

/** The ranges proxy-addr (TRUST_PROXY) names. */
const NAMED_RANGES: Record<string, Array<[string, number, 'ipv4' | 'ipv6']>> = {
  loopback: [['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']],
  linklocal: [['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']],
  uniquelocal: [['10.0.0.0', 8, 'ipv4'], ['172.16.0.0', 12, 'ipv4'], ['192.168.0.0', 16, 'ipv4'], ['fc00::', 7, 'ipv6']],
};

/**
 * Which peers the per-address bound leaves alone: the trusted proxies, whose connections carry many
 * clients (behind a proxy counted by hops, every peer is one).
 */
export function exemptPeers(trust: Config['trustProxy']): (address: string) => boolean {
  if (trust === false) return () => false;
  if (typeof trust === 'number') return () => true;
  const proxies = new net.BlockList();
  for (const entry of trust) {
    for (const [address, bits, family] of NAMED_RANGES[entry] ?? []) proxies.addSubnet(address, bits, family);
    if (NAMED_RANGES[entry]) continue;
    const [address, bits] = entry.split('/') as [string, string | undefined];
    const family = net.isIPv6(address) ? 'ipv6' : 'ipv4';
    if (bits === undefined) proxies.addAddress(address, family);
    else proxies.addSubnet(address, Number(bits), family);
  }
  return (address) => {
    const plain = address.split('%')[0]!;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(plain)?.[1];
    if (mapped) return proxies.check(mapped, 'ipv4');
    const family = net.isIP(plain);
    return family !== 0 && proxies.check(plain, family === 6 ? 'ipv6' : 'ipv4');
  };
}

export interface ConnectionBounds {
  /** Open connections of the whole process. */
  max: number;
  /** Open connections of one client network (see `networkOf`); 0: no such bound. */
  perAddress: number;
  /** Peers the per-address bound leaves alone (trusted proxies). */
  exempt: (address: string) => boolean;
}

/** Refuses a connection: `answer` in the product's error shape, then closed, without reaching the HTTP server. */
function refuse(socket: Socket, answer: string): void {
  socket.on('error', () => undefined);
  // Read and drop what the client sends: closing with unread data would reset the connection
  // before the client reads the answer.
  socket.resume();
  socket.end(answer);
  // A client that never reads its answer does not keep the descriptor either.
  socket.setTimeout(1000, () => socket.destroy());
}

/**
 * Caps the connections one process holds, so clients that open many (and hold them, however
 * slowly they send) cannot use up its file descriptors and lock every other client out; and the
 * connections of one client network, so that one address cannot take every place either. One over
 * the cap is answered in the product's error shape (503 for the process's cap, 429 for an address's)
 * and closed at once, without being handed to the HTTP server, so it costs nothing more.
 * (`server.maxConnections` would only drop it silently.)
 */
export function limitConnections(server: Server, bounds: ConnectionBounds, log: FastifyBaseLogger): void {
  let open = 0;
  const byNetwork = new Map<string, number>();
  // The HTTP server's own listener (and any other) sees only the connections under the caps.
  const listeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    if (open >= bounds.max) {
      log.warn({ event: 'server.connection_refused', open, max: bounds.max }, 'too many open connections: refused one');
      return refuse(socket, REFUSAL);
    }
    const counted = bounds.perAddress > 0 && !bounds.exempt(socket.remoteAddress ?? '');
    const network = networkOf(socket.remoteAddress);
    if (counted) {
      const held = byNetwork.get(network) ?? 0;
      if (held >= bounds.perAddress) {
        log.warn({ event: 'server.connection_refused', network, held, max: bounds.perAddress }, 'too many open connections from one network: refused one');
        return refuse(socket, ADDRESS_REFUSAL);
      }
      byNetwork.set(network, held + 1);
    }
    open += 1;
    socket.once('close', () => {
      open -= 1;
      if (!counted) return;
      const left = byNetwork.get(network)! - 1;
      if (left === 0) byNetwork.delete(network);
      else byNetwork.set(network, left);
    });
    for (const listener of listeners) listener.call(server, socket);
  });
}
