import { describe, expect, it } from 'vitest';
import { SlotTable, slotIdOf } from '../../src/workflows/semaphore/slot-table';
import type { SlotRequest } from '../../src/workflows/semaphore/semaphore-defs';
import { compileConcurrency } from '../../src/pipeline/concurrency';
import { pipeline, PipelineSpecError } from '../../src/pipeline';

/*
 * The semaphore's decisions (slot-table.ts): first come first served within a key, round-robin across
 * keys, never past a key's limit or the total, and cancel-in-progress keeping the newest runs of a key.
 */

const req = (id: string, key: string | undefined, max: number, total?: number): SlotRequest => ({
  workflowId: id,
  runId: `r-${id}`,
  max,
  ...(key !== undefined ? { key } : {}),
  ...(total !== undefined ? { total } : {}),
});

/** Asks as the semaphore's update does: granted now, or queued. */
function ask(table: SlotTable, r: SlotRequest): 'granted' | 'queued' {
  if (table.grantableNow(r)) {
    table.grant(r);
    return 'granted';
  }
  table.enqueue(r);
  return 'queued';
}

const release = (table: SlotTable, id: string) => {
  table.remove(new Set([`${id}/r-${id}`]));
  return table.grantWaiting().map((h) => h.workflowId);
};

describe('SlotTable', () => {
  it('without keys: first come first served up to max, as before keys existed', () => {
    const t = new SlotTable({ holders: [] });
    expect(['a', 'b', 'c', 'd'].map((id) => ask(t, req(id, undefined, 2)))).toEqual([
      'granted',
      'granted',
      'queued',
      'queued',
    ]);
    expect(release(t, 'a')).toEqual(['c']);
    expect(release(t, 'b')).toEqual(['d']);
    // Holders keep the shape they always had (no key field) for continue-as-new and the holders query.
    expect(t.state().holders).toEqual([
      { workflowId: 'c', runId: 'r-c' },
      { workflowId: 'd', runId: 'r-d' },
    ]);
  });

  it('serves keys round-robin under the total: a key with a long line does not hold the others up', () => {
    const t = new SlotTable({ holders: [] });
    // Total 2, per key 2: tenant A floods first, then B and C ask once each.
    for (let i = 0; i < 6; i++) ask(t, req(`a${i}`, 'A', 2, 2));
    ask(t, req('b0', 'B', 2, 2));
    ask(t, req('c0', 'C', 2, 2));
    expect([...t.holders.keys()]).toEqual(['a0/r-a0', 'a1/r-a1']);
    const order: string[] = [];
    for (const id of ['a0', 'a1']) order.push(...release(t, id));
    // A was in the rotation first, then B and C: A, B, then C, then A again.
    for (const id of [...order]) order.push(...release(t, id));
    expect(order.slice(0, 4)).toEqual(['a2', 'b0', 'c0', 'a3']);
  });

  it('never grants past a key limit or the total, whatever the order of asks and releases', () => {
    // A seeded walk of asks and releases over 4 keys: per key 2, total 5.
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const t = new SlotTable({ holders: [] });
    let n = 0;
    const granted = new Set<string>();
    for (let step = 0; step < 2000; step++) {
      if (rand() < 0.55) {
        const r = req(`w${n++}`, `k${Math.floor(rand() * 4)}`, 2, 5);
        if (ask(t, r) === 'granted') granted.add(slotIdOf(r));
      } else if (t.holders.size > 0) {
        const ids = [...t.holders.keys()];
        const id = ids[Math.floor(rand() * ids.length)]!;
        t.remove(new Set([id]));
        for (const h of t.grantWaiting()) granted.add(slotIdOf(h));
      }
      expect(t.holders.size).toBeLessThanOrEqual(5);
      const perKey = new Map<string, number>();
      for (const h of t.holders.values()) perKey.set(h.key!, (perKey.get(h.key!) ?? 0) + 1);
      for (const count of perKey.values()) expect(count).toBeLessThanOrEqual(2);
      // No waiter left behind: when a waiter's key and the total have room, it is not waiting.
      for (const w of t.waiting) {
        expect((perKey.get(w.key!) ?? 0) >= 2 || t.holders.size >= 5).toBe(true);
      }
    }
    // Drained, every run asked got its slot once.
    while (t.holders.size > 0) {
      t.remove(new Set([[...t.holders.keys()][0]!]));
      for (const h of t.grantWaiting()) granted.add(slotIdOf(h));
    }
    expect(t.waiting).toEqual([]);
    expect(granted.size).toBe(n);
  });

  it('cancel-in-progress keeps the newest max runs of a key: older holders cancelled, older waiters dropped', () => {
    const t = new SlotTable({ holders: [] });
    ask(t, req('h1', 'A', 2));
    ask(t, req('h2', 'A', 2));
    ask(t, req('n1', 'A', 2));
    expect(t.trimToNewest(req('n1', 'A', 2))).toEqual({
      cancelHolders: [{ workflowId: 'h1', runId: 'r-h1', key: 'A' }],
      dropped: [],
    });
    ask(t, req('n2', 'A', 2));
    ask(t, req('n3', 'A', 2));
    const second = t.trimToNewest(req('n3', 'A', 2));
    // h2 is cancelled too; n1, older than n2 and n3, leaves the line.
    expect(second.cancelHolders.map((h) => h.workflowId)).toEqual(['h2']);
    expect(second.dropped.map((h) => h.workflowId)).toEqual(['n1']);
    // Holders asked to cancel keep their slots until they give them back: nobody is granted yet.
    expect(t.grantWaiting()).toEqual([]);
    expect(release(t, 'h1')).toEqual(['n2']);
    expect(release(t, 'h2')).toEqual(['n3']);
    expect(t.cancelling.size).toBe(0);
  });

  it('carries its state across continue-as-new, rotation and cancelling included', () => {
    const t = new SlotTable({ holders: [] });
    ask(t, req('a0', 'A', 1, 1));
    ask(t, req('a1', 'A', 1, 1));
    ask(t, req('b0', 'B', 1, 1));
    t.trimToNewest(req('a1', 'A', 1));
    const next = new SlotTable(JSON.parse(JSON.stringify(t.state())) as ReturnType<SlotTable['state']>);
    expect(next.cancelling).toEqual(new Set(['a0/r-a0']));
    expect(release(next, 'a0')).toEqual(['a1']);
    expect(release(next, 'a1')).toEqual(['b0']);
  });
});

describe('compileConcurrency', () => {
  it.each([
    [{ maxConcurrentTotal: 3 }, 'maxConcurrentTotal', 'maxConcurrentTotal needs a concurrencyKey'],
    [{ whenFull: 'skip' }, 'whenFull', 'whenFull needs a concurrencyKey'],
    [
      { concurrencyKey: (): string => 'k', maxConcurrent: 3, maxConcurrentTotal: 2 },
      'maxConcurrentTotal',
      'maxConcurrentTotal must be a whole number >= maxConcurrent (3), got 2',
    ],
    [
      { concurrencyKey: (): string => 'k', maxConcurrentTotal: 0 },
      'maxConcurrentTotal',
      'maxConcurrentTotal must be a whole number >= maxConcurrent (1), got 0',
    ],
    [
      { concurrencyKey: (): string => 'k', whenFull: 'drop' },
      'whenFull',
      "whenFull must be one of 'queue', 'skip', 'cancel-newest', 'cancel-in-progress', got \"drop\"",
    ],
  ])('refuses %j naming %s', (options, field, message) => {
    let error: unknown;
    try {
      compileConcurrency(options as Parameters<typeof compileConcurrency>[0]);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PipelineSpecError);
    expect((error as PipelineSpecError).field).toBe(field);
    expect((error as Error).message).toContain(message);
  });

  it('gives a pipeline its limits and policy', () => {
    const p = pipeline('capped', {
      concurrencyKey: ([k]) => String(k),
      maxConcurrent: 2,
      maxConcurrentTotal: 5,
      whenFull: 'cancel-in-progress',
    }).step('a');
    expect(p.concurrency).toMatchObject({ max: 2, total: 5, whenFull: 'cancel-in-progress' });
    expect(pipeline('plain', { concurrencyKey: () => 'k' }).step('a').concurrency).toMatchObject({
      max: 1,
      whenFull: 'queue',
    });
  });
});
