/*
 * The Quartz day forms of the checker's cron jobs, resolved when a job is created so that the form names
 * that local day in the job's zone (the plan is drawn before the date is known): a 60-second run then sees
 * the form fire, or, for a form that cannot name today, sees it stay silent all day.
 */
import type { DateTime } from 'luxon';
import type { DayForm } from './generator';

const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** The day-of-month and day-of-week fields (the project's dialect) of `form` for the local day `local`. */
export function dayFields(form: DayForm, local: DateTime): { dom: string; dow: string } {
  const weekday = local.weekday % 7; // 0 = Sunday
  const len = local.daysInMonth!;
  switch (form) {
    case 'any':
      return { dom: '*', dow: '*' };
    case 'W':
      // A Friday is the weekday nearest the Saturday after it, a Monday the one nearest the Sunday before;
      // on a weekend day `nW` names a weekday nearby, never today.
      if (weekday === 5 && local.day < len) return { dom: `${local.day + 1}W`, dow: '*' };
      if (weekday === 1 && local.day > 1) return { dom: `${local.day - 1}W`, dow: '*' };
      return { dom: `${local.day}W`, dow: '*' };
    case 'L-':
      return { dom: `L-${len - local.day}`, dow: '*' };
    case '#':
      return { dom: '*', dow: `${DAYS[weekday]}#${Math.ceil(local.day / 7)}` };
    case 'L':
      // Today only in the last seven days of the month; earlier, the last such weekday is weeks away.
      return { dom: '*', dow: `${DAYS[weekday]}L` };
  }
}
