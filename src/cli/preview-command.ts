import type { Command } from 'commander';
import { InvalidTriggerError } from '../schedule/errors';
import { previewTrigger } from '../schedule/preview';
import type { Trigger } from '../schedule/trigger-types';
import type { DstPolicy } from '../schedule/dst-policy';

interface PreviewFlags {
  every?: string;
  offset?: string;
  tz: string;
  count: string;
  from?: string;
  dstGap?: string;
  dstOverlap?: string;
  json?: boolean;
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
      const trigger: Trigger =
        cron !== undefined
          ? {
              cron,
              timezone: flags.tz,
              ...(flags.dstGap || flags.dstOverlap
                ? {
                    dst: {
                      ...(flags.dstGap ? { gap: flags.dstGap } : {}),
                      ...(flags.dstOverlap ? { overlap: flags.dstOverlap } : {}),
                    } as DstPolicy,
                  }
                : {}),
            }
          : { every: flags.every!, ...(flags.offset ? { offset: flags.offset } : {}), timezone: flags.tz };
      const preview = previewTrigger(trigger, Number(flags.count), flags.from ? { from: flags.from } : {});
      if (flags.json) {
        console.log(JSON.stringify(preview, null, 2));
        return;
      }
      for (const t of preview.fireTimes) console.log(`${t.local}\t(${t.utc})`);
      if (preview.dstWarnings.length > 0) {
        console.log(`\nDST in the coming 12 months (${preview.timezone}):`);
        for (const w of preview.dstWarnings) console.log(`- ${w.message}`);
      }
    });
}
