import type { Command } from 'commander';
import { InvalidTriggerError } from '../schedule/errors';
import { previewTrigger } from '../schedule/preview';
import type { Exclusion, Trigger } from '../schedule/trigger-types';
import type { DstPolicy } from '../schedule/dst-policy';

interface PreviewFlags {
  exclude?: string[];
  holidays?: string[];
  businessDays?: boolean;
  jitter?: string;
  every?: string;
  offset?: string;
  tz: string;
  count: string;
  from?: string;
  dstGap?: string;
  dstOverlap?: string;
  json?: boolean;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * `tflow preview "0 2 * * *" --tz Europe/Paris`: the next fire times of a trigger and its DST warnings,
 * computed locally (no server needed), exactly as Temporal will fire them.
 */
export function registerPreviewCommand(program: Command): void {
  program
    .command('preview [cron]')
    .description(
      'next fire times of a cron (or --every interval) and the DST dates of the coming year, computed locally',
    )
    .option('--every <duration>', 'an interval instead of a cron, e.g. 30s, 2h')
    .option('--offset <duration>', 'with --every: offset from the Unix epoch, e.g. 1h')
    .option('--tz <zone>', 'IANA time zone', 'UTC')
    .option('-n, --count <n>', 'how many fire times', '10')
    .option('--from <instant>', 'list times after this ISO 8601 instant (default now)')
    .option(
      '--exclude <date>',
      'leave out a date (YYYY-MM-DD) or a range (YYYY-MM-DD..YYYY-MM-DD); repeatable',
      collect,
    )
    .option(
      '--holidays <set>',
      'leave out the public holidays of a country or state, e.g. FR, US-NY; repeatable',
      collect,
    )
    .option('--business-days', 'Monday to Friday only (and not on the --holidays)')
    .option('--jitter <duration>', "the job's jitter: show the window each run starts in, e.g. 5m")
    .option(
      '--dst-gap <skip|shift>',
      "with a cron: a local time that does not exist is skipped or shifted to the end of the gap (default: Temporal's own behaviour)",
    )
    .option(
      '--dst-overlap <once|twice>',
      "with a cron: a local time that happens twice runs once (first occurrence) or twice (default: Temporal's own behaviour)",
    )
    .option('--json', 'print JSON')
    .action((cron: string | undefined, flags: PreviewFlags) => {
      if ((cron === undefined) === (flags.every === undefined)) {
        throw new InvalidTriggerError(
          'trigger',
          'give either a cron expression or --every <duration>, e.g. tflow preview "0 2 * * *"',
        );
      }
      const exclude: Exclusion[] = [
        ...(flags.exclude ?? []).map((e): Exclusion => {
          const [from, to] = e.split('..');
          return to === undefined ? e : { from: from!, to };
        }),
        ...(flags.holidays ?? []).map((holidays) => ({ holidays })),
      ];
      const exclusions = {
        ...(exclude.length > 0 ? { exclude } : {}),
        ...(flags.businessDays ? { businessDays: true } : {}),
      };
      const trigger: Trigger =
        cron !== undefined
          ? {
              cron,
              timezone: flags.tz,
              ...exclusions,
              ...(flags.dstGap || flags.dstOverlap
                ? {
                    dst: {
                      ...(flags.dstGap ? { gap: flags.dstGap } : {}),
                      ...(flags.dstOverlap ? { overlap: flags.dstOverlap } : {}),
                    } as DstPolicy,
                  }
                : {}),
            }
          : {
              every: flags.every!,
              ...(flags.offset ? { offset: flags.offset } : {}),
              timezone: flags.tz,
              ...exclusions,
            };
      const preview = previewTrigger(trigger, Number(flags.count), {
        ...(flags.from ? { from: flags.from } : {}),
        ...(flags.jitter ? { jitter: flags.jitter } : {}),
      });
      if (flags.json) {
        console.log(JSON.stringify(preview, null, 2));
        return;
      }
      for (const t of preview.fireTimes) {
        const window = t.jitterUntil ? `\tstarts before ${t.jitterUntil} (jitter)` : '';
        console.log(`${t.local}\t(${t.utc})${window}`);
      }
      if (preview.excludedDates.length > 0) {
        console.log('\nExcluded in this span:');
        for (const e of preview.excludedDates) {
          console.log(`- ${e.date}: ${e.reason} (${e.runs} run${e.runs === 1 ? '' : 's'} left out)`);
        }
      }
      if (preview.holidayHorizon) {
        const { from, to } = preview.holidayHorizon;
        console.log(`\nHolidays are held for ${from}-${to}: every write of the job renews them.`);
      }
      if (preview.dstWarnings.length > 0) {
        console.log(`\nDST in the coming 12 months (${preview.timezone}):`);
        for (const w of preview.dstWarnings) console.log(`- ${w.message}`);
      }
    });
}
