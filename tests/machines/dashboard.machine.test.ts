import { createActor, fromPromise } from 'xstate';
import type { DashboardData, DashboardPart, LoadInput } from '../../machines/dashboard/dashboard.actors';
import { dashboardMachine, metersStatus, partStatus } from '../../machines/dashboard/dashboard.machine';
import { FIRST_DRAW_WAIT_MS } from '../../machines/shared/firstDraw';
import type { AuthActorRef } from '../../machines/shared/authRetry';

/** A fake API for the three parts: each call waits until the test answers it. */
function start() {
  const calls: Array<{ part: DashboardPart; resolve: (value: unknown) => void; reject: (error: unknown) => void }> = [];
  const actor = createActor(
    dashboardMachine.provide({
      actors: {
        load: fromPromise<DashboardData[DashboardPart], LoadInput>(
          ({ input }) =>
            new Promise((resolve, reject) => calls.push({ part: input.part, resolve: resolve as (value: unknown) => void, reject })),
        ),
      },
      actions: { logLoadFailure: () => undefined },
    }),
    { input: { auth: null as unknown as AuthActorRef } },
  ).start();
  const answer = async (part: DashboardPart, outcome: { value?: unknown; error?: unknown }) => {
    const call = calls.filter((c) => c.part === part).at(-1)!;
    if ('error' in outcome) call.reject(outcome.error);
    else call.resolve(outcome.value);
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { actor, calls, answer };
}

const status = (actor: ReturnType<typeof start>['actor']) =>
  Object.fromEntries((['usage', 'subscription', 'daily'] as const).map((part) => [part, partStatus(actor.getSnapshot(), part)]));

describe('dashboard chart', () => {
  it('loads the three parts in parallel; each settles on its own', async () => {
    const { actor, calls, answer } = start();
    expect(calls.map((c) => c.part)).toEqual(['usage', 'subscription', 'daily']);
    expect(actor.getSnapshot().hasTag('loading')).toBe(true);
    await answer('subscription', { error: new Error('down') });
    await answer('usage', { value: { monthly_queries: 3 } });
    expect(status(actor)).toEqual({ usage: 'ready', subscription: 'failed', daily: 'loading' });
    // The meters do not wait for a failed subscription, but show no limit they do not know.
    expect(metersStatus(actor.getSnapshot())).toBe('noLimits');
    await answer('daily', { value: [] });
    expect(actor.getSnapshot().hasTag('loading')).toBe(false);
  });

  it('holds the first draw until the usage and the plan have answered, either way, and not again', async () => {
    const { actor, answer } = start();
    const holding = () => actor.getSnapshot().hasTag('holding');
    expect(holding()).toBe(true);
    await answer('usage', { value: { monthly_queries: 0 } });
    await answer('daily', { value: [] });
    expect(holding()).toBe(true);
    await answer('subscription', { error: new Error('down') });
    expect(holding()).toBe(false);
    // A retry or a refresh reloads parts; the page stays drawn meanwhile.
    actor.send({ type: 'subscription.retry' });
    actor.send({ type: 'dashboard.refresh' });
    expect(actor.getSnapshot().hasTag('loading')).toBe(true);
    expect(holding()).toBe(false);
  });

  it('draws the page after FIRST_DRAW_WAIT_MS when the usage or the plan is slower', async () => {
    const { actor, answer } = start();
    await answer('usage', { value: { monthly_queries: 3 } });
    await new Promise((resolve) => setTimeout(resolve, FIRST_DRAW_WAIT_MS - 200));
    expect(actor.getSnapshot().hasTag('holding')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(actor.getSnapshot().hasTag('holding')).toBe(false);
    expect(partStatus(actor.getSnapshot(), 'subscription')).toBe('loading');
  });

  it('lets the meters wait for the subscription while it loads', async () => {
    const { actor, answer } = start();
    await answer('usage', { value: { monthly_queries: 3 } });
    expect(metersStatus(actor.getSnapshot())).toBe('loading');
    await answer('subscription', { value: { plan: 'free', status: 'active' } });
    expect(metersStatus(actor.getSnapshot())).toBe('ready');
  });

  it('retries only the failed part; refresh reloads every part not already loading, keeping its data', async () => {
    const { actor, calls, answer } = start();
    await answer('usage', { error: new Error('down') });
    await answer('subscription', { value: { plan: 'free', status: 'active' } });
    actor.send({ type: 'usage.retry' });
    expect(calls.map((c) => c.part)).toEqual(['usage', 'subscription', 'daily', 'usage']);
    // daily is still loading: a refresh does not ask for it twice.
    actor.send({ type: 'dashboard.refresh' });
    expect(calls.map((c) => c.part)).toEqual(['usage', 'subscription', 'daily', 'usage', 'subscription']);
    expect(status(actor).subscription).toBe('ready');
    await answer('subscription', { error: new Error('down') });
    expect(actor.getSnapshot().context.data.subscription).toBeNull();
    expect(status(actor).subscription).toBe('failed');
    expect(status(actor).usage).toBe('loading');
  });
});
