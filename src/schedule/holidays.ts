import type HolidaysLibrary from 'date-holidays';
import { DateTime } from 'luxon';
import { MAX_YEAR } from './cron-fields';
import { UnknownHolidaysError } from './errors';

/*
 * Public holidays by country and region, from the maintained `date-holidays` library, fixed to a horizon
 * of years: the years a schedule's `skip` list holds them for. Holiday rules change (a government adds a
 * day), so a job holds them only a few years ahead, and every write of the job recomputes them from the
 * library of that day (see docs/cron-and-timezones.md, "Holidays and the horizon").
 */

/** Years of holidays a job holds: this year and the next three. */
export const HOLIDAY_HORIZON_YEARS = 4;

/** The years of the horizon that starts in `now`'s year (UTC), within the years Temporal accepts. */
export function horizonYears(now: Date): number[] {
  const first = now.getUTCFullYear();
  return Array.from({ length: HOLIDAY_HORIZON_YEARS }, (_, i) => first + i).filter((y) => y <= MAX_YEAR);
}

/** One holiday: its local date and its name. */
export interface Holiday {
  readonly date: string;
  readonly name: string;
}

/**
 * The library, loaded on first use: its rules and the time zone data it carries add about 12 MB to a
 * process's RSS (measured: requiring dist/worker/index.js, 106-110 MB with it, 94-96 without), which a
 * process that compiles no holiday (a worker, an alert worker) does not pay.
 */
let loaded: { Holidays: typeof HolidaysLibrary; all: HolidaysLibrary } | undefined;
function holidaysLibrary(): { Holidays: typeof HolidaysLibrary; all: HolidaysLibrary } {
  if (!loaded) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when a holiday is first asked
    const exported = require('date-holidays') as typeof HolidaysLibrary | { default: typeof HolidaysLibrary };
    // CommonJS: the class itself (what `import Holidays from` reads through esModuleInterop).
    const Holidays = 'default' in exported ? exported.default : exported;
    loaded = { Holidays, all: new Holidays() };
  }
  return loaded;
}

/** Holidays already computed, by set and years: listing many jobs compiles the same sets again. */
const cache = new Map<string, Holiday[]>();
const CACHE_SIZE = 200;

/**
 * Splits and checks a set's code: `FR`, `US-NY` (a state), `DE-BY-A` (a region of a state).
 *
 * @throws UnknownHolidaysError naming what is unknown and what exists.
 */
function setCode(code: unknown, field: string): [string, string?, string?] {
  if (typeof code !== 'string' || !/^[A-Za-z]{2}(-[A-Za-z0-9]+){0,2}$/.test(code)) {
    throw new UnknownHolidaysError(
      field,
      `${field} ${JSON.stringify(code)} is not a holiday set: write a country code such as "FR" or "US", or a country and a state such as "US-NY" or "DE-BY"`,
    );
  }
  const [country, state, region] = code.toUpperCase().split('-') as [string, string?, string?];
  const library = holidaysLibrary().all;
  const countries = library.getCountries('en');
  if (!Object.hasOwn(countries, country)) {
    throw new UnknownHolidaysError(
      field,
      `${field} "${code}": "${country}" is not a country date-holidays knows; write an ISO 3166 code such as "FR", "GB", "US"`,
    );
  }
  const check = (found: Record<string, string> | undefined, value: string, of: string, what: string) => {
    if (!found || !Object.hasOwn(found, value)) {
      const known = Object.keys(found ?? {});
      throw new UnknownHolidaysError(
        field,
        `${field} "${code}": "${value}" is not a ${what} of ${of} that date-holidays knows; ${
          known.length > 0 ? `known: ${known.slice(0, 60).join(', ')}` : `${of} has none: write "${of}"`
        }`,
      );
    }
  };
  if (state !== undefined) check(library.getStates(country, 'en'), state, country, 'state');
  if (region !== undefined)
    check(library.getRegions(country, state!, 'en'), region, `${country}-${state}`, 'region');
  return [country, state, region];
}

/**
 * The public holidays of a set (`FR`, `US-NY`) in some years, as local dates (`YYYY-MM-DD`), oldest
 * first. A holiday of several days gives each of its dates.
 *
 * @param field how errors name the option, e.g. `exclude[1].holidays`.
 * @throws UnknownHolidaysError for a country, state or region the library does not know.
 */
export function publicHolidays(code: string, years: readonly number[], field: string): Holiday[] {
  const [country, state, region] = setCode(code, field);
  const key = `${country}-${state ?? ''}-${region ?? ''} ${years.join(',')}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const holidays = computeHolidays(country, state, region, years);
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(key, holidays);
  return holidays;
}

function computeHolidays(
  country: string,
  state: string | undefined,
  region: string | undefined,
  years: readonly number[],
): Holiday[] {
  const opts = { types: ['public' as const] };
  const { Holidays } = holidaysLibrary();
  const set =
    state === undefined
      ? new Holidays(country, opts)
      : region === undefined
        ? new Holidays(country, state, opts)
        : new Holidays(country, state, region, opts);
  const out = new Map<string, Holiday>();
  for (const year of years) {
    for (const h of set.getHolidays(year, 'en')) {
      if (h.type !== 'public') continue;
      const first = DateTime.fromISO(h.date.slice(0, 10), { zone: 'UTC' });
      const days = Math.max(1, Math.round((h.end.getTime() - h.start.getTime()) / 86_400_000));
      for (let i = 0; i < days; i++) {
        const date = first.plus({ days: i }).toISODate()!;
        if (!out.has(date)) out.set(date, { date, name: h.name });
      }
    }
  }
  return [...out.values()].sort((a, b) => a.date.localeCompare(b.date));
}
