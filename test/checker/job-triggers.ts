/*
 * A planned job's trigger, made concrete when its create is sent: what the product is given, and the
 * same trigger as the checker's model reads it (nominal-times.ts). Both are written from the plan's
 * JobSpec here; neither is derived from the other through the product.
 */
import { DateTime } from 'luxon';
import type { Trigger } from '../../src/schedule/trigger-types';
import { dayFields } from './day-forms';
import type { JobSpec } from './generator';
import { cronOf, type ModelTrigger } from './nominal-times';

export function jobTrigger(spec: JobSpec, now: number): { trigger: Trigger; model: ModelTrigger } {
  const t = spec.trigger;
  switch (t.kind) {
    case 'interval':
      return { trigger: { every: `${t.everyS}s` }, model: t };
    case 'calendar':
      return { trigger: { calendar: { second: `*/${t.stepS}`, minute: '*', hour: '*' } }, model: t };
    case 'once':
      return { trigger: { runAt: new Date(now + t.inMs) }, model: { kind: 'once', at: now + t.inMs } };
    case 'cron': {
      const hours = t.hours === null ? null : [...Array(24).keys()].filter((h) => h % 3 === t.hours);
      const model: ModelTrigger = {
        kind: 'cron',
        zone: t.zone,
        stepS: t.stepS,
        hours,
        ...dayFields(t.day, DateTime.fromMillis(now, { zone: t.zone })),
      };
      if (t.form === 'cron') return { trigger: { cron: cronOf(model), timezone: t.zone }, model };
      const calendar = {
        second: `*/${t.stepS}`,
        minute: '*',
        hour: hours ?? '*',
        dayOfMonth: model.dom,
        dayOfWeek: model.dow,
      };
      return { trigger: { calendar, timezone: t.zone }, model };
    }
    case 'dst': {
      const policy = { gap: t.gap, overlap: t.overlap };
      const model: ModelTrigger = { kind: 'dst', zone: t.zone, minutes: t.minutes, policy };
      return { trigger: { cron: cronOf(model), timezone: t.zone, dst: policy }, model };
    }
  }
}
